"""What a test says about compiling: which predicates dynamo answers, tests as small trees, and
their value while dynamo traces.

The project-wide scope (:mod:`zlint.scope.classify`) keeps each ``if`` that calls a
compile-state predicate as a JSON-able tree (:func:`test_tree`) when it summarizes a file, and
reads it (:func:`tree_value`, :func:`skipped_operands`) once every predicate of the run is known:
a predicate defined in another file of the run is read from what it returns.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator

CallValue = Callable[[str], "bool | None"]  # what calling a dotted name returns under dynamo

# Predicates whose value under dynamo is known: is_compiling() is True while tracing (also through
# a private wrapper of the same name, `_is_compiling()`); torch's TorchScript, jit-tracing and ONNX
# states are off under dynamo. Any other predicate (transformers' `is_tracing()` is True under
# dynamo, torchvision's `_is_tracing()` is False) is read from its definition when the run holds it.
TRUE_WHEN_COMPILING = ("is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling")
FALSE_WHEN_COMPILING = ("is_scripting", "is_tracing", "is_in_onnx_export", "_get_tracing_state")
# Libraries' own predicates, for runs that do not hold their definitions (by qualified name).
LIBRARY_PREDICATES = {
    "transformers.utils.is_tracing": True,  # dynamo, jit, fx or stream capture
    "transformers.utils.import_utils.is_tracing": True,
    "torchvision.utils._is_tracing": False,  # TorchScript/jit tracing state only
    "torchvision._is_tracing": False,
}
# names that may be such a predicate: a test calling one is kept for the project-wide reading
PREDICATE = re.compile(r"^_*(is|get)_\w*(compil|trac|script|onnx|export|dynamo)")


def absolute_name(path: str, dotted: str) -> str | None:
    """``.utils.is_tracing`` imported in ``pkg/sub/mod.py`` -> ``pkg.sub.utils.is_tracing``, as
    Python resolves it: through the packages (directories with ``__init__.py``) above the file.
    None when the file sits in no package deep enough."""
    level = len(dotted) - len(dotted.lstrip("."))
    directory = os.path.dirname(os.path.abspath(path))
    for _ in range(level - 1):
        directory = os.path.dirname(directory)
    parts: list[str] = []
    while is_package(directory):
        parts.append(os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    if not parts:
        return None
    rest = dotted[level:]
    return ".".join([*reversed(parts), *([rest] if rest else [])])


def is_package(directory: str) -> bool:
    """A Python package: a directory with ``__init__.py``."""
    # cached by absolute path: a relative one names another directory after a chdir (the
    # language server, tests that run zlint in-process)
    return _is_package(os.path.abspath(directory))


@functools.lru_cache(maxsize=1024)
def _is_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


def known_predicate_value(qualified: str) -> bool | None:
    """What a predicate returns under dynamo when its qualified name says (torch's, a private
    ``_is_compiling()`` wrapper, a library's); None when only its definition can tell."""
    last = qualified.rsplit(".", 1)[-1]
    if last.lstrip("_") in TRUE_WHEN_COMPILING:
        return True
    if qualified.startswith("torch.") and last.endswith(FALSE_WHEN_COMPILING):
        return False
    return LIBRARY_PREDICATES.get(qualified)


def dotted_with_super(node: ast.AST) -> str | None:
    """:func:`zlint.core.ast_walk.dotted_path`, and ``"super().x"`` for a chain on ``super()``: the
    scope resolves a method's call of its base class's method (``super().forward(x)``)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        parts.append("super()")
        return ".".join(reversed(parts))
    return None


def test_tree(test: ast.expr, local: dict[str, ast.expr] | None = None) -> list:
    """A test as a small JSON-able tree that :func:`tree_value` can read once the predicates of the
    run are known: ``["not", t]``, ``["and"|"or", [[t, line, column, end line, end column], ...]]``
    (``ast`` positions of each operand), ``["call", dotted callee]``, ``["?"]``. ``local``: a
    function's own single assignments (``flag = a or b``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ["not", test_tree(test.operand, local)]
    if isinstance(test, ast.BoolOp):
        kind = "and" if isinstance(test.op, ast.And) else "or"
        return [kind, [[test_tree(v, local), *_span(v)] for v in test.values]]
    if isinstance(test, ast.Call):
        name = dotted_with_super(test.func)
        return ["call", name] if name else ["?"]
    if isinstance(test, ast.Name) and local and test.id in local:
        return test_tree(local.pop(test.id), local)  # popped: a self-referencing name ends here
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    ):
        name = dotted_with_super(test.left)
        if name:  # `mask is None`: unknown, but the same wherever the test repeats it
            return ["none", name] if isinstance(test.ops[0], ast.Is) else ["not", ["none", name]]
    return ["?"]


def _span(node: ast.expr) -> tuple[int, int, int, int]:
    end_line = node.end_lineno or node.lineno
    end_column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return node.lineno, node.col_offset, end_line, end_column


def calls_predicate(tree: list) -> bool:
    """Whether a test tree calls a name that may be a compile-state predicate."""
    if tree[0] == "call":
        return bool(PREDICATE.match(tree[1].rsplit(".", 1)[-1]))
    if tree[0] == "not":
        return calls_predicate(tree[1])
    if tree[0] in ("and", "or"):
        return any(calls_predicate(operand[0]) for operand in tree[1])
    return False


