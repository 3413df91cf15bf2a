"""The gates of the data-dependent rules (ZL3xx): a tensor's value read into Python, or an output
size that depends on the data."""

from __future__ import annotations

import ast

from zlint.candidates.gates.gate import Gate
from zlint.candidates.summary import FunctionSummary, spells
from zlint.candidates.walk import callee_name
from zlint.facts.vocabulary import TENSOR_WORDS

#: ZL301: the builtins that read a tensor's value into Python
VALUE_CONVERSIONS = frozenset({"int", "float", "bool"})
#: ZL301: torch factories whose leading arguments are sizes: a tensor there is read as a Python int
SIZED_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "arange", "rand", "randn", "randint", "eye"})
#: ZL304: the calls whose output size is the number of true elements
NONZERO_FUNCTIONS = frozenset({"nonzero", "argwhere", "where"})
#: ZL306: the calls whose output size is the number of distinct values or the largest one
UNIQUE_FUNCTIONS = frozenset({"unique", "unique_consecutive", "bincount"})
#: ZL307
REPEAT_INTERLEAVE = frozenset({"repeat_interleave"})
#: ZL308: the checks whose condition is a tensor (``torch._check`` takes a Python or symbolic bool)
TENSOR_CHECKS = frozenset({"_check_tensor_all", "_check_tensor_all_with"})
#: ZL309: the ``numpy.random`` functions torch's numpy layer traces (``torch._numpy.random``), each
#: with the position of its ``size`` argument: drawn without one, they return a Python number,
#: which dynamo reads back out of the graph. ``None``: sizes as ``*args`` (``rand(2, 3)``), a
#: number with none; ``-1``: returns nothing (``seed``, ``shuffle`` in place). Any other
#: ``numpy.random`` function is one dynamo cannot trace. Checked against torch in the tests.
TRACED_NUMPY_RANDOM: dict[str, int | None] = {
    "seed": -1, "shuffle": -1, "random_sample": 0, "sample": 0, "random": 0, "rand": None, "randn": None,
    "uniform": 2, "normal": 2, "randint": 2, "choice": 1,
}


def _may_repeat_by_tensor(summary: FunctionSummary, call: ast.Call) -> bool:
    """ZL307: no ``output_size=``, and the repeats (read as a method's or as a function's) may be a tensor."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if "output_size" in keywords:
        return False
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    method = args[0] if args else keywords.get("repeats")
    if len(args) == 1 and len(call.args) + len(call.keywords) == 1:
        function = args[0]
    else:
        function = args[1] if len(args) > 1 else keywords.get("repeats")
    return summary.may_be_tensor(method) or summary.may_be_tensor(function)


def _draws_from_numpy(summary: FunctionSummary, settings: object = None) -> bool:
    """ZL309: a call that may name a ``numpy.random`` function (through the file's imports)."""
    return any(
        name.startswith("numpy.random.") for call in summary.calls() for name in summary.index.qualified(call.func)
    )


def _size_by_data(call: ast.Call) -> bool:
    """ZL304: ``torch.where(cond, a, b)`` is elementwise: only a call of one argument can report."""
    return callee_name(call) != "where" or len(call.args) + len(call.keywords) == 1


GATES = (
    Gate("ZL301", VALUE_CONVERSIONS | {"item"} | TENSOR_WORDS, lambda s, _: (
        "item" in s.words or s.tensor_slice_bound or s.tensor_argument(("range", *VALUE_CONVERSIONS, *SIZED_FACTORIES))
    )),
    Gate("ZL302", frozenset({"tolist"}), lambda s, _: s.tensor_receiver(("tolist",))),
    Gate("ZL303", frozenset({"if", "while", "assert"}), lambda s, _: s.tensor_test),
    Gate("ZL304", NONZERO_FUNCTIONS, lambda s, _: s.data_dependent_call(NONZERO_FUNCTIONS, _size_by_data)),
    Gate("ZL305", TENSOR_WORDS | {"masked_select"}, lambda s, _: s.mask_index or "masked_select" in s.words),
    Gate("ZL306", UNIQUE_FUNCTIONS, spells(UNIQUE_FUNCTIONS)),
    Gate("ZL307", REPEAT_INTERLEAVE, lambda s, _: s.data_dependent_call(
        REPEAT_INTERLEAVE, lambda call: _may_repeat_by_tensor(s, call)
    )),
    Gate("ZL309", frozenset({"random"}), _draws_from_numpy),
    # a wrapper of torch._check_tensor_all lives in another file: any tensor word may lead to it
    Gate("ZL308", TENSOR_CHECKS | TENSOR_WORDS, lambda s, _: (
        not TENSOR_CHECKS.isdisjoint(s.words) or s.tensor_handed_to_a_check
    )),
)
