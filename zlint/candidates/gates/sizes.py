"""The gates of the size rules: ZL1xx (a branch on a size) and ZL2xx (a size made concrete)."""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING

from zlint.candidates.gates.gate import Gate
from zlint.candidates.summary import (
    FunctionSummary,
    size_branch,
    size_compared_with_zero_or_one,
    size_tested_for_truth,
    size_zero_test,
    spells,
)
from zlint.candidates.walk import call_arguments
from zlint.core.torch_versions import SYMBOLIC_SINCE, format_version, target_version, torch_data
from zlint.facts.vocabulary import ITERATING_BUILTINS, SIZE_WORDS, TENSOR_WORDS

if TYPE_CHECKING:
    from zlint.candidates.summary import Predicate

#: ZL204: the ops whose number of outputs a size can decide
OUTPUT_COUNT_OPS = frozenset({"unbind", "split", "chunk", "tensor_split"})
#: ZL206: methods that only describe the object
DESCRIBING_METHODS = frozenset({"__repr__", "__str__", "extra_repr", "__format__"})
#: ZL207: the calls that make a size a Python number
SIZE_CONVERSIONS = frozenset({"int", "float", "math.ceil", "math.floor", "math.sqrt", "math.trunc"})
#: ZL207: the modules whose functions take a Python number: a size handed to one is a concrete
#: int unless torch's SymNode implements the function (TorchData.symbolic_math)
NUMERIC_LIBRARIES = frozenset({"math", "numpy"})
#: ZL209: the tensor methods that query the memory layout
LAYOUT_METHODS = frozenset({"is_contiguous", "stride"})


def before_symbolic_release(test: Predicate) -> Predicate:
    """``test`` where the settings target a torch older than ``SYMBOLIC_SINCE``; no function is a
    candidate elsewhere (the rule reports nothing there: ZL207, ZL208)."""

    def candidate(summary: FunctionSummary, settings: object = None) -> bool:
        return target_version(settings) < SYMBOLIC_SINCE and test(summary, settings)

    return candidate


def sized_numeric_library_call(summary: FunctionSummary, settings: object = None) -> bool:
    """ZL207 on every release: a ``math``/``numpy`` function called with what may be a size (the
    rule keeps those dynamo evaluates on the concrete int; the gate takes them all)."""
    for call in summary.calls():
        if any(q.split(".", 1)[0] in NUMERIC_LIBRARIES for q in summary.index.qualified(call.func)) and any(
            summary.may_be_size(arg) for arg in call_arguments(call)
        ):
            return True
    return False


@functools.lru_cache(maxsize=8)
def _plain_number_ops(version: str) -> frozenset[str]:
    data = torch_data(version)
    return frozenset(spelling.rsplit(".", 1)[-1] for spelling in data.concrete_arguments or ()) - OUTPUT_COUNT_OPS


def sized_plain_number_argument(summary: FunctionSummary, settings: object = None) -> bool:
    """ZL210: a call of an op with an argument torch takes as a plain number
    (:attr:`~zlint.core.torch_versions.TorchData.concrete_arguments`, by its last name) that takes
    what may be a size."""
    return summary.sized_argument(_plain_number_ops(format_version(target_version(settings))))


def may_count_by_size(summary: FunctionSummary, settings: object = None) -> bool:
    """ZL204: an op of ``OUTPUT_COUNT_OPS`` whose pieces the code does not unpack, called through
    torch or as a method (``split`` only on what may be a tensor, or with ``dim=``)."""
    unpacked = {
        id(node.value) for node in summary.of(ast.Assign)
        if any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
    }
    for call in summary.calls(OUTPUT_COUNT_OPS):
        if id(call) in unpacked or not isinstance(call.func, ast.Attribute):
            continue
        if call.func.attr != "split" or any(k.arg == "dim" for k in call.keywords):
            return True
        if summary.may_be_tensor(call.func.value) or any(q.startswith("torch.") for q in summary.index.qualified(
            call.func
        )):
            return True
    return any(
        id(call) not in unpacked for call in summary.calls(OUTPUT_COUNT_OPS) if isinstance(call.func, ast.Name)
    )


def _quiet(node: ast.AST) -> bool:
    """ZL206: the ``ast`` nodes below which the rule reports nothing (the rule is quiet in blocks
    that end by raising and in lambdas too; the gate need not be: it only has to let every finding
    through)."""
    if isinstance(node, (ast.Raise, ast.Assert)):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name in DESCRIBING_METHODS
    return False


_SQUEEZE = frozenset({"squeeze"})

GATES = (
    Gate("ZL101", SIZE_WORDS, size_compared_with_zero_or_one),
    Gate("ZL102", SIZE_WORDS, size_tested_for_truth),
    Gate("ZL103", SIZE_WORDS, size_branch),
    Gate("ZL104", SIZE_WORDS, size_zero_test),
    Gate("ZL201", SIZE_WORDS, lambda s, _: s.sized_argument(("range",)) or s.sized_repeat),
    Gate("ZL202", ITERATING_BUILTINS | {"for"}, lambda s, _: s.tensor_iteration),
    Gate("ZL203", TENSOR_WORDS, lambda s, _: s.tensor_unpacked),
    Gate("ZL204", OUTPUT_COUNT_OPS, may_count_by_size),
    Gate("ZL205", SIZE_WORDS, lambda s, _: s.sized_key),
    Gate("ZL206", SIZE_WORDS, lambda s, _: s.sized_format_outside(_quiet)),
    Gate("ZL207", SIZE_WORDS, lambda s, settings: sized_numeric_library_call(s, settings) or before_symbolic_release(
        lambda s, _: s.sized_argument(c.rsplit(".", 1)[-1] for c in SIZE_CONVERSIONS)
    )(s, settings)),
    Gate("ZL208", _SQUEEZE, before_symbolic_release(spells(_SQUEEZE))),
    Gate("ZL209", LAYOUT_METHODS, lambda s, _: s.tested_call(LAYOUT_METHODS)),
    Gate("ZL210", SIZE_WORDS, sized_plain_number_argument),
)
