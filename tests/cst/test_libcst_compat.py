"""LibCST internals sit behind zlint/cst/compat.py: without them (gone, reshaped or failing)
the public API gives the same code, positions and findings; no other module touches them."""

from __future__ import annotations

import ast
import dataclasses
import importlib.metadata
from pathlib import Path

import libcst as cst
import libcst.metadata.position_provider as position_provider
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider
from packaging.requirements import Requirement

from zlint.core.settings import Settings
from zlint.cst import batched
from zlint.cst import compat as libcst_compat
from zlint.cst.positions import StatementPositions
from zlint.engine.lint import lint_source

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]

NESTED = '''\
import torch  # trailing
x = 1; y = (
    2)


@decorator(
    arg=1)
# a comment between decorator and def
class K:
    def f(self, a,
          b):
        if a:
            return b
            # indented comment at the end of a block
\t# odd comment
        return [a,
  b]
    @property
    def p(self): return self.x
if True: z = f"{x!r:>{y}}"
'''
SOURCES = {
    "nested": NESTED,
    "nested-crlf": NESTED.replace("\n", "\r\n"),
    "tabs": "class K:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn 1\n",
    "engine": (ROOT / "zlint/engine/lint.py").read_text(encoding="utf-8"),
    "example": (ROOT / "examples/serving_loop.py").read_text(encoding="utf-8"),
}


def _units(module: cst.Module):
    """Every statement of the module and of every class/def body, with its indentation tokens."""

    def walk(body, indent):
        for statement in body:
            yield statement, indent
            block = getattr(statement, "body", None)
            if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and isinstance(block, cst.IndentedBlock):
                token = block.indent if block.indent is not None else module.default_indent
                yield from walk(block.body, (*indent, token))

    return list(walk(module.body, ()))


def _normalised(unit: libcst_compat.GeneratedUnit, nodes) -> tuple[list[str], dict]:
    shift = unit.first_line - 1
    lines = unit.code.splitlines()[shift:]
    positions = {
        id(node): (r.start.line - shift, r.start.column, r.end.line - shift, r.end.column)
        for node, r in unit.positions.items()
        if id(node) in nodes
    }
    return lines, positions


def _all_nodes(node: cst.CSTNode) -> set[int]:
    found = {id(node)}
    for child in node.children:
        found |= _all_nodes(child)
    return found


def test_the_internal_path_is_live_on_the_tested_libcst():
    # the pinned LibCST range has the internals: if this fails, the fast path silently got slower
    assert libcst_compat._probe_internal() is not None
    assert libcst_compat.uses_internals()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_public_generation_equals_the_internal_one_for_every_unit(name):
    module = cst.parse_module(SOURCES[name])
    internal = libcst_compat._probe_internal()
    units = _units(module)
    assert len(units) >= 3
    for statement, indent in units:
        nodes = _all_nodes(statement)
        fast = _normalised(internal(module, statement, indent), nodes)
        public = _normalised(libcst_compat.generate_public(module, statement, indent), nodes)
        assert public == fast, module.code_for_node(statement)[:60]
        assert len(fast[1]) == len(nodes)  # every node of the statement has a position


@pytest.fixture
def without_internals(monkeypatch):
    monkeypatch.setattr(libcst_compat, "_internal", None)
    assert not libcst_compat.uses_internals()


@pytest.mark.parametrize("name", ["nested", "nested-crlf", "tabs", "example"])
def test_positions_without_internals_equal_the_whole_module_provider(name, without_internals):
    source = SOURCES[name]
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(MetadataWrapper(module, unsafe_skip_copy=True), source)
    # the nodes a rule can report: everything but the module and whitespace/punctuation
    nodes = [node for node in expected if not isinstance(node, cst.Module) and not batched.is_trivia(type(node))]
    assert len(nodes) > 12
    for node in nodes:
        assert positions[node] == expected[node], type(node).__name__
    assert positions._whole is None  # answered per unit, through the public API


def _findings(paths: list[Path]) -> list[tuple]:
    out = []
    for path in paths:
        result = lint_source(path.read_text(encoding="utf-8"), path.name, Settings(select=("ALL",)))
        assert result.error is None, result.error
        out.extend((path.name, d.line, d.column, d.end_line, d.end_column, d.code) for d in result.diagnostics)
    return out


def test_findings_without_internals_are_identical(monkeypatch):
    examples = sorted((ROOT / "examples").glob("*.py"))
    with_internals = _findings(examples)
    assert len(with_internals) > 20
    monkeypatch.setattr(libcst_compat, "_internal", None)
    assert _findings(examples) == with_internals


@dataclasses.dataclass
class _RenamedState:  # the codegen state with a field renamed, as a future LibCST might have it
    default_indent: str
    default_newline: str
    provider: object
    indentation: list = dataclasses.field(default_factory=list)
    tokens: list = dataclasses.field(default_factory=list)


def test_internals_of_another_shape_are_not_used(monkeypatch):
    monkeypatch.setattr(position_provider, "PositionProvidingCodegenState", _RenamedState)
    assert libcst_compat._probe_internal() is None
    monkeypatch.delattr(position_provider, "PositionProvidingCodegenState")
    assert libcst_compat._probe_internal() is None


