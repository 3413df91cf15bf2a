"""The names the shared facts match, on no tree: which methods, attributes and ``torch.*``
functions say *tensor*, *size*, *mask* or *no tensor*, and the words without which no such fact
can exist in a file.

LibCST-free on purpose: the LibCST facts (:mod:`zlint.facts.size_facts`,
:mod:`zlint.facts.tensor_evidence`, :mod:`zlint.facts.call_sites`), the ``ast`` candidate stage
(:mod:`zlint.candidates`), the rules' gates (:mod:`zlint.candidates.gates`) and the rules read
these very sets (no copy to keep in step), so a file that needs no rule run loads no LibCST to
decide that.
"""

from __future__ import annotations

# -- evidence that a name holds a tensor (zlint.facts.tensor_evidence) --------------------------

#: Attributes only tensors have.
TENSOR_ATTRIBUTES = frozenset({"device", "is_cuda", "requires_grad", "grad_fn", "is_sparse", "layout"})
#: Attributes tensors share with numpy arrays: evidence only in a file that does not import
#: numpy; in one that does, enough to call ``len()`` of the name a size (an array's is one too).
SHAPED_ATTRIBUTES = frozenset({"shape", "ndim", "dtype"})
#: Methods only a tensor has (numpy's spelling differs: ``axis=``, ``astype``, ``.size`` attribute).
TENSOR_METHODS = frozenset(
    {
        "size", "numel", "nelement", "dim", "ndimension", "masked_fill", "masked_fill_", "masked_scatter",
        "masked_select", "unsqueeze", "permute", "contiguous", "float", "half", "long", "int",
        "bool", "double", "bfloat16", "detach", "cpu", "cuda", "type_as", "new_zeros", "new_ones", "new_full",
        "new_empty", "new_tensor", "expand", "expand_as", "view_as", "reshape_as", "index_select", "gather",
        "scatter", "scatter_", "scatter_add", "scatter_add_", "index_add", "index_add_", "index_fill",
        "index_fill_", "index_put", "index_put_", "clamp", "clamp_", "clamp_min", "clamp_max", "softmax",
        "log_softmax", "sigmoid", "relu", "bmm", "matmul", "repeat_interleave", "unbind", "narrow", "flip",
        "topk", "argsort", "element_size", "data_ptr", "is_contiguous", "stride", "view",
        "unflatten", "logical_not", "logical_and", "logical_or", "bitwise_not", "numpy",
        "new", "pin_memory", "is_floating_point", "split_with_sizes",
    }
)
#: Methods numpy arrays share with tensors: evidence only in a file that does not import numpy.
NUMPY_SHARED_METHODS = frozenset({"tolist", "item", "nonzero"})
#: Reductions that take ``dim=``/``keepdim=`` only on tensors (numpy says ``axis=``).
DIM_KEYWORDS = frozenset({"dim", "keepdim"})
#: torch.* functions whose first argument is not a tensor (sizes, data, sequences, strings).
NOT_TENSOR_FIRST = frozenset(
    {
        "tensor", "as_tensor", "from_numpy", "asarray", "zeros", "ones", "empty", "full", "rand", "randn",
        "randint", "randperm", "arange", "range", "linspace", "logspace", "eye", "cat", "concat",
        "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
        "broadcast_tensors", "block_diag", "cartesian_prod", "einsum", "meshgrid", "manual_seed", "load",
        "save", "device", "dtype", "is_tensor", "numel", "compile", "cond", "broadcast_shapes", "Size",
        "Generator", "set_printoptions", "no_grad", "chain_matmul", "atleast_1d", "atleast_2d",
        "atleast_3d", "complex", "polar", "tril_indices", "triu_indices", "empty_strided", "sym_int",
        "sym_float", "sym_max", "sym_min", "autocast", "get_default_dtype", "finfo", "iinfo", "pad_sequence",
    }
)

# -- the words without which a file holds no such fact (the fast path: zlint.engine.prepass) -----

#: No expression is a SIZE or SHAPE (nor a size bool) unless one of these words occurs in its
#: function or in the module-level code. Keep in step with the sources of sizes in
#: zlint.facts.size_facts (.size()/.shape/.numel()/.nelement()/len()/torch.numel).
SIZE_WORDS = frozenset({"size", "shape", "numel", "nelement", "len"})
#: Likewise for TENSOR facts (and masks): they come from names qualified through a torch
#: import, a "Tensor"/"torch.Tensor" string annotation, or a use only a tensor allows
#: (zlint.facts.tensor_evidence: ``.tolist()``, ``.any(dim=1)``, ``.sigmoid()``).
TENSOR_WORDS = frozenset(
    {"torch", "Tensor"} | TENSOR_ATTRIBUTES | SHAPED_ATTRIBUTES | TENSOR_METHODS | NUMPY_SHARED_METHODS
    | DIM_KEYWORDS
)

# -- what a call returns (zlint.facts.size_facts) ----------------------------------------------

