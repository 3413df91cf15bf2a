"""Input plans from source alone (no torch): jaxtyping-style annotations, then usage.

A plan says, per parameter, whether it is a tensor (with one label per dim), a value to leave to
its default, or a plain int; and which dim labels the size sweep drives. The worker turns a plan
into tensors. Usage gives the rank: ``x.shape[2]`` needs rank >= 3, ``b, s, d = x.shape`` is rank 3.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zlint.core.ast_walk import dotted_path
from zlint.verify.annotations import declared, member_for, value_for
from zlint.verify.flow import FALSE, NONE, NOT_NONE, TRUE, header, names_read, reaching

#: size of every dim the sweep does not drive (not in the default sweep, so never duck-sized with it)
FIXED = 4
DEFAULT_RANK = 2
_DTYPES = {
    "Float": "float", "Float32": "float", "Float64": "float", "Shaped": "float", "Num": "float",
    "Real": "float", "Inexact": "float", "Int": "int", "Int64": "int", "Int32": "int", "Integer": "int",
    "Long": "int", "UInt8": "int", "Bool": "bool",
}
_TENSOR_METHODS = {
    "shape", "size", "dim", "ndim", "numel", "view", "reshape", "sum", "mean", "unsqueeze", "squeeze",
    "transpose", "permute", "new_zeros", "new_ones", "new_empty", "flatten", "matmul", "softmax",
    "to", "float", "contiguous", "expand", "narrow", "split", "chunk", "unbind", "masked_fill",
}


@dataclass
class Param:
    name: str
    #: "tensor", "default" (leave it out), "value" (a plain value that fits the annotation), "attr"
    #: (an attribute of the built module, ``value`` its source: ``self.conv.weight``)
    kind: str
    labels: list[str] = field(default_factory=list)  # one per dim; a digit string is a fixed size
    dtype: str = "float"
    keyword_only: bool = False
    value: Any = None  # for "value": an int, float, bool or list of ints
    swept: bool = False  # a "value" the sweep drives: the size itself (an int, or each int of a list)


@dataclass
class Plan:
    source: str  # "annotations" or "synthesized"
    params: list[Param] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)  # labels driven by the sweep
    problem: str = ""  # non-empty: no inputs can be made, and why
    #: per tensor parameter, the ``self.<name>(param)`` submodules it is passed to: the built
    #: module's layers can fix its rank and the widths they take
    submodules: dict[str, list[str]] = field(default_factory=dict)
    #: tensor parameters whose rank nothing in the source fixed: the layers they feed may
    rank_open: set[str] = field(default_factory=set)
    #: tensor parameters whose rank is only the least their indexing needs: more may fit
    rank_guessed: set[str] = field(default_factory=set)
    #: inputs tried before these, each with how the function failed eagerly on them
    tried: list[str] = field(default_factory=list)
    fits: bool = True  # False: the function failed eagerly on every variant tried
    #: local names bound to a size of a parameter (``n = x.size(0)``)
    size_names: list[str] = field(default_factory=list)
    #: tensor parameters whose dims are read only from the end (``H, W = x.shape[-2:]``): more
    #: dims, when tried, go in front
    grow_front: set[str] = field(default_factory=set)
    #: swept dims that take sizes in a unit (``16``: a 16x16 patch conv needs multiples of 16)
    units: dict[str, int] = field(default_factory=dict)
    #: swept dims the flagged lines count in a unit the code divides by (``H // self.patch_size``):
    #: label -> the divisor's source, for the worker to read from the built module
    unit_sources: dict[str, str] = field(default_factory=dict)
    #: tensor parameters whose rank only a submodule's name suggested (``self.pos_conv_embed(x)``):
    #: the built layer's type decides
    named_ranks: set[str] = field(default_factory=set)

    def known_values(self) -> dict[str, int]:
        """The ints the plan passes that the sweep does not drive, by how code reads them:
        ``{"length": 4, "ss[0]": 4, "ss[1]": 4}``."""
        out: dict[str, int] = {}
        for p in self.params:
            if p.kind != "value" or p.swept:
                continue
            if type(p.value) is int:
                out[p.name] = p.value
            elif isinstance(p.value, (list, tuple)):
                out.update({f"{p.name}[{i}]": v for i, v in enumerate(p.value) if type(v) is int})
        return out

    def describe(self) -> str:
        parts = []
        for p in self.params:
            if p.kind == "tensor":
                dims = ",".join(
                    (f"{self.units[lab]}n" if lab in self.units else "n") if lab in self.swept
                    else (lab if lab.isdigit() else str(FIXED)) for lab in p.labels
                )
                parts.append(f"{p.name}[{dims}]")
            elif p.kind == "value":
                parts.append(f"{p.name}={swept_text(p.value) if p.swept else repr(p.value)}")
            elif p.kind == "attr":
                parts.append(f"{p.name}={p.value}")
        return " ".join(parts)


def swept_value(value: Any, n: int) -> Any:
    """A swept ``value`` parameter at size ``n``: the int itself, or each int of a list."""
    if isinstance(value, (list, tuple)):
        return type(value)(n for _ in value)
    return n


def swept_text(value: Any) -> str:
    """How a swept value reads: ``n``, ``[n, n]``."""
    if isinstance(value, (list, tuple)):
        inner = ", ".join("n" for _ in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
    return "n"


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def named by a dotted qualified name (classes and functions), or None."""
    body: list[ast.stmt] = tree.body
    node = None
    for part in qualname.split("."):
        node = next(
            (
                n for n in body
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        body = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _jaxtyping(annotation: ast.expr | None) -> tuple[str, list[str]] | None:
    """``Float[Tensor, "batch seq dim"]`` -> ("float", ["batch", "seq", "dim"])."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(annotation, ast.Subscript):
        return None
    dtype = _DTYPES.get((dotted_path(annotation.value) or "").rsplit(".", 1)[-1])
    index = annotation.slice
    if dtype is None or not isinstance(index, ast.Tuple) or len(index.elts) != 2:
        return None
    spec = index.elts[1]
    if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
        return None
    labels = []
    for token in spec.value.split():
        token = token.lstrip("*#").split("=")[0]
        labels.append("..." if token in ("...", "") else token)
    return dtype, labels


def _int_index(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_index(node.operand)
        return -inner if inner is not None else None
    return None


#: ops whose input has a fixed rank (the batch dim first): ``F.conv2d(x, w)``, ``self.pool(x)``
_RANK_OF_OP = {
    **{f"{op}1d": 3 for op in ("conv", "conv_transpose", "max_pool", "avg_pool", "adaptive_avg_pool",
                               "adaptive_max_pool", "batch_norm", "instance_norm")},
    **{f"{op}2d": 4 for op in ("conv", "conv_transpose", "max_pool", "avg_pool", "adaptive_avg_pool",
                               "adaptive_max_pool", "batch_norm", "instance_norm", "pixel_shuffle")},
    **{f"{op}3d": 5 for op in ("conv", "conv_transpose", "max_pool", "avg_pool", "adaptive_avg_pool",
                               "adaptive_max_pool", "batch_norm", "instance_norm")},
}
#: submodules named ``*embed*`` that embed floats, not token ids (``self.pos_conv_embed``, ``self.patch_embed``)
_FLOAT_EMBEDS = ("pos", "conv", "patch", "time", "proj", "feat")
#: ops (and submodule names) that take integer indices
_INDEX_OPS = ("embedding", "embedding_bag", "one_hot")


def _op_need(callee: str) -> tuple[int | None, str | None]:
    """The rank and dtype an op (or a submodule named like one: ``self.conv1``, ``self.embed``)
    needs of its first argument."""
    last = callee.rsplit(".", 1)[-1].lower()
    if last in _RANK_OF_OP:
        return _RANK_OF_OP[last], None
    if callee.startswith("self.") and callee.count(".") == 1:
        if "embed" in last and not any(w in last for w in _FLOAT_EMBEDS):
            return None, "int"
        for word, rank in (("conv", 4), ("pool", 4)):
            if word in last:
                return ({"1d": 3, "3d": 5}.get(next((k for k in ("1d", "3d") if k in last), ""), rank)), None
    if last in _INDEX_OPS:
        return None, "int"
    return None, None


#: ops after which a tensor's dims are not its input's, in order
_REORDERING = frozenset({
    "permute", "transpose", "reshape", "view", "flatten", "unflatten", "unsqueeze", "squeeze", "movedim",
    "swapaxes", "swapdims", "t", "einsum", "rearrange", "unfold", "split", "chunk", "unbind",
})


def _reorders_dims(value: ast.expr | None) -> bool:
    """Whether an assigned value reorders or reshapes the dims of what it starts from: any call in
    it to a reshaping op (``x.permute(0, 2, 1)``, ``torch.flatten(x, 1)``), or a value that is not
    a call at all (a subscript, another name)."""
    if value is None:
        return False
    if not isinstance(value, ast.Call):
        return not isinstance(value, ast.BinOp)
    calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
    return any((dotted_path(c.func) or getattr(c.func, "attr", "")).rsplit(".", 1)[-1] in _REORDERING for c in calls)


#: ops whose output count depends on a dim, and where that dim is among the arguments after the
#: tensor (``x.split(k, dim)``: position 1; ``x.unbind(dim)``: position 0)
_COUNT_OPS = {"split": 1, "unbind": 0, "chunk": 1, "tensor_split": 1}
#: functions whose first argument is a boolean mask
_MASK_FIRST = frozenset({"where", "masked_select"})
#: calls that return a number when given sizes
_NUMBER_CALLS = frozenset({
    "int", "float", "min", "max", "abs", "round", "len", "math.ceil", "math.floor", "math.sqrt", "math.prod",
    "math.isqrt", "sum",
})


class _Usage(ast.NodeVisitor):
    """Per parameter: the rank its uses need, and which (param, dim) each size name stands for."""

    def __init__(self, params: set[str], constants: dict[str, int] | None = None) -> None:
        self.params = params
        #: names with a known int value (a parameter left at ``axis: int = -1``, a module constant)
        self.constants = constants or {}
        self.min_rank: dict[str, int] = {}
        self.exact_rank: dict[str, int] = {}  # from the function's own unpacking or asserts
        self.op_rank: dict[str, int] = {}  # from the ops and layers a parameter is passed to
        #: per parameter, the line spans after a statement that rebinds it (``x = x.permute(...)``),
        #: each with that statement's line: a read there is not of the argument
        self.rebinds: dict[str, list[tuple[int, int, int]]] = {}
        self.used_as_tensor: set[str] = set()
        self.size_names: dict[str, set[tuple[str, int]]] = {}
        self.dtype: dict[str, str] = {}  # parameters an op needs as integer indices
        self.submodules: dict[str, list[str]] = {}  # param -> names of self.<name>(param) calls
        self.named_ranks: set[str] = set()  # params whose op rank comes from a submodule's name
        #: size names that count a dim in a unit: name -> the divisor's source (``self.patch_size``)
        self.units: dict[str, str] = {}
        #: per name, (line, dims) of each binding: dims (the sizes each dim reads) when it was
        #: bound to a ``view``/``reshape``, else None
        self.shapes: dict[str, list[tuple[int, list[set[tuple[str, int]]] | None]]] = {}
        #: parameters whose dims are read counting from the end (``x.shape[-2]``) / the start
        self.from_end: set[str] = set()
        self.from_start: set[str] = set()
        #: (param, dim) pairs the function asserts equal (``_assert(h == w)``)
        self.equal_dims: list[tuple[tuple[str, int], tuple[str, int]]] = []

    def _need(self, param: str, index: int) -> None:
        need = index + 1 if index >= 0 else -index
        self.min_rank[param] = max(self.min_rank.get(param, 0), need)
        (self.from_end if index < 0 else self.from_start).add(param)

    def size_refs(self, node: ast.AST) -> set[tuple[str, int]]:
        """(param, dim) pairs a sub-expression reads, through size names too."""
        refs: set[tuple[str, int]] = set()
        for sub in ast.walk(node):
            ref = self._size_of(sub)
            if ref:
                refs.add(ref)
            elif self._rebound_read(sub):
                refs |= self._rebound_read(sub)
            elif isinstance(sub, ast.Name) and sub.id in self.size_names:
                refs |= self.size_names[sub.id]
            elif isinstance(sub, ast.For) and isinstance(sub.iter, ast.Name) and sub.iter.id in self.params:
                refs.add((sub.iter.id, 0))
            elif isinstance(sub, ast.Call):
                refs |= self._count_dim(sub)
        return refs

    def _count_dim(self, call: ast.Call) -> set[tuple[str, int]]:
        """The dim an op's output count reads: ``torch.split(x, 1, dim=1)``, ``x.unbind(0)``,
        ``x.chunk(k, 2)``; through a ``view``/``reshape`` the name was bound to
        (``x = x.view(b, s, s, t, t)``: dim 1 of x is ``s``)."""
        callee = dotted_path(call.func) or ""
        op = callee.rsplit(".", 1)[-1]
        if op not in _COUNT_OPS:
            return set()
        method = isinstance(call.func, ast.Attribute) and not callee.startswith(("torch.", "F."))
        tensor = call.func.value if method else (call.args[0] if call.args else None)
        rest = call.args if method else call.args[1:]
        position = _COUNT_OPS[op]
        dim_node = next((k.value for k in call.keywords if k.arg == "dim"), None)
        if dim_node is None and len(rest) > position:
            dim_node = rest[position]
        dim = 0 if dim_node is None else self._index(dim_node)
        if not isinstance(tensor, ast.Name) or dim is None:
            return set()
        shape = self._shape_at(tensor.id, call.lineno)
        if shape is not None:
            return shape[dim] if -len(shape) <= dim < len(shape) else set()
        fresh = self.rebound_at(tensor.id, call.lineno) is None
        return {(tensor.id, dim)} if tensor.id in self.params and fresh else set()

    def _shape_at(self, name: str, line: int) -> list[set[tuple[str, int]]] | None:
        """The dims of ``name`` at ``line`` when its last binding before it was a ``view``/``reshape``."""
        bound = [(at, dims) for at, dims in self.shapes.get(name, []) if at < line]
        return max(bound, key=lambda b: b[0])[1] if bound else None

    def _record_unit(self, name: str, value: ast.expr) -> None:
        """``height = x.shape[-2] // self.patch_size``: the code counts that dim in patches."""
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.FloorDiv) and len(self.size_refs(value.left)) == 1:
            if isinstance(value.right, (ast.Attribute, ast.Name, ast.Constant)):
                self.units[name] = ast.unparse(value.right)

    def _record_shape(self, name: str, node: ast.Assign) -> None:
        value = node.value
        dims = None
        reshaped = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
        if reshaped and value.func.attr in ("view", "reshape"):
            args = value.args
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                args = args[0].elts
            dims = [self.size_refs(a) if not isinstance(a, ast.Starred) else set() for a in args]
        entries = self.shapes.setdefault(name, [])
        if all(at != node.lineno for at, _ in entries):
            entries.append((node.lineno, dims))

    def header_refs(self, node: ast.AST) -> set[tuple[str, int]]:
        """(param, dim) pairs a flagged statement reads on its own line: an ``if``'s or a
        ``while``'s test, a ``for``'s iterable, not the body they hold."""
        if not isinstance(node, ast.stmt):
            return self.size_refs(node)
        refs = set().union(*(self.size_refs(part) for part in header(node))) if header(node) else set()
        iterated = isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Name)
        if iterated and node.iter.id in self.params:
            refs.add((node.iter.id, 0))
        return refs

    def is_number(self, node: ast.expr) -> bool:
        """Whether an expression is a number made of sizes (``H // self.patch``, ``min(k, H)``),
        not a tensor that only takes sizes as arguments (``x.reshape(b * t, c)``)."""
        if self._size_of(node) is not None or isinstance(node, (ast.Constant, ast.Attribute)):
            return True
        if isinstance(node, ast.Name):
            return node.id not in self.params or node.id in self.size_names
        if isinstance(node, ast.BinOp):
            return self.is_number(node.left) and self.is_number(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.is_number(node.operand)
        if isinstance(node, ast.IfExp):
            return self.is_number(node.body) and self.is_number(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):  # a shape: ``(B, 1, H, W)``
            return all(self.is_number(e) for e in node.elts)
        if isinstance(node, ast.Subscript):  # ``output_shape[0]``, ``stride[0]``: a shape or a tuple of ints
            if isinstance(node.value, ast.Name):
                return node.value.id in self.size_names or node.value.id not in self.params
            return self.is_number(node.value)
        if isinstance(node, ast.Call):
            return (dotted_path(node.func) or "") in _NUMBER_CALLS
        return False

    def find_rebinds(self, func: ast.AST) -> None:
        """Where each parameter is rebound to a tensor whose dims are not its own in order
        (``x = x.permute(...)``, ``x = x.reshape(...)``): the statements after it in the same block
        see the new dims (a branch's assignment, only the rest of that branch). A layer or an
        elementwise op (``x = self.conv(x)``) keeps the dims where they were."""

        def visit(body: list[ast.stmt]) -> None:
            for i, stmt in enumerate(body):
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _reorders_dims(stmt.value):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id in self.params:
                            for later in body[i + 1:]:
                                span = (later.lineno, later.end_lineno or later.lineno, stmt.lineno)
                                self.rebinds.setdefault(target.id, []).append(span)
                for name in ("body", "orelse", "finalbody"):
                    inner = getattr(stmt, name, None)
                    if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                        visit(inner)
                for handler in getattr(stmt, "handlers", []):
                    visit(handler.body)

        visit(getattr(func, "body", []))

    def rebound_at(self, name: str, line: int) -> int | None:
        """The line of the last statement before ``line`` that rebinds the parameter ``name``."""
        found = [at for start, end, at in self.rebinds.get(name, ()) if start <= line <= end]
        return max(found) if found else None

    def _index(self, node: ast.expr) -> int | None:
        found = _int_index(node)
        if found is None and isinstance(node, ast.Name):
            found = self.constants.get(node.id)
        return found

    def _size_of(self, node: ast.AST) -> tuple[str, int] | None:
        """``x.size(i)`` / ``x.shape[i]`` / ``len(x)`` / ``x.numel()`` of a parameter not rebound
        by then: (param, dim)."""
        found = self._read_of(node)
        if found is not None and self.rebound_at(found[0], getattr(node, "lineno", 0)) is not None:
            return None  # ``x = x.permute(...)`` before: another tensor's size
        return found

    def _rebound_read(self, node: ast.AST) -> set[tuple[str, int]]:
        """A size read of a parameter rebound to a ``view``/``reshape`` of sizes: what that dim is."""
        found = self._read_of(node)
        if found is None or self.rebound_at(found[0], getattr(node, "lineno", 0)) is None:
            return set()
        shape = self._shape_at(found[0], node.lineno)
        if shape is None or not -len(shape) <= found[1] < len(shape):
            return set()
        return shape[found[1]]

    def _read_of(self, node: ast.AST) -> tuple[str, int] | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in self.params:
                if node.func.attr == "size" and len(node.args) == 1 and self._index(node.args[0]) is not None:
                    return owner.id, self._index(node.args[0])
                if node.func.attr in ("numel", "nelement") and not node.args:
                    return owner.id, 0
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            owner = node.value.value
            if node.value.attr == "shape" and isinstance(owner, ast.Name) and owner.id in self.params:
                index = self._index(node.slice)
                if index is not None:
                    return owner.id, index
        if isinstance(node, ast.Call) and dotted_path(node.func) == "len" and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, ast.Name) and arg.id in self.params:
                return arg.id, 0
        return None

    @staticmethod
    def _shape_owner(node: ast.expr) -> tuple[str, int] | None:
        """``x.shape`` / ``x.size()`` -> (x, 0); ``x.shape[:k]`` / ``x.shape[1:]`` -> (x, start)."""
        if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name):
            return node.value.id, 0
        if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and not node.args and isinstance(node.func.value, ast.Name)
        ):
            return node.func.value.id, 0
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            inner = _Usage._shape_owner(node.value)
            start = _int_index(node.slice.lower) if node.slice.lower is not None else 0
            if inner and start is not None and inner[1] == 0 and (start >= 0 or node.slice.upper is None):
                return inner[0], start
        return None

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._record_shape(target.id, node)
            pairs = isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List))
            if pairs and len(target.elts) == len(node.value.elts):
                # ``kh, kw = min(k, H), min(k, W)``: each name from its own value
                for elt, value in zip(target.elts, node.value.elts):
                    if isinstance(elt, ast.Name) and elt.id not in self.params and self.is_number(value):
                        refs = self.size_refs(value)
                        if refs:
                            self.size_names[elt.id] = refs
                            self._record_unit(elt.id, value)
                continue
            if isinstance(target, (ast.Tuple, ast.List)):
                owner = self._shape_owner(node.value)
                if owner and owner[0] in self.params:
                    param, start = owner
                    starred = any(isinstance(e, ast.Starred) for e in target.elts)
                    if start < 0:  # ``h, w, c = x.shape[-3:]``: the last dims; rank >= their count
                        self.min_rank[param] = max(self.min_rank.get(param, 0), -start)
                        self.from_end.add(param)
                        for i, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Starred):
                                break
                            if isinstance(elt, ast.Name):
                                self.size_names[elt.id] = {(param, start + i)}
                        continue
                    count = start + len(target.elts) - starred
                    if start == 0 and not starred and not isinstance(node.value, ast.Subscript):
                        self.exact_rank[param] = count
                    self.min_rank[param] = max(self.min_rank.get(param, 0), count)
                    for i, elt in enumerate(target.elts):
                        if isinstance(elt, ast.Starred):
                            break
                        if isinstance(elt, ast.Name):
                            self.size_names[elt.id] = {(param, start + i)}
            elif isinstance(target, ast.Name) and target.id not in self.params and self.is_number(node.value):
                refs = self.size_refs(node.value)
                if refs:
                    self.size_names[target.id] = refs
                    self._record_unit(target.id, node.value)
        self.generic_visit(node)

    def _asserted_rank(self, test: ast.expr) -> None:
        """``assert x.dim() == 3`` / ``torch._assert(x.ndim == 3, ...)``: x has exactly that rank;
        ``assert h == w`` with both sizes of parameters: those dims are equal."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return
        a, b = self.size_refs(test.left), self.size_refs(test.comparators[0])
        if len(a) == 1 and len(b) == 1 and a != b and self.is_number(test.left) and self.is_number(test.comparators[0]):
            if isinstance(test.left, ast.Name) or self._size_of(test.left):
                pair = (next(iter(a)), next(iter(b)))
                if pair not in self.equal_dims:
                    self.equal_dims.append(pair)
        left, rank = test.left, _int_index(test.comparators[0])
        if isinstance(left, ast.Call) and not left.args and not left.keywords:
            left = left.func if isinstance(left.func, ast.Attribute) and left.func.attr == "dim" else None
        elif not (isinstance(left, ast.Attribute) and left.attr == "ndim"):
            left = None
        if left is not None and isinstance(left.value, ast.Name) and left.value.id in self.params and rank:
            self.exact_rank.setdefault(left.value.id, rank)

    def visit_Assert(self, node: ast.Assert) -> None:
        self._asserted_rank(node.test)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.params and node.attr in _TENSOR_METHODS:
            self.used_as_tensor.add(node.value.id)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        ref = self._size_of(node)
        if ref:
            self._need(*ref)
        if isinstance(node.value, ast.Name) and node.value.id in self.params:
            self.used_as_tensor.add(node.value.id)
            self.min_rank[node.value.id] = max(self.min_rank.get(node.value.id, 0), 1)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        # ``~mask``: bitwise not is for integer and boolean tensors; a mask is boolean
        if isinstance(node.op, ast.Invert) and isinstance(node.operand, ast.Name) and node.operand.id in self.params:
            self.dtype.setdefault(node.operand.id, "bool")
            self.used_as_tensor.add(node.operand.id)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        ref = self._size_of(node)
        if ref:
            self._need(*ref)
        # ``x.masked_fill(mask, v)``, ``torch.where(mask, a, b)``: the mask is boolean
        callee = dotted_path(node.func) or ""
        mask = node.args[0] if callee.rsplit(".", 1)[-1] in _MASK_FIRST and node.args else None
        if callee.rsplit(".", 1)[-1] in ("masked_fill", "masked_fill_", "masked_scatter") and node.args:
            mask = node.args[0]
        if isinstance(mask, ast.Name) and mask.id in self.params:
            self.dtype.setdefault(mask.id, "bool")
            self.used_as_tensor.add(mask.id)
        first = node.args[0] if node.args else None
        if dotted_path(node.func) in ("torch._assert", "_assert") and first is not None:
            self._asserted_rank(first)
        fresh = isinstance(first, ast.Name) and self.rebound_at(first.id, node.lineno) is None
        if isinstance(first, ast.Name) and first.id in self.params and fresh:
            callee = dotted_path(node.func) or ""
            if callee.startswith("self.") and callee.count(".") == 1:
                self.submodules.setdefault(first.id, []).append(callee[5:])
            rank, dtype = _op_need(callee)
            if rank is not None:
                if first.id not in self.op_rank and callee.startswith("self."):
                    self.named_ranks.add(first.id)  # only the submodule's name says: the built layer decides
                self.op_rank.setdefault(first.id, rank)
                self.used_as_tensor.add(first.id)
            if dtype is not None:
                self.dtype[first.id] = dtype
                self.used_as_tensor.add(first.id)
        self.generic_visit(node)


def _literal_default(node: ast.expr | None) -> tuple[bool, Any]:
    if node is None:
        return False, None
    try:
        return True, ast.literal_eval(node)
    except ValueError:
        return False, None


def plan_inputs(
    func: ast.FunctionDef | ast.AsyncFunctionDef, focus_lines: list[int], is_method: bool,
    constants: dict[str, int] | None = None, choices: dict[str, str] | None = None,
    through: Iterable[tuple[str, int]] = (), attributes: dict[str, str] | None = None,
) -> Plan:
    """A plan for calling ``func``: sizes swept where the ``focus_lines`` read them. ``constants``
    are names with known int values (:func:`zlint.verify.thresholds.known_ints`): a dim read as
    ``x.shape[axis]`` with ``axis: int = -1`` is dim -1. ``choices`` are what the branches around
    the flagged lines need of each parameter (:func:`zlint.verify.flow.choices`). A parameter
    with a default keeps it unless its value reaches the flagged lines or a branch needs it.
    ``through`` are ``(param, dim)`` whose sizes reach a helper's flagged lines
    (:func:`through_sizes`): swept too. ``attributes`` are parameters the module's own calls pass
    as its attributes (:func:`caller_attributes`): taken from the built module."""
    choices = choices or {}
    attributes = attributes or {}
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    if is_method and positional:
        positional = positional[1:]
    defaults_from = len(positional) - len(args.defaults)
    default_of = dict(zip((a.arg for a in positional[defaults_from:]), args.defaults))
    default_of.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    defaults = set(default_of)
    names = {a.arg for a in positional} | {a.arg for a in args.kwonlyargs}
    usage = _Usage(names, {k: v for k, v in (constants or {}).items() if k not in names or k in defaults})
    usage.find_rebinds(func)
    usage.visit(func)
    # size names bound on one line and read on another need a second pass over assignments
    usage.visit(func)
    through = list(through)
    for param, dim in through:  # a helper reads these dims: the tensor has them
        if param in names:
            usage._need(param, dim)
            usage.used_as_tensor.add(param)
    span = range(func.lineno, (func.end_lineno or func.lineno) + 1)
    # with every flagged line in the function, its parameters' flow says which reach them; a
    # helper's lines are reached through calls this function makes: any parameter may
    own_focus = bool(focus_lines) and all(n in span for n in focus_lines)
    reach = reaching(func, focus_lines, names) if own_focus else names

    jax = {a.arg: _jaxtyping(a.annotation) for a in [*positional, *args.kwonlyargs]}
    source = "annotations" if any(jax.values()) else "synthesized"
    plan = Plan(source, size_names=sorted(usage.size_names))
    entries = [(a, i >= defaults_from) for i, a in enumerate(positional)]
    entries += [(a, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    for arg, has_default in entries:
        name = arg.arg
        keyword_only = arg in args.kwonlyargs
        if name in attributes:  # what the module's own calls pass (``self.conv.weight``)
            plan.params.append(Param(name, "attr", keyword_only=keyword_only, value=attributes[name]))
            continue
        need = choices.get(name, "")
        literal, default = _literal_default(default_of.get(name))
        if jax.get(name):
            dtype, labels = jax[name]
            plan.params.append(Param(name, "tensor", labels, dtype, keyword_only))
            continue
        kind = declared(arg.annotation)
        if "isinstance:" in need:  # ``if isinstance(depths, int):``: the member that enters the branch
            kind = member_for(arg.annotation, need) or kind
        bool_flag = (kind is not None and kind.kind == "bool") or (literal and isinstance(default, bool))
        if need in (TRUE, FALSE) and bool_flag:
            plan.params.append(Param(name, "value", keyword_only=keyword_only, value=need == TRUE))
            continue
        if need == NONE and literal and default is None:
            plan.params.append(Param(name, "default", keyword_only=keyword_only))
            continue
        given = need in (TRUE, NOT_NONE) or "isinstance:" in need  # the branch needs a value here
        if kind is not None and kind.not_a_tensor:
            # the annotation says what callers pass: never a tensor here, whatever the uses say
            if has_default and not given:
                plan.params.append(Param(name, "default", keyword_only=keyword_only))
                continue
            known, value = value_for(name, kind, FIXED)
            if not known:
                plan.problem = (f"{func.name} needs a value for `{name}: {ast.unparse(arg.annotation)}`: "
                                "register an example")
                return plan
            plan.params.append(Param(name, "value", keyword_only=keyword_only, value=value))
            continue
        # a declared tensor is one whose value reaches the lines; an undeclared one, one used as a tensor
        used = name in reach if kind is not None and own_focus else name in usage.used_as_tensor
        if has_default and not given and (kind is None or name not in reach or not used):
            plan.params.append(Param(name, "default", keyword_only=keyword_only))
            continue
        # an unannotated parameter without a default is taken as a tensor: eager will tell
        # the function's own unpacking and asserts first, then the ops it feeds (unless its own
        # indexing needs more dims), then the fewest dims its indexing needs
        least = usage.min_rank.get(name, 0)
        rank = usage.exact_rank.get(name)
        if rank is None and usage.op_rank.get(name, 0) >= least:
            rank = usage.op_rank.get(name)
        if rank is None:
            rank = max(DEFAULT_RANK, least)
            plan.rank_guessed.add(name)
            if name in usage.submodules and least <= DEFAULT_RANK:
                plan.rank_open.add(name)
        if name in usage.submodules:
            plan.submodules[name] = usage.submodules[name]
        if name in usage.named_ranks:
            plan.named_ranks.add(name)
        if name in usage.from_end and name not in usage.from_start:
            plan.grow_front.add(name)
        dtype = usage.dtype.get(name) or (kind.dtype if kind is not None else "") or "float"
        plan.params.append(Param(name, "tensor", [f"{name}.{i}" for i in range(rank)], dtype, keyword_only))
    if args.vararg is not None and not plan.params:
        plan.problem = f"{func.name} takes *{args.vararg.arg}: register an example"
        return plan

    tensors = {p.name: p for p in plan.params if p.kind == "tensor"}
    for (a, i), (b, j) in usage.equal_dims:  # asserted equal: one label, one size
        pa, pb = tensors.get(a), tensors.get(b)
        if pa and pb and -len(pa.labels) <= i < len(pa.labels) and -len(pb.labels) <= j < len(pb.labels):
            pb.labels[j] = pa.labels[i]
    swept: list[str] = []
    read = [(param, dim) for stmt in ast.walk(func)
            if getattr(stmt, "lineno", None) in focus_lines and isinstance(stmt, (ast.stmt, ast.expr))
            for param, dim in usage.header_refs(stmt)]
    for param, dim in [*read, *through]:
        p = tensors.get(param)
        if p and -len(p.labels) <= dim < len(p.labels):
            label = p.labels[dim]
            if label not in swept and not label.isdigit():
                swept.append(label)
    for name in names_read(func, focus_lines) & set(usage.units):  # ``self.height != height``
        for param, dim in usage.size_names[name]:
            p = tensors.get(param)
            if p and -len(p.labels) <= dim < len(p.labels):
                plan.unit_sources.setdefault(p.labels[dim], usage.units[name])
    if not swept and own_focus and not any(name in reach for name in tensors):
        # no tensor reaches the lines, but an int argument does (``torch.linspace(0, rate, depths)``): sweep it
        for param in plan.params:
            if param.name not in reach:
                continue
            literal, default = _literal_default(default_of.get(param.name))
            if param.kind == "default" and literal and type(default) is int:
                param.kind, param.value = "value", default
            if param.kind == "value" and (type(param.value) is int or _int_list(param.value)):
                param.swept = True
                swept.append(param.name)
    if not tensors and not swept:
        plan.problem = f"{func.name} takes no tensor argument to size: register an example"
        return plan
    if not swept:  # nothing on the flagged lines names a dim: drive the leading (batch) dim of every tensor
        for p in tensors.values():
            if p.labels and not p.labels[0].isdigit() and p.labels[0] not in swept:
                swept.append(p.labels[0])
                if source == "annotations":
                    break
    plan.swept = swept
    return plan


def _int_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(type(v) is int for v in value)


def size_names_of(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Local names ``func`` binds to sizes of its parameters (``H, W = x.shape[-2:]``)."""
    args = func.args
    usage = _Usage({a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]})
    usage.find_rebinds(func)
    usage.visit(func)
    usage.visit(func)
    return sorted(usage.size_names)