def predicate_returns(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list | None:
    """What a predicate function returns, as a test tree (``["same", [tree, ...]]``): its value is
    known when every return agrees. A return in an ``except`` handler is a fallback for a torch
    without the API the ``try`` body calls (``try: return torch.compiler.is_compiling()``,
    ``except Exception: return False``): it counts only when the ``try`` bodies return nothing."""
    local: dict[str, ast.expr] = {}
    returns: list[ast.expr] = []
    fallbacks: list[ast.expr] = []
    stack: list[tuple[ast.AST, bool]] = [(node, False)]
    while stack:
        stmt, handled = stack.pop()
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            local.setdefault(stmt.targets[0].id, stmt.value)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            (fallbacks if handled else returns).append(stmt.value)
        handled = handled or isinstance(stmt, ast.ExceptHandler)
        stack.extend((child, handled) for child in ast.iter_child_nodes(stmt))
    returns = returns or fallbacks
    if not returns:
        return None
    return ["same", [test_tree(r, dict(local)) for r in returns]]


#: the most names whose None-ness a test is read under both ways (2**n readings)
MAX_CASES = 3


def tree_value(tree: list, call_value: CallValue, known: dict[str, bool] | None = None) -> bool | None:
    """The value of a test tree while dynamo traces (None: not known); ``call_value`` answers for
    the calls in it, ``known`` for the names known to be None (True) or not (False). Any other
    name tested against None (``mask is None``) is read both ways: the value is known when both
    readings agree (``mask is None or not is_tracing(mask)`` is True)."""
    values = {_value(tree, call_value, case) for case in _cases(tree, known)}
    return values.pop() if len(values) == 1 else None


def narrowed(tree: list, call_value: CallValue, names: Iterable[str]) -> dict[str, bool]:
    """What dynamo's path below an ``if`` that returns or raises (test ``tree``) knows of
    ``names``: a name the test is true for, None or not, whatever the other names hold, is the
    other way below it (``if mask is not None and is_tracing(mask): return``: ``mask`` is None)."""
    out: dict[str, bool] = {}
    for name in names:
        for none in (True, False):
            if all(_value(tree, call_value, case) is True for case in _cases(tree, {name: none})):
                out[name] = not none
    return out


def _value(tree: list, call_value: CallValue, case: dict[str, bool]) -> bool | None:
    kind = tree[0]
    if kind == "not":
        inner = _value(tree[1], call_value, case)
        return None if inner is None else not inner
    if kind in ("and", "or", "same"):
        values = [_value(t[0] if kind != "same" else t, call_value, case) for t in tree[1]]
        if kind == "same":
            return values[0] if values and all(v is values[0] for v in values) else None
        if kind == "and":
            return False if False in values else (True if all(v is True for v in values) else None)
        return True if True in values else (False if all(v is False for v in values) else None)
    if kind == "call":
        return call_value(tree[1])
    if kind == "none":
        return case.get(tree[1])
    return None


def _cases(tree: list, known: dict[str, bool] | None = None) -> list[dict[str, bool]]:
    """Every reading of the names the tree tests against None, the ``known`` ones as they are
    (one reading when there are none, or more than :data:`MAX_CASES` unknown ones)."""
    known = known or {}
    names = sorted(set(none_names(tree)) - known.keys())
    if not names or len(names) > MAX_CASES:
        return [dict(known)]
    return [{**known, **dict(zip(names, values))} for values in itertools.product((True, False), repeat=len(names))]


def none_names(tree: list) -> Iterator[str]:
    kind = tree[0]
    if kind == "none":
        yield tree[1]
    elif kind == "not":
        yield from none_names(tree[1])
    elif kind in ("and", "or"):
        for operand in tree[1]:
            yield from none_names(operand[0])
    elif kind == "same":
        for operand in tree[1]:
            yield from none_names(operand)


def skipped_operands(
    tree: list, call_value: CallValue, known: dict[str, bool] | None = None
) -> list[tuple[int, int, int, int, int]]:
    """The ``and``/``or`` operands that a decided operand before them short-circuits under dynamo
    (`not is_tracing(x) and x.all()`): they never run compiled. Each as (line, column, end line,
    end column, last line of the deciding operand): the deciding operand does run, so only
    positions, or whole lines after its last line, say where dynamo never goes. With names tested
    against None, an operand is skipped when it is under every reading (``not (mask is not None
    and is_tracing(mask)) and (mask is None or mask.all())``: a mask stops the first operand, no
    mask the ``or``; ``mask.all()`` never runs compiled)."""
    readings = [_skipped(tree, call_value, case) for case in _cases(tree, known)]
    first, others = readings[0], readings[1:]
    out = []
    for span in first:
        holders = [next((o for o in other if _contains(o, span)), None) for other in others]
        if None not in holders:
            out.append((*span[:4], max([span[4], *(h[4] for h in holders if h is not None)])))
    return out


def _contains(outer: tuple[int, int, int, int, int], inner: tuple[int, int, int, int, int]) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (outer[2], outer[3])


def _skipped(tree: list, call_value: CallValue, case: dict[str, bool]) -> list[tuple[int, int, int, int, int]]:
    out: list[tuple[int, int, int, int, int]] = []
    if tree[0] == "not":
        return _skipped(tree[1], call_value, case)
    if tree[0] not in ("and", "or"):
        return out
    stop = tree[0] == "or"  # the value that ends the chain
    for position, (operand, _, _, end, _) in enumerate(tree[1]):
        out.extend(_skipped(operand, call_value, case))
        if _value(operand, call_value, case) is stop:
            rest = tree[1][position + 1:]
            if rest:
                out.append((rest[0][1], rest[0][2], rest[-1][3], rest[-1][4], end))
            break
    return out
