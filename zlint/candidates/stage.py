"""The candidate stage: which functions of a file can hold a finding, decided on the ``ast``.

Each static rule's gate may declare ``candidate(summary, settings)`` (:mod:`zlint.candidates.gates`):
a test on a :class:`FunctionSummary` that is True for every function in which the rule can
report something, whatever the rest of the file holds. A summary answers what a finding needs,
from one walk of the function: whether a *size* (or a comparison of one), a *tensor* or a *mask*
may reach the place the rule looks at (a condition, a ``range()`` argument, a key, a formatted
string, a loop, a subscript), or whether the function spells a word the reported node must
spell (the summaries: :mod:`zlint.candidates.summary`). A rule without a declaration keeps the
whole file, which is always exact.

:func:`plan` then keeps the module-level code, the candidate functions and what their facts read
in other functions: the helpers they call whose return value may be a size or a tensor
(transitively: a helper's return value is summarised from its own facts), the methods of their
classes that assign a ``self.<attr>`` they read (layers, parameters, containers), the ``forward``
of the same-module classes those instantiate, and the callers whose calls the call-site facts of
their parameters read (:mod:`zlint.candidates.callers`). Every other definition is replaced by ``...`` and
blank lines (a body with top-level imports keeps them and its ``def`` line: the import map is the
file's), so every kept line and column stays where it was. LibCST parses the reduced text;
findings in kept functions that are no candidates are left out, which is exact because the
candidate tests over-approximate every rule. A file that names ``compile`` in its code is parsed
whole: the compiled scope reads every function of such a file.

``ZLINT_FULL_PATH=1`` parses every file whole; ``benchmarks/run.py --check``, the rule tests and
the doc examples (run on both paths) and ``tests/candidates/test_candidates.py`` compare the two.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from zlint.candidates import callers as call_sites
from zlint.candidates.summary import FunctionSummary, Unit
from zlint.candidates.values import FUNCTIONS, ModuleIndex
from zlint.candidates.walk import callee_name, group, is_self_attribute
from zlint.core.source import ODD_SEPARATORS
from zlint.core.walks import reach
from zlint.facts.vocabulary import CALL_SITE_DEPTH

if TYPE_CHECKING:
    from zlint.core.settings import Settings

_LINE_ENDS = re.compile(r"\r\n|\r|\n")


@dataclass
class Plan:
    """The reduced text LibCST parses (None: nothing, no code can hold a finding), and the lines
    whose findings are left out."""

    text: str | None
    #: (first, last) line ranges of the functions that are no candidates (kept or blanked)
    dropped: list[tuple[int, int]]
    candidates: int
    units: int
    #: the statements of ``text`` as ``ast`` parses them, made without parsing (positions)
    tree: ast.Module | None = None

    def drops(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.dropped)


def units_of(tree: ast.Module) -> list[Unit]:
    """The functions not nested in another function, with their enclosing classes."""
    out: list[Unit] = []

    def walk(body: Iterable[ast.AST], classes: tuple[ast.ClassDef, ...]) -> None:
        for node in body:
            if isinstance(node, FUNCTIONS):
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


@dataclass
class Split:
    """A file's functions, its candidates among them, and what each one's facts read: the text
    LibCST parses can be reduced to any group of candidates (:meth:`reduced`) and find for each
    exactly the findings of the whole plan (a re-lint after an edit parses only what changed:
    :mod:`zlint.engine.incremental`)."""

    text: str
    lines: list[str]
    units: list[Unit]
    module: FunctionSummary
    candidates: list[Unit]
    _lookups: _Lookups | None = field(default=None, repr=False)

    def context(self, group: Sequence[Unit]) -> set[int]:
        """The ids of the units kept for ``group``: it and what its facts (and the module-level
        code's) read elsewhere. The context of a group is the union of its members' contexts."""
        self._lookups = self._lookups or _Lookups(self.units)
        return _context(self.units, list(group), self.module, self._lookups)

    @cached_property
    def blankable(self) -> list[Unit]:
        """The units a reduced text can blank (a body that cannot be blanked line for line stays
        as it is)."""
        return [u for u in self.units if _blankable(u, self.lines)]

    def blanked(self, kept: set[int]) -> list[Unit]:
        """The units the reduced text for ``kept`` blanks."""
        return [u for u in self.blankable if id(u) not in kept]

    @staticmethod
    def split_lines(text: str) -> list[str]:
        """``text``'s lines as :attr:`lines` holds them (a reduced text has as many)."""
        return _LINE_ENDS.split(text)

    def reduced(self, kept: set[int]) -> str:
        """The text with every unit not in ``kept`` (ids, from :meth:`context`) blanked."""
        return _blank(self.text, self.lines, self.blanked(kept))


def split(text: str, tree: ast.Module, rules: Sequence[Any], settings: Settings | None = None) -> Split | Plan | None:
    """The file's :class:`Split` for ``rules``; a :class:`Plan` with no text when no code can
    hold a finding; None when the whole file must be parsed (a rule without a candidate
    declaration, a compile site, line ends ``ast`` and LibCST count apart)."""
    if not rules or any(getattr(r, "candidate", None) is None for r in rules):
        return None
    if ODD_SEPARATORS.search(text):
        return None
    units, module = summarize(tree)
    if any("compile" in summary.words for summary in (module, *(u.summary for u in units))):
        return None  # the compiled scope reads every function of a file that may compile something
    candidates = [u for u in units if any(r.candidate(u.summary, settings) for r in rules)]
    if not candidates and not any(r.candidate(module, settings) for r in rules):
        # the tests hold for module-level code too: here nothing can be reported at all
        return Plan(None, [], 0, len(units))
    if not units:
        return None
    return Split(text, _LINE_ENDS.split(text), units, module, candidates)


def plan(
    text: str, tree: ast.Module, rules: Sequence[Any], settings: Settings | None = None
) -> Plan | None:
    """The reduced text for ``rules``, or None when the whole file must be parsed (see
    :func:`split`)."""
    found = split(text, tree, rules, settings)
    if not isinstance(found, Split):
        return found
    blanked = found.blanked(found.context(found.candidates))
    if not blanked:
        return None
    return Plan(
        _blank(text, found.lines, blanked), dropped_lines(found), len(found.candidates), len(found.units),
        _blank_tree(tree, blanked),
    )


def dropped_lines(found: Split) -> list[tuple[int, int]]:
    """The (first, last) lines of the functions that are no candidates: their findings are left out."""
    is_candidate = {id(u) for u in found.candidates}
    return [(u.first_line, u.last_line) for u in found.units if id(u) not in is_candidate]


def summarize(tree: ast.Module) -> tuple[list[Unit], FunctionSummary]:
    """The units of a module with their summaries, and the summary of its module-level code."""
    units = units_of(tree)
    # one walk of the file: the nodes of each unit, and those outside every unit
    owner: dict[int, dict[type, list[Any]]] = {}
    outside = group(tree, {id(u.node) for u in units}, owner)
    imports = [
        node for groups in (outside, *owner.values()) for kind in (ast.Import, ast.ImportFrom)
        for node in groups.get(kind, ())
    ]
    index = ModuleIndex(tree, imports)
    module = FunctionSummary(tree, index, groups=outside)
    # the helpers the facts look up: module-level functions, methods of module-level classes
    direct = {id(n) for n in tree.body}
    direct.update(id(n) for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body)
    for unit in units:
        unit.summary = FunctionSummary(unit.node, index, unit.classes, module, owner[id(unit.node)])
        if len(unit.classes) <= 1 and id(unit.node) in direct:
            index.helpers[(unit.classes[0].name if unit.classes else None, unit.node.name)] = unit.summary
    layers: dict[int, set[str]] = {}
    registered: dict[int, set[str]] = {}
    for unit in units:
        for cls in unit.classes:
            layers.setdefault(id(cls), set()).update(unit.summary.self_calls)
            registered.setdefault(id(cls), set()).update(unit.summary.self_registered)
    index.set_class_attributes(layers, registered)
    return units, module


class _Lookups:
    """The indexes :func:`_context` reads, built once per file (a re-lint asks for the context
    of each candidate in turn): the units by name, by class and by summary, the word index, and
    each unit's call-site context once computed."""

    def __init__(self, units: list[Unit]) -> None:
        self.functions: dict[str, list[Unit]] = {}
        self.methods: dict[tuple[str, str], list[Unit]] = {}  # (class name, method) -> its defs
        self.members: dict[int, list[Unit]] = {}  # id(class) -> the units directly in it
        self.owner: dict[int, Unit] = {}  # id(summary) -> its unit
        self.mentions: dict[str, list[Unit]] = {}  # the word index, filled on first use
        self.call_sites: dict[int, set[int]] = {}  # id(unit) -> its call-site context
        self.classes: dict[str, ast.ClassDef] = {}  # the classes that hold units, by name
        for unit in units:
            self.owner[id(unit.summary)] = unit
            for cls in unit.classes:
                self.classes.setdefault(cls.name, cls)
            if unit.classes:
                self.methods.setdefault((unit.classes[-1].name, unit.node.name), []).append(unit)
                self.members.setdefault(id(unit.classes[-1]), []).append(unit)
            else:
                self.functions.setdefault(unit.node.name, []).append(unit)


def _context(
    units: list[Unit], candidates: list[Unit], module: FunctionSummary, lookups: _Lookups | None = None
) -> set[int]:
    """The ids of the units to keep: the candidates and what their facts read elsewhere."""
    lookups = lookups or _Lookups(units)
    functions, methods, members, owner = lookups.functions, lookups.methods, lookups.members, lookups.owner
    kept = {id(u) for u in candidates}
    # what is read with its facts: the helpers a kept function calls (their return values are
    # summarised from their own facts), transitively
    todo: list[FunctionSummary] = [module, *(u.summary for u in candidates)]
    read: list[Unit] = []  # the kept units whose facts are read
    callers: set[int] = set()
    while todo:
        summary = todo.pop()
        unit = owner.get(id(summary))
        if unit is not None:
            read.append(unit)
            if id(unit) not in lookups.call_sites:
                lookups.call_sites[id(unit)] = _call_site_context(unit, units, module, lookups.mentions)
            callers.update(lookups.call_sites[id(unit)])
        for call in summary.calls():
            func = call.func
            found: list[Unit] = []
            if isinstance(func, ast.Name):
                found = functions.get(func.id, [])
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                for name in summary.classes:
                    found = found + methods.get((name, func.attr), [])
            for unit in found:
                # a helper's return value is all the facts read of it: one that can be no size
                # and no tensor gives no fact, read or not
                if id(unit) not in kept and (unit.summary.returns_may("size") or unit.summary.returns_may("tensor")):
                    kept.add(id(unit))
                    todo.append(unit.summary)
    # what is read syntactically: the assignments of the self.<attr> that a kept function of the
    # class reads (layers, parameters, containers), and the forward() of the same-module classes
    # those instantiate
    attributes: dict[int, set[str]] = {}  # id(class) -> the self.<attr> its kept functions read
    # a caller's `self.<attr>` may be the parameter it passes (zlint.facts.call_sites)
    for unit in [*read, *(u for u in units if id(u) in callers)]:
        if unit.classes:
            # a class's facts start from those of its bases in the module (zlint.facts.modules)
            for cls in _with_bases(unit.classes[-1], lookups.classes):
                attributes.setdefault(id(cls), set()).update(unit.summary.self_reads)
    for key, names in attributes.items():
        for member in members.get(key, ()):
            values = member.summary.self_writes(names)
            if values:
                kept.add(id(member))
                for value in values:
                    if isinstance(value, ast.Call):
                        kept.update(id(u) for u in methods.get((callee_name(value), "forward"), ()))
    return kept | callers


def _with_bases(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """``cls`` and its bases among ``classes`` (by name), transitively."""
    def bases(node: ast.ClassDef) -> list[ast.ClassDef]:
        return [classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in classes]

    return list(reach([cls], bases, breadth_first=True))


def _call_site_context(
    unit: Unit, units: list[Unit], module: FunctionSummary, mentions: dict[str, list[Unit]]
) -> set[int]:
    """The ids of the units the call-site facts of ``unit``'s parameters read: none when it has
    no such facts or none of its parameters may be a tensor (the facts only ever say that a
    parameter is no tensor); the calls that certainly pass each such parameter something else,
    when there are (those keep the facts from saying it); else all its callers."""
    if not call_sites.indexed(unit, module.node):
        return set()
    parameters = call_sites.tensor_parameters(unit)
    if not parameters:
        return set()
    found = call_sites.witnesses(unit, parameters, units, module)
    return found if found is not None else _callers(unit, units, module, mentions)


def _callers(unit: Unit, units: list[Unit], module: FunctionSummary, mentions: dict[str, list[Unit]]) -> set[int]:
    """The ids of the units whose code the call-site facts of ``unit``'s parameters read
    (:mod:`zlint.facts.call_sites`): those that mention it, and theirs in turn, as many calls up
    as those facts follow. Only their syntax is read: they need no context of their own."""
    found: set[int] = set()
    level = [unit]
    for _ in range(CALL_SITE_DEPTH):
        level = [u for current in level for u in _mentioning(current, units, module, mentions) if id(u) not in found]
        found.update(id(u) for u in level)
    return found


def _mentioning(
    unit: Unit, units: list[Unit], module: FunctionSummary, mentions: dict[str, list[Unit]]
) -> list[Unit]:
    """The units that spell ``unit``'s name, or an attribute a class binds the function to
    (``self.core = f``); ``mentions`` is the word index, filled on first use. A mention that is
    certainly no call (``HANDLERS = [f]``, ``other.m``) leaves the function without call-site
    facts: only the unit holding it is kept then (none, at module level)."""
    if len(unit.classes) > 1:
        return []  # a method of a nested class: no call-site facts
    if not mentions:
        for other in units:
            for word in other.summary.words:
                mentions.setdefault(word, []).append(other)
    name = unit.node.name
    method = bool(unit.classes)
    if _mentions_without_calling(module, name, method, False):
        return []
    found = list(mentions.get(name, ()))
    for caller in found:
        if _mentions_without_calling(caller.summary, name, method, method and _has_method(caller, name)):
            return [caller]
    if method:
        # `self.m(...)` in another class with its own `m` calls that one
        return [u for u in found if u.classes[:1] == unit.classes[:1] or not _has_method(u, name)]
    if not unit.classes:
        for caller in mentions.get(name, ()):
            for node in caller.summary.of(ast.Assign):
                if isinstance(node.value, ast.Name) and node.value.id == name:
                    for target in node.targets:
                        if is_self_attribute(target):
                            found.extend(mentions.get(target.attr, ()))
    return found


def _has_method(unit: Unit, name: str) -> bool:
    """``unit`` is a method of a module-level class that defines a method ``name``."""
    return len(unit.classes) == 1 and any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in unit.classes[0].body
    )


def _mentions_without_calling(summary: FunctionSummary, name: str, method: bool, own: bool) -> bool:
    """Whether the code spells function ``name`` other than as the function of a call or the value
    of an assignment (an alias the facts follow); for a method, other than as ``self.name(...)``
    in a class that defines it (``own``)."""
    if name not in summary.words:
        return False
    called = {id(call.func) for call in summary.of(ast.Call)}
    if method:
        return any(
            n.attr == name and not (own and id(n) in called and is_self_attribute(n))
            for n in summary.of(ast.Attribute)
        )
    assigned = {id(a.value) for a in summary.of(ast.Assign)}
    return any(n.id == name and id(n) not in called and id(n) not in assigned for n in summary.of(ast.Name))


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
    top = sum(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)
    return top == sum(1 for _ in unit.summary.of(ast.Import, ast.ImportFrom))


def _blanked_span(unit: Unit) -> tuple[list[ast.stmt], set[int], int, int]:
    """How :func:`_blank` blanks ``unit``: the top-level imports of its body (kept, the import map
    is the file's, fed in source order) and their lines, and the first and last lines that go
    otherwise (comments too), ``...`` on the first of them that is no import's. With no import
    the whole definition goes, decorators and signature too (what the facts read of a function
    they do not need is its return values: none here)."""
    body = unit.node.body
    imports = [s for s in body if isinstance(s, (ast.Import, ast.ImportFrom))]
    taken = {n for s in imports for n in range(s.lineno, (s.end_lineno or s.lineno) + 1)}
    start = _statement_start(body[0]) if imports else unit.first_line
    return imports, taken, start, unit.node.end_lineno or body[-1].lineno


def _blank(text: str, lines: list[str], units: list[Unit]) -> str:
    """``text`` with ``units`` replaced by ``...`` and blank lines (:func:`_blanked_span`)."""
    lines = list(lines)
    ends = _LINE_ENDS.findall(text)
    for unit in units:
        _, taken, start, last = _blanked_span(unit)
        first_line = lines[start - 1]
        indent = first_line[: len(first_line) - len(first_line.lstrip(" \t"))]
        placed = False
        for number in range(start, last + 1):
            if number in taken:
                continue
            lines[number - 1] = "" if placed else indent + "..."
            placed = True
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i < len(ends):
            out.append(ends[i])
    return "".join(out)


_NESTED_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _blank_tree(tree: ast.Module, units: list[Unit]) -> ast.Module:
    """The statements of :func:`_blank`'s text as ``ast`` would parse them, built from ``tree``
    (which stays as it is) instead of parsing the text again: each blanked unit's definition
    becomes its ``...`` (or keeps its ``def`` line and top-level imports). Only statements and
    their lines are right, what :mod:`zlint.cst.positions` pairs with LibCST's statements (and
    checks against the text)."""
    blanked = {id(u.node): u for u in units}

    def rebuilt(statements: list) -> list | None:
        out, changed = [], False
        for statement in statements:
            unit = blanked.get(id(statement))
            if unit is not None:
                out.extend(_blanked_statements(unit))
                changed = True
                continue
            if not isinstance(statement, FUNCTIONS):  # a nested def is never a unit
                copied = None
                for name in _NESTED_FIELDS:
                    inner = getattr(statement, name, None)
                    if isinstance(inner, list) and inner:
                        new = rebuilt(inner)
                        if new is not None:
                            copied = copied or copy.copy(statement)
                            setattr(copied, name, new)
                if copied is not None:
                    statement, changed = copied, True
            out.append(statement)
        return out if changed else None

    body = rebuilt(tree.body)
    return tree if body is None else ast.Module(body=body, type_ignores=[])


def _blanked_statements(unit: Unit) -> list[ast.stmt]:
    """What :func:`_blank` leaves of ``unit``: ``...`` on its first line, or, when its body has
    top-level imports, the definition with those imports and ``...`` on the first line left."""
    imports, taken, start, last = _blanked_span(unit)
    if not imports:
        return [_ellipsis(start)]
    free = next((n for n in range(start, last + 1) if n not in taken), None)
    kept = list(imports)
    if free is not None:
        kept.append(_ellipsis(free))
        kept.sort(key=lambda s: s.lineno)
    copied = copy.copy(unit.node)
    copied.body = kept
    return [copied]


def _ellipsis(line: int) -> ast.Expr:
    return ast.Expr(ast.Constant(...), lineno=line, col_offset=0, end_lineno=line, end_col_offset=3)