def rank_of_layer(type_names: list[str]) -> int | None:
    """The input rank a layer needs from its class name and, for a container, its first layer's
    (``["Sequential", "Conv2d"]`` -> 4): ``*1d`` 3, ``*2d`` 4, ``*3d`` 5; None when no name says."""
    for name in type_names:
        for suffix, rank in (("1d", 3), ("2d", 4), ("3d", 5)):
            if name.lower().endswith(suffix):
                return rank
    return None


def _holder(tree: ast.Module, line: int) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, bool]:
    """The innermost function holding ``line``, and whether it is a method (defined in a class
    and not a staticmethod)."""
    best, method = None, False

    def visit(body: list[ast.stmt], in_class: bool) -> None:
        nonlocal best, method
        for node in body:
            if not node.lineno <= line <= (node.end_lineno or node.lineno):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                static = any(dotted_path(d) == "staticmethod" for d in node.decorator_list)
                best, method = node, in_class and not static
                visit(node.body, False)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, True)

    visit(tree.body, False)
    return best, method


def _params_of(func: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    positional = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    return positional[1:] if method and positional else positional


def through_sizes(
    tree: ast.Module, entry: ast.FunctionDef | ast.AsyncFunctionDef, lines: Iterable[int], entry_is_method: bool,
) -> tuple[set[tuple[str, int]], dict[int, str]]:
    """For flagged lines of helpers that ``entry`` calls directly: the ``(param, dim)`` of
    ``entry`` whose sizes reach the sizes those lines read (passed as an argument, straight or
    through a plain alias such as ``x_ = x``); and, per line that reads sizes none of which could be
    traced so, why the entry's sweep says nothing about it."""
    entry_params = set(_params_of(entry, entry_is_method)) | {a.arg for a in entry.args.kwonlyargs}
    aliases: dict[str, str] = {}
    for node in ast.walk(entry):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.Name):
                aliases.setdefault(node.targets[0].id, node.value.id)

    def source(arg: ast.expr | None) -> str | None:
        seen = set()
        while isinstance(arg, ast.Name) and arg.id not in seen:
            if arg.id in entry_params:
                return arg.id
            seen.add(arg.id)
            arg = ast.Name(aliases[arg.id]) if arg.id in aliases else None
        return None

    mapped: set[tuple[str, int]] = set()
    unmapped: dict[int, str] = {}
    for line in sorted(set(lines)):
        holder, method = _holder(tree, line)
        if holder is None or holder is entry:
            continue
        params = _params_of(holder, method)
        usage = _Usage(set(params) | {a.arg for a in holder.args.kwonlyargs})
        usage.find_rebinds(holder)
        usage.visit(holder)
        usage.visit(holder)
        reads: set[tuple[str, int]] = set()
        for node in ast.walk(holder):
            if getattr(node, "lineno", None) == line and isinstance(node, (ast.stmt, ast.expr)):
                reads |= usage.header_refs(node)
        if not reads:
            continue
        found = set()
        for call in ast.walk(entry):
            callee = dotted_path(call.func) if isinstance(call, ast.Call) else None
            if callee not in (holder.name, f"self.{holder.name}", f"cls.{holder.name}"):
                continue
            bound = dict(zip(params, call.args))
            bound.update({k.arg: k.value for k in call.keywords if k.arg})
            for param, dim in reads:
                origin = source(bound.get(param))
                if origin is not None:
                    found.add((origin, dim))
        if found:
            mapped |= found
        else:
            unmapped[line] = (f"the sizes line {line} reads come from the arguments of {holder.name}, which the "
                              f"inputs of {entry.name} do not drive directly: silence there proves nothing")
    return mapped, unmapped


def caller_attributes(tree: ast.Module, qualname: str) -> dict[str, str]:
    """For a method, the arguments its own class passes it as attributes of the module
    (``self._upsample_2d(h, self.Conv2d_0.weight, kernel=self.fir_kernel)``): parameter -> the
    attribute's source, from the first call that passes each. Run on its own, the method gets
    those, not invented tensors (a conv weight's sizes are the module's)."""
    parts = qualname.split(".")
    if len(parts) < 2:
        return {}
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == parts[-2]), None)
    method = find_function(tree, qualname)
    if cls is None or method is None:
        return {}
    params = _params_of(method, True)
    out: dict[str, str] = {}
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Call) and dotted_path(node.func) == f"self.{parts[-1]}"):
            continue
        bound = dict(zip(params, node.args))
        bound.update({k.arg: k.value for k in node.keywords if k.arg})
        for name, value in bound.items():
            text = dotted_path(value) if isinstance(value, ast.Attribute) else None
            if text and text.startswith("self.") and name not in out:
                out[name] = text
    return out
