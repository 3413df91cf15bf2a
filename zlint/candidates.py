"""The candidate stage: which functions of a file can hold a finding, decided on the ``ast``.

Each static rule may declare ``candidate(summary, settings)`` (:class:`zlint.rules.base.Rule`):
a test on a :class:`FunctionSummary` that is True for every function in which the rule can
report something, whatever the rest of the file holds. A summary answers what a rule's finding
needs, flow-insensitively and once per function: a *size* (an expression built from a size
source, :data:`SIZE_SOURCES`, or from a name bound from one, transitively) at the place the rule
looks (a branch test, a ``range()`` argument, a key, a formatted string...), a value that *may
be a tensor* there, or a word a rule's node must spell. A rule without a declaration keeps the
whole file, which is always exact.

:func:`plan` then keeps the module-level code, the candidate functions and what their facts
read in other functions (the helpers they call, transitively, since a helper's return value is
summarised from its body; the ``self.<attr> = ...`` assignments of their classes; the
``forward`` of the submodules those assign), and replaces the bodies of all other functions by
``...`` and blank lines, so that the reduced text keeps every kept line and column where it
was. LibCST parses the reduced text; findings outside the candidate functions (the kept
helpers are parsed only for their facts) are left out, which is exact because the candidate
test over-approximates every rule.

``ZLINT_FULL_PATH=1`` parses every file whole; ``benchmarks/run.py --check`` and the rule tests
(run on both paths) compare the two.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from zlint.facts.evidence import NON_TENSOR_TYPES
from zlint.facts.size_facts import NON_TENSOR_METHODS, SIZE_WORDS
from zlint.source import ODD_SEPARATORS

if TYPE_CHECKING:
    from zlint.settings import Settings

#: Attributes and methods whose value is a size or a shape (``x.shape``, ``x.size(0)``,
#: ``x.numel()``, ``torch.numel(x)``), and ``len()``: the sources of every size fact
#: (:mod:`zlint.facts.size_facts`, whose fast-path words these are).
SIZE_SOURCES = SIZE_WORDS
#: The attributes of a tensor that are tensors again (``x.T``, ``x.max(dim=1).values``).
TENSOR_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag", "values", "indices"})
#: Comparison operators that give an elementwise mask on a tensor (``is``/``in`` do not).
_ELEMENTWISE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: Names that an annotation may spell without allowing a tensor (``Optional[bool]``).
_NON_TENSOR_ANNOTATION = NON_TENSOR_TYPES | {
    "None", "Optional", "Union", "bool", "int", "float", "str", "bytes", "complex", "list", "dict", "tuple", "set",
    "typing",
}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LINE_ENDS = re.compile(r"\r\n|\r|\n")

Predicate = Callable[["FunctionSummary", "Settings | None"], bool]


def _targets(node: ast.AST) -> Iterator[str]:
    """The names a binding target binds (``a``, ``a, (b, *c)``); attributes and subscripts bind none."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _callee(node: ast.Call) -> str:
    """The last name of a call's callee: ``range`` for ``range(n)``, ``item`` for ``x.item()``."""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _head(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _atoms(test: ast.AST) -> Iterator[ast.AST]:
    """The operands of ``and``/``or``/``not`` whose truth a condition tests."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from _atoms(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _atoms(test.operand)
    else:
        yield test


class ModuleIndex:
    """What the summaries need from the whole module: its functions, methods and imports."""

    def __init__(self, tree: ast.Module) -> None:
        #: names of module-level functions and of the methods of module-level classes (helpers)
        self.functions: set[str] = set()
        self.methods: dict[str, set[str]] = {}
        for statement in tree.body:
            if isinstance(statement, _FUNCTIONS):
                self.functions.add(statement.name)
            elif isinstance(statement, ast.ClassDef):
                self.methods[statement.name] = {s.name for s in statement.body if isinstance(s, _FUNCTIONS)}
        #: local name -> every qualified name an import anywhere in the file binds it to
        self.imported: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".", 1)[0]
                    self.imported.setdefault(local, set()).add(alias.name if alias.asname else local)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for alias in node.names:
                    if alias.name != "*":
                        self.imported.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")
        #: names bound outside functions from a size (a function reads them through the module)
        self.sized_globals: frozenset[str] = frozenset()

    def qualified(self, node: ast.AST) -> set[str]:
        """Every qualified name a Name/Attribute chain may stand for (imports in any order)."""
        dotted = _dotted(node)
        if dotted is None:
            return set()
        head, _, rest = dotted.partition(".")
        return {f"{q}.{rest}" if rest else q for q in self.imported.get(head, ())}


@dataclass
class Unit:
    """A function that is not nested in another function: the stage keeps or blanks these."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    #: the enclosing class definitions, outermost first
    classes: tuple[ast.ClassDef, ...]
    summary: FunctionSummary = field(init=False, repr=False)

    @property
    def first_line(self) -> int:
        return min([self.node.lineno, *(d.lineno for d in self.node.decorator_list)])


class FunctionSummary:
    """What one function's code can give a rule, over-approximated from its ``ast``."""

    def __init__(self, node: ast.AST, index: ModuleIndex, classes: Sequence[str] = ()) -> None:
        self.node = node
        self.index = index
        self.classes = tuple(classes)
        self.nodes: list[ast.AST] = list(ast.walk(node))

    # -- words --------------------------------------------------------------------------------
    @cached_property
    def words(self) -> frozenset[str]:
        """Identifiers, attribute names, keywords of arguments and imported names it spells."""
        found: set[str] = set()
        for node in self.nodes:
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                found.add(node.arg)
            elif isinstance(node, ast.alias):
                found.update(node.name.split("."))
        return frozenset(found)

    # -- sizes --------------------------------------------------------------------------------
    def _is_source(self, node: ast.AST, sized: frozenset[str]) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr in SIZE_SOURCES
        if isinstance(node, ast.Name):
            return node.id in sized or node.id in self.index.sized_globals or node.id == "len"
        if isinstance(node, ast.Call):  # a same-module helper may return a size
            func = node.func
            if isinstance(func, ast.Name):  # a helper, or torch.numel imported under any name
                return func.id in self.index.functions or any(
                    q.rsplit(".", 1)[-1] in SIZE_SOURCES for q in self.index.imported.get(func.id, ())
                )
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                return any(func.attr in self.index.methods.get(c, ()) for c in self.classes)
        return False

    def _mentions(self, node: ast.AST | None, names: frozenset[str]) -> bool:
        return node is not None and any(self._is_source(n, names) for n in ast.walk(node))

    @cached_property
    def _bindings(self) -> list[tuple[list[str], ast.AST]]:
        """(names bound, the expression their value comes from) for every binding in the function."""
        out: list[tuple[list[str], ast.AST]] = []
        for node in self.nodes:
            if isinstance(node, ast.Assign):
                out.append(([n for t in node.targets for n in _targets(t)], node.value))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                out.append((list(_targets(node.target)), node.value))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                out.append((list(_targets(node.target)), node.iter))
        return out

    def _closure(self, seed: Callable[[ast.AST, frozenset[str]], bool]) -> frozenset[str]:
        """The names bound (transitively) from an expression that ``seed`` accepts."""
        names: frozenset[str] = frozenset()
        changed = True
        while changed:
            changed = False
            for bound, value in self._bindings:
                if not set(bound) <= names and seed(value, names):
                    names = names | set(bound)
                    changed = True
        return names

    @cached_property
    def sized_names(self) -> frozenset[str]:
        """Names that may hold a size, a shape or a bool computed from one."""
        return self._closure(self._mentions)

    def sized(self, node: ast.AST | None) -> bool:
        """Whether ``node`` may be (or hold) a size, a shape or a size comparison."""
        return self._mentions(node, self.sized_names)

    def _compares_size(self, node: ast.AST, names: frozenset[str]) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in names:
                return True
            if isinstance(sub, ast.Compare) and any(self.sized(o) for o in (sub.left, *sub.comparators)):
                return True
        return False

    @cached_property
    def predicate_names(self) -> frozenset[str]:
        """Names that may hold a comparison of a size (``small = n < 2``)."""
        return self._closure(self._compares_size)

    def _calls(self, names: Iterable[str] | None = None) -> Iterator[ast.Call]:
        wanted = None if names is None else frozenset(names)
        for node in self.nodes:
            if isinstance(node, ast.Call) and (wanted is None or _callee(node) in wanted):
                yield node

    @cached_property
    def tests(self) -> list[ast.AST]:
        """The conditions of ``if``/``while``/ternaries/comprehension filters/``assert``."""
        out: list[ast.AST] = []
        for node in self.nodes:
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                out.append(node.test)
            elif isinstance(node, ast.comprehension):
                out.extend(node.ifs)
        return out

    @cached_property
    def sized_test(self) -> bool:
        """A condition mentions a size (ZL101-ZL104)."""
        return any(self.sized(test) for test in self.tests)

    @cached_property
    def sized_predicate_argument(self) -> bool:
        """A call argument may be a size comparison (``torch.where(n > 1, ...)``)."""
        return any(
            self._compares_size(arg, self.predicate_names) for call in self._calls() for arg in _arguments(call)
        )

    def sized_argument(self, callees: Iterable[str]) -> bool:
        """A call of one of ``callees`` (last name) takes an argument that may be a size."""
        return any(self.sized(arg) for call in self._calls(callees) for arg in _arguments(call))

    @cached_property
    def sized_repeat(self) -> bool:
        """``[0] * n``: a list literal repeated a size times."""
        return any(
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and any(
                isinstance(items, (ast.List, ast.Tuple)) and self.sized(count)
                for items, count in ((node.left, node.right), (node.right, node.left))
            )
            for node in self.nodes
        )

    @cached_property
    def sized_key(self) -> bool:
        """A size indexes, keys or is looked up in something (``cache[n]``, ``{n: v}``, ``n in seen``)."""
        for node in self.nodes:
            if isinstance(node, ast.Subscript):
                index = node.slice
                parts = index.elts if isinstance(index, ast.Tuple) else [index]
                if not any(isinstance(p, ast.Slice) for p in parts) and self.sized(index):
                    return True
            elif isinstance(node, ast.Dict) and any(self.sized(k) for k in node.keys if k is not None):
                return True
            elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                if self.sized(node):
                    return True
        return self.sized_argument(("get", "setdefault", "pop", "__getitem__", "__contains__"))

    @cached_property
    def sized_format(self) -> bool:
        """A size formatted into a string (f-string, ``str()``, ``%``, ``.format()``)."""
        for node in self.nodes:
            if isinstance(node, ast.FormattedValue) and self.sized(node.value):
                return True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self.sized(node.right):
                return True
        return self.sized_argument(("str", "repr", "format"))

    # -- tensors ------------------------------------------------------------------------------
    @cached_property
    def non_tensor_names(self) -> frozenset[str]:
        """Parameters that no code of the function can make a tensor: annotated with non-tensor
        types only, never rebound, never narrowed by ``isinstance`` (and no nested scope)."""
        if any(isinstance(n, _SCOPES) for n in self.nodes[1:]):
            return frozenset()
        node = self.node
        if not isinstance(node, _FUNCTIONS):
            return frozenset()
        rebound = {n.id for n in self.nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        narrowed = {
            call.args[0].id
            for call in self._calls(("isinstance",))
            if call.args and isinstance(call.args[0], ast.Name)
        }
        args = node.args
        out = set()
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.annotation is not None and _non_tensor_annotation(arg.annotation):
                out.add(arg.arg)
        return frozenset(out - rebound - narrowed)

    def may_be_tensor(self, node: ast.AST | None) -> bool:
        """Whether the facts may make ``node`` a tensor (or a mask)."""
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id not in self.non_tensor_names
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):  # an imported function or a same-module helper
                return func.id in self.index.imported or func.id in self.index.functions
            if isinstance(func, ast.Attribute):
                receiver = func.value
                if isinstance(receiver, ast.Name) and (receiver.id == "self" or receiver.id in self.index.imported):
                    return True  # a helper method, a submodule, torch.<op>
                return func.attr not in NON_TENSOR_METHODS and func.attr not in {"dim", "ndimension"} and not (
                    func.attr.startswith("is_")
                )
            return True
        if isinstance(node, ast.Subscript):
            return self.may_be_tensor(node.value)
        if isinstance(node, ast.Attribute):
            return node.attr in TENSOR_VIEW_ATTRIBUTES and self.may_be_tensor(node.value)
        if isinstance(node, ast.BinOp):
            return self.may_be_tensor(node.left) or self.may_be_tensor(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.may_be_tensor(node.operand)
        if isinstance(node, ast.IfExp):
            return self.may_be_tensor(node.body) or self.may_be_tensor(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self.may_be_tensor(node.value)
        if isinstance(node, ast.Compare):
            return all(isinstance(op, _ELEMENTWISE) for op in node.ops) and any(
                self.may_be_tensor(o) for o in (node.left, *node.comparators)
            )
        return False

    @cached_property
    def tensor_test(self) -> bool:
        """A condition's atom may be a tensor (ZL303)."""
        return any(self.may_be_tensor(atom) for test in self.tests for atom in _atoms(test))

    @cached_property
    def tensor_iteration(self) -> bool:
        """A loop, comprehension or iterating builtin may run over a tensor (ZL202)."""
        for node in self.nodes:
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and self.may_be_tensor(node.iter):
                return True
        return self.tensor_argument(("enumerate", "zip", "list", "tuple", "map", "reversed", "sorted", "iter", "set"))

    def tensor_argument(self, callees: Iterable[str]) -> bool:
        """A call of one of ``callees`` (last name) takes an argument that may be a tensor."""
        return any(self.may_be_tensor(arg) for call in self._calls(callees) for arg in _arguments(call))

    @cached_property
    def tensor_slice_bound(self) -> bool:
        """``x[:t.max()]``: a slice bound that may be a tensor."""
        return any(
            isinstance(node, ast.Slice) and (self.may_be_tensor(node.lower) or self.may_be_tensor(node.upper))
            for node in self.nodes
        )

    @cached_property
    def tensor_index(self) -> bool:
        """``x[m]``: a subscript whose first index may be a tensor (a mask)."""
        for node in self.nodes:
            if isinstance(node, ast.Subscript):
                index = node.slice
                first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
                if self.may_be_tensor(first):
                    return True
        return False

    @cached_property
    def tensor_unpacked(self) -> bool:
        """``a, b = x``: a tuple target bound from a value that may be a tensor."""
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
            and self.may_be_tensor(node.value)
            for node in self.nodes
        )

    # -- torch names --------------------------------------------------------------------------
    @cached_property
    def torch_names(self) -> frozenset[str]:
        """Every torch-qualified dotted name the function spells (each prefix of an attribute
        chain, and what its import statements name), resolved through any import of the file."""
        found: set[str] = set()
        for node in self.nodes:
            if isinstance(node, ast.Attribute):
                found.update(q for q in self.index.qualified(node) if q.startswith("torch."))
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    found.update(".".join(parts[: i + 1]) for i in range(1, len(parts)))
        return frozenset(found)


def spells(words: frozenset[str]) -> Predicate:
    """The candidate test of a rule that reports at a node spelling one of ``words``."""

    def test(summary: FunctionSummary, settings: Settings | None = None) -> bool:
        return not words.isdisjoint(summary.words)

    return test


def size_condition(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """A condition, or a bool passed to a call, that may test a size (the ZL1 rules)."""
    return summary.sized_test or summary.sized_predicate_argument


def _arguments(call: ast.Call) -> Iterator[ast.AST]:
    yield from call.args
    for keyword in call.keywords:
        yield keyword.value


def _non_tensor_annotation(annotation: ast.AST) -> bool:
    """``bool``, ``Optional[int]``, ``list[str] | None``: only names that are no tensor (a string
    annotation, ``Any`` or anything else may stand for one)."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id not in _NON_TENSOR_ANNOTATION:
            return False
        if isinstance(node, ast.Attribute) and node.attr not in _NON_TENSOR_ANNOTATION:
            return False
        if isinstance(node, ast.Constant) and node.value is not None:
            return False
        if not isinstance(node, (ast.Name, ast.Attribute, ast.Constant, ast.Subscript, ast.Tuple, ast.BinOp,
                                 ast.BitOr, ast.Load)):
            return False
    return True


# -- the plan ----------------------------------------------------------------------------------


@dataclass
class Plan:
    """The reduced text LibCST parses, and the lines whose findings are left out."""

    text: str
    #: (first, last) line ranges of the functions that are no candidates (kept or blanked)
    dropped: list[tuple[int, int]]
    candidates: int
    units: int

    def drops(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.dropped)


def units_of(tree: ast.Module) -> list[Unit]:
    """The functions not nested in another function, with their enclosing classes."""
    out: list[Unit] = []

    def walk(body: Iterable[ast.AST], classes: tuple[ast.ClassDef, ...]) -> None:
        for node in body:
            if isinstance(node, _FUNCTIONS):
                out.append(Unit(node, classes))
            elif isinstance(node, ast.ClassDef):
                walk(node.body, (*classes, node))
            else:
                for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    child = getattr(node, name, None)
                    if isinstance(child, list):
                        walk(child, classes)

    walk(tree.body, ())
    return out


def _module_code(tree: ast.Module, units: list[Unit]) -> list[ast.AST]:
    """The statements outside every function (module and class bodies, with the headers of
    functions: decorators, defaults, annotations)."""
    inside = {id(u.node) for u in units}
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if id(node) in inside:
            out.extend(node.decorator_list)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.ClassDef):
            out.extend(node.decorator_list)
            out.extend(node.bases)
            out.extend(node.keywords)
            todo.extend(node.body)
            continue
        children = [getattr(node, n, None) for n in ("body", "orelse", "finalbody", "handlers", "cases")]
        if any(isinstance(c, list) for c in children):
            for name in ast.iter_fields(node):
                value = name[1]
                if isinstance(value, list):
                    todo.extend(value)
                elif isinstance(value, ast.AST):
                    out.append(value)
        else:
            out.append(node)
    return out


def _writes_self(node: ast.AST) -> bool:
    """Assigns ``self.<attr>`` or registers a buffer/parameter: what a class's facts read."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Assign, ast.AnnAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                   for t in targets):
                return True
        elif isinstance(sub, ast.Call) and _callee(sub) in {"register_buffer", "register_parameter"}:
            return True
    return False


def plan(
    text: str, tree: ast.Module, rules: Sequence[Any], settings: Settings | None = None
) -> Plan | None:
    """The reduced text for ``rules``, or None when the whole file must be parsed (a rule
    without a candidate declaration, a compile site, line ends ``ast`` and LibCST count apart)."""
    if not rules or any(getattr(r, "candidate", None) is None for r in rules):
        return None
    if ODD_SEPARATORS.search(text) or re.search(r"\bcompile\b", text):
        return None  # the compiled scope reads every function of a file that compiles something
    units = units_of(tree)
    if not units:
        return None
    index = ModuleIndex(tree)
    module = FunctionSummary(ast.Module(body=_module_code(tree, units), type_ignores=[]), index)
    index.sized_globals = module.sized_names
    for unit in units:
        unit.summary = FunctionSummary(unit.node, index, [c.name for c in unit.classes])
    candidates = [u for u in units if any(r.candidate(u.summary, settings) for r in rules)]
    lines = _LINE_ENDS.split(text)
    kept = _context(units, candidates, module)
    blanked = [u for u in units if id(u) not in kept and _blankable(u, lines)]
    if not blanked:
        return None
    is_candidate = {id(u) for u in candidates}
    dropped = [(u.first_line, u.node.end_lineno or u.node.lineno) for u in units if id(u) not in is_candidate]
    return Plan(_blank(text, lines, blanked), dropped, len(candidates), len(units))


def _context(units: list[Unit], candidates: list[Unit], module: FunctionSummary) -> set[int]:
    """The ids of the units to keep: the candidates and what their facts read elsewhere."""
    functions: dict[str, list[Unit]] = {}
    methods: dict[tuple[str, str], list[Unit]] = {}  # (class name, method) -> its defs
    members: dict[int, list[Unit]] = {}  # id(class) -> the units directly in it
    owner: dict[int, Unit] = {}  # id(summary) -> its unit
    for unit in units:
        owner[id(unit.summary)] = unit
        if unit.classes:
            methods.setdefault((unit.classes[-1].name, unit.node.name), []).append(unit)
            members.setdefault(id(unit.classes[-1]), []).append(unit)
        else:
            functions.setdefault(unit.node.name, []).append(unit)
    kept = {id(u) for u in candidates}
    # what is read with its facts: the helpers a kept function calls (their return values are
    # summarised from their own facts), transitively
    todo: list[FunctionSummary] = [module, *(u.summary for u in candidates)]
    classes: set[int] = set()
    while todo:
        summary = todo.pop()
        for call in summary._calls():
            func = call.func
            found: list[Unit] = []
            if isinstance(func, ast.Name):
                found = functions.get(func.id, [])
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                for name in summary.classes:
                    found = found + methods.get((name, func.attr), [])
            for unit in found:
                if id(unit) not in kept:
                    kept.add(id(unit))
                    todo.append(unit.summary)
        unit = owner.get(id(summary))
        if unit is None or not unit.classes or id(unit.classes[-1]) in classes:
            continue
        # what is read syntactically: the self.<attr> assignments of the class around a kept
        # function, and the forward() of the same-module classes they instantiate
        classes.add(id(unit.classes[-1]))
        for member in members.get(id(unit.classes[-1]), ()):
            if _writes_self(member.node):
                kept.add(id(member))
                for call in member.summary._calls():
                    kept.update(id(u) for u in methods.get((_callee(call), "forward"), ()))
    return kept


def _statement_start(statement: ast.stmt) -> int:
    return min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])


def _blankable(unit: Unit, lines: list[str]) -> bool:
    """Whether the body starts on a line of its own, has one statement per line, and holds no
    import below its top level (imports at the top level of the body are kept as they are)."""
    body = unit.node.body
    first = body[0]
    column = first.col_offset
    if getattr(first, "decorator_list", None):
        column = first.decorator_list[0].col_offset - 1  # the "@"
    line = lines[_statement_start(first) - 1].encode("utf-8", "surrogatepass")
    if line[:column].strip() or line[column:column + 1].isspace():
        return False
    spans = [(_statement_start(s), s.end_lineno or s.lineno) for s in body]
    if any(a[1] >= b[0] for a, b in zip(spans, spans[1:])):
        return False
    return not any(
        isinstance(n, (ast.Import, ast.ImportFrom))
        for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))
        for n in ast.walk(s)
    )


def _blank(text: str, lines: list[str], units: list[Unit]) -> str:
    """``text`` with the bodies of ``units`` replaced by ``...`` and blank lines; their
    top-level imports stay (the import map is the file's, fed in source order)."""
    lines = list(lines)
    ends = _LINE_ENDS.findall(text)
    for unit in units:
        body = unit.node.body
        last = unit.node.end_lineno or body[-1].lineno
        first_line = lines[_statement_start(body[0]) - 1]
        indent = first_line[: len(first_line) - len(first_line.lstrip(" \t"))]
        placed = False
        for i, statement in enumerate(body):
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                continue
            start = _statement_start(statement)
            end = last if i == len(body) - 1 else (statement.end_lineno or start)
            for number in range(start, end + 1):
                lines[number - 1] = ""
            if not placed:
                lines[start - 1] = indent + "..."
                placed = True
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i < len(ends):
            out.append(ends[i])
    return "".join(out)