def test_internals_failing_at_runtime_are_dropped_for_the_public_path(monkeypatch):
    calls = []

    def broken(*args):
        calls.append(args)
        raise AttributeError("'CSTNode' object has no attribute '_codegen'")

    monkeypatch.setattr(libcst_compat, "_internal", broken)
    module = cst.parse_module(NESTED)
    statement, indent = _units(module)[-3]  # the last statement of K.f, two blocks deep
    unit = libcst_compat.generate_unit(module, statement, indent)
    assert len(calls) == 1 and libcst_compat._internal is None
    nodes = _all_nodes(statement)
    public = libcst_compat.generate_public(module, statement, indent)
    assert _normalised(unit, nodes) == _normalised(public, nodes)
    assert unit.code.splitlines()[unit.first_line - 1 :] == ["\t# odd comment", "        return [a,", "  b]"]


def _private_attribute_order(node: cst.CSTNode) -> tuple[str, ...]:
    recorder = batched._FieldRecorder(node)
    node._visit_and_replace_children(recorder)
    return tuple(recorder.fields)


def test_field_order_learnt_through_visit_equals_libcsts_internal_order():
    if not hasattr(cst.CSTNode, "_visit_and_replace_children"):
        pytest.skip("this LibCST has no _visit_and_replace_children to compare with")
    module = cst.parse_module(NESTED + (ROOT / "tests/cst/test_batched.py").read_text(encoding="utf-8"))
    seen: dict[type, cst.CSTNode] = {}
    stack = [module]
    while stack:
        node = stack.pop()
        seen.setdefault(type(node), node)
        stack.extend(node.children)
    assert len(seen) > 60
    for cls, node in seen.items():
        if cls.__name__ in batched._DELEGATED:
            continue
        batched._FIELD_ORDER.pop(cls, None)
        assert batched.field_order(node) == _private_attribute_order(node), cls.__name__


def _visitor_classes() -> set[type]:
    import zlint.engine.lint  # noqa: F401  (loads every rule and fact provider)

    found, stack = set(), [cst.CSTVisitor, cst.BatchableCSTVisitor]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_hooks_found_without_is_no_op_equal_libcsts_own_stub_marking():
    if not getattr(cst.CSTVisitor.visit_Name, "_is_no_op", False):
        pytest.skip("this LibCST does not mark its stubs with _is_no_op")
    classes = [cls for cls in _visitor_classes() if cls.__module__.startswith("zlint")]
    assert len(classes) > 40
    for cls in classes:
        marked = tuple(
            name for name in dir(cls)
            if name.startswith(("visit_", "leave_")) and callable(getattr(cls, name))
            and not getattr(getattr(cls, name), "_is_no_op", False)
        )
        assert batched._hook_names(cls) == marked, cls.__qualname__


def _libcst_private_names() -> set[str]:
    """Underscore names defined by LibCST's public classes (``_codegen``, ``_computed``...)."""
    import libcst.metadata as metadata

    names: set[str] = set()
    for namespace in (cst, metadata):
        for public in dir(namespace):
            value = getattr(namespace, public)
            if isinstance(value, type):
                for klass in value.__mro__:
                    if klass.__module__.startswith("libcst"):
                        names.update(n for n in vars(klass) if n.startswith("_") and not n.endswith("__"))
    names.update(n for n in vars(PositionProvider()) if n.startswith("_"))
    return names


PUBLIC_MODULES = frozenset({"libcst", "libcst.metadata", "libcst.matchers", "libcst.helpers", "libcst.display"})


def test_no_module_but_the_compat_module_touches_libcst_internals():
    private = _libcst_private_names()
    assert {"_codegen", "_computed", "_visit_and_replace_children", "_is_no_op"} & private
    private.add("_is_no_op")  # set on the stubs' functions, not on a class
    sources = {p: p.read_text(encoding="utf-8") for p in sorted((ROOT / "zlint").rglob("*.py"))}
    own = set()  # underscore names zlint defines itself (its own attributes may share a name)
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
    offences = []
    for path, text in sources.items():
        if path == ROOT / "zlint" / "cst" / "compat.py":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("libcst"):
                # only LibCST's documented namespaces, and no underscore name from them
                if node.module not in PUBLIC_MODULES or any(alias.name.startswith("_") for alias in node.names):
                    offences.append((path.name, node.lineno, node.module))
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("libcst") and "._" in a.name]
                offences += [(path.name, node.lineno, name) for name in names]
            elif isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
                offences.append((path.name, node.lineno, node.attr))
            elif isinstance(node, ast.Constant) and node.value in private and node.value not in own:
                offences.append((path.name, node.lineno, node.value))
    assert offences == []


def test_the_pinned_libcst_range_holds_the_libcst_under_test():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (pin,) = [Requirement(d) for d in config["project"]["dependencies"] if Requirement(d).name == "libcst"]
    assert any(spec.operator == "<" for spec in pin.specifier)  # an upper bound: new releases are tried first
    assert pin.specifier.contains(importlib.metadata.version("libcst"))