#: Tensor methods whose result is not a tensor.
NON_TENSOR_RESULT_METHODS = frozenset(
    {
        "size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "stride",
        "storage_offset", "is_contiguous", "is_floating_point", "is_complex", "data_ptr",
        "element_size", "get_device", "numpy", "unbind", "split", "chunk", "tensor_split",
        "type", "is_set_to", "equal", "__len__", "untyped_storage", "storage", "keys",
        "values", "items", "get", "pop", "append", "extend", "astype", "copy",
    }
)
#: torch.* callables that do not return a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "is_tensor", "is_floating_point", "is_complex", "numel", "device", "dtype", "compile",
        "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled",
        "manual_seed", "get_default_dtype", "set_default_dtype", "cond", "jit", "cuda",
        "broadcast_shapes", "Size", "unbind", "split", "chunk", "tensor_split", "meshgrid",
        "is_autocast_enabled", "autocast", "finfo", "iinfo", "promote_types", "result_type",
        "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
    }
)
#: Methods that only a tensor has and that return a tensor: a call of one is a tensor even when
#: its receiver is not known to be one (``(coords == -1).all(dim=-1)``).
TENSOR_ONLY_METHODS = frozenset(
    {"masked_fill", "masked_fill_", "nonzero", "unsqueeze", "permute", "contiguous", "float", "long", "bool",
     "half", "double", "detach", "type_as", "new_zeros", "new_ones", "new_full", "new_empty", "expand_as",
     "view_as", "index_select", "gather", "sigmoid", "softmax", "log_softmax", "clamp", "clamp_min", "clamp_max"}
)
#: torch.* namespaces whose functions return tensors; any other submodule (torch.cuda,
#: torch.jit, torch.distributed, torch.backends, ...) answers questions about the runtime.
TENSOR_NAMESPACES = frozenset(
    {"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.nn.init", "torch.sparse"}
)
#: Name prefixes of torch functions that report state rather than compute tensors.
STATE_PREFIXES = ("is_", "are_", "get_", "set_", "use_", "has_")
#: torch.* functions that return Python objects, not tensors.
NON_TENSOR_FUNCTIONS = frozenset({"load", "save", "typename", "from_numpy_dtype", "can_cast", "vmap"})


def returns_tensor(qualified: str) -> bool:
    """Whether ``torch.<...>`` names a tensor-returning function (conservatively)."""
    namespace, _, last = qualified.rpartition(".")
    if namespace not in TENSOR_NAMESPACES or last in NON_TENSOR_FUNCTIONS:
        return False
    # private helpers (torch.nn.init._calculate_fan_in_and_fan_out) return anything
    return not last.startswith(STATE_PREFIXES) and not last.startswith("_")


# -- masks (zlint.facts.size_facts) ---------------------------------------------------------------

#: Functions (torch.<name>) and tensor methods whose result is a boolean tensor.
MASK_FUNCTIONS = frozenset(
    {
        "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "isin", "isclose",
        "logical_and", "logical_or", "logical_not", "logical_xor",
        "eq", "ne", "gt", "lt", "ge", "le", "greater", "greater_equal", "less", "less_equal",
        "not_equal", "signbit",
    }
)
MASK_METHODS = MASK_FUNCTIONS | {"bool"}
#: Tensor methods that keep a mask a mask.
MASK_PRESERVING_METHODS = frozenset(
    {
        "flatten", "view", "reshape", "unsqueeze", "squeeze", "expand", "expand_as", "transpose",
        "permute", "contiguous", "clone", "detach", "cuda", "cpu", "repeat", "index_select",
        "logical_not", "logical_and", "logical_or", "narrow", "select", "masked_fill", "flip",
    }
)

#: Tensor methods whose result has the receiver's dims, size for size (elementwise functions,
#: dtype and device moves, copies): a size read off the result is the receiver's size
DIM_KEEPING_METHODS = frozenset(
    {
        "contiguous", "clone", "detach", "cpu", "cuda", "to", "float", "half", "double", "bfloat16",
        "int", "long", "bool", "type_as", "masked_fill", "clamp", "clamp_min", "clamp_max", "relu",
        "sigmoid", "tanh", "exp", "log", "abs", "neg", "sqrt", "rsqrt", "pow", "requires_grad_",
        "masked_fill_", "clamp_", "mul_", "add_", "sub_", "div_", "sin", "cos", "softmax", "log_softmax",
    }
)

# -- shapes (zlint.facts.written_shapes, zlint.facts.parameters, zlint.candidates.callers) --------

#: tensor methods whose result has the receiver's shape: its static dims stay static
SHAPE_KEEPING_METHODS = frozenset(
    {"float", "half", "double", "bfloat16", "long", "int", "bool", "to", "type", "type_as", "clone",
     "contiguous", "detach", "cpu", "cuda", "sigmoid", "tanh", "relu", "exp", "abs", "neg", "sqrt", "rsqrt",
     "softmax", "log_softmax", "clamp", "clamp_min", "clamp_max", "masked_fill", "pow", "requires_grad_"}
)
#: tensor methods whose result's sizes are the receiver's, rearranged: a static shape stays static
REARRANGING_METHODS = frozenset(
    {"squeeze", "unsqueeze", "transpose", "permute", "t", "flatten", "movedim", "swapaxes", "swapdims"}
)

# -- Python values passed by callers (zlint.facts.call_sites) -----------------------------------

#: how many calls up a chain of parameters passed on (``f(xs)`` in ``g(xs)``) the call-site
#: facts follow (and the candidate stage keeps callers for)
CALL_SITE_DEPTH = 3
#: attributes and methods whose value is a Python number, tuple or ``torch.Size``
SIZE_ATTRIBUTES = frozenset({"shape", "ndim"})
SIZE_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "stride"})
#: builtins that return Python values (not ``abs``/``round``/``max``: of a tensor they give one)
PYTHON_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "tuple", "list", "range"})

# -- calls some rules look for, on both trees ----------------------------------------------------

#: the builtins that iterate their arguments (ZL202)
ITERATING_BUILTINS = frozenset({"enumerate", "zip", "list", "tuple", "map", "reversed", "sorted", "iter", "set"})
#: calls whose argument is the recommended, symbolic way to state a size fact: the branch rules
#: skip the conditions passed to them
SYMBOLIC_CHECKS = ("torch._check", "torch._assert", "torch.cond", "torch.sym_", "torch._dynamo")
#: the calls that mark a dim dynamic (zlint.facts.dynamic_dims)
MARK_FUNCTIONS = frozenset({"mark_dynamic", "maybe_mark_dynamic", "mark_unbacked"})
