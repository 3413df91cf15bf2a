"""The fast path: decide, before paying for LibCST, which code of a file the enabled rules need.

Each rule declares (class attributes on :class:`zlint.rules.base.Rule`):

- ``trigger_words``: identifiers, attribute names or keywords without which the rule cannot
  report anything (``{"size", "shape", "numel", "nelement", "len"}`` for the size rules).
  ``None`` (the default) means "unknown": the rule always runs on the whole file.
- ``function_local``: True when every finding comes from the outermost ``def`` it lies in (a
  function at module level or in a class body) together with the module-level code, and needs
  one of the trigger words in that ``def``, or a trigger word that names a value (not a keyword
  like ``if``) in the module-level code. Default False: the rule sees the whole file.

Declarations are inherited: a subclass that reports something else must declare again.

From that, per file (a :class:`Plan`):

1. A rule whose trigger words do not occur in the text, or whose ``may_report`` check proves it
   silent on this file (ZL415: no import or chain that could name a missing torch attribute), is
   skipped; if no rule is left, nothing is parsed with LibCST at all.
2. If a remaining rule is not function-local, or the file holds a word that a file-level
   analysis depends on (``compile``: the compiled scope decides ``Diagnostic.compiled``), the
   whole file is parsed, as on the full path.
3. Otherwise LibCST parses a *reduced module*: every line of module-level code (imports,
   assignments, class headers and class-level statements, verbatim), the ``def``s that contain
   a trigger word (verbatim), and, for each dropped ``def``, only the statements whose effect
   reaches beyond it: its imports (they feed the file-wide
   :class:`~zlint.facts.imports.ImportMap` in source order) and, in a class, its
   ``self.<attr> = ...`` assignments (class-wide facts: which attributes hold containers).
   Names that module-level code binds from a trigger word (``F`` in ``from torch.nn import
   functional as F``) count as trigger words when choosing the ``def``s (their facts may reach
   into any function). Kept lines are copied whole, so columns are unchanged;
   ``line_map`` maps the reduced module's lines back to the file's.

A shared fact that looks across functions must be taught here (feed it from dropped ``def``s,
or add its words to :data:`FILE_LEVEL_WORDS`), or the fast path would differ from the full one.

Whenever the pre-pass is unsure (odd line separators, a reduced module LibCST rejects, a rule
that fails on it) the engine falls back to the whole file: the fast path may only be faster,
never different. ``tests/test_fast_path.py`` and ``benchmarks/run.py --check`` compare both paths.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from zlint.facts.compiled_scope import COMPILE_FUNCTIONS
from zlint.noqa import physical_lines

#: Words on which a file-level analysis depends: a file holding one is always parsed whole.
#: The compiled scope (``Diagnostic.compiled``, ``--compiled-only``) looks across functions for
#: ``torch.compile`` sites; every such site, alias or in-place ``.compile()`` spells ``compile``.
FILE_LEVEL_WORDS = frozenset({"compile", *(name.rsplit(".", 1)[-1] for name in COMPILE_FUNCTIONS)})

# Characters some tools count as line breaks and Python does not: on such files line numbers
# could disagree between the layers, so they always take the whole-file path.
ODD_SEPARATORS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)")
# Below this share of kept lines, a reduced module is not worth building.
_WORTH_REDUCING = 0.85

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Plan:
    """What to parse for one file."""

    #: the rules that can report something in this file (empty: parse nothing)
    rules: tuple
    #: the text to parse: the file itself, or a reduced module
    source: str = ""
    #: reduced module line (index + 1) -> file line; None when ``source`` is the file
    line_map: tuple[int, ...] | None = None

    @property
    def reduced(self) -> bool:
        return self.line_map is not None


@lru_cache(maxsize=64)
def _words_pattern(words: frozenset[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def words_in(text: str, words: frozenset[str], start: int = 0, end: int | None = None) -> set[str]:
    """The words of ``words`` that occur in ``text[start:end]`` (anywhere: code, strings, comments)."""
    if not words:
        return set()
    pattern = _words_pattern(words)
    return set(pattern.findall(text, start, len(text) if end is None else end))


def plan(text: str, tree: ast.Module, rules: Sequence[type], settings: object = None) -> Plan:
    """Decide what to parse for ``rules`` (the enabled rule classes) on one file."""
    declared = [rule for rule in rules if rule.trigger_words is not None]
    every = frozenset().union(*(rule.trigger_words for rule in declared)) | FILE_LEVEL_WORDS
    present = words_in(text, every)
    relevant = tuple(
        rule
        for rule in rules
        if (rule.trigger_words is None or rule.trigger_words & present) and rule.may_report(text, tree, settings)
    )
    whole = Plan(relevant, text)
    if not relevant:
        return Plan(())
    if present & FILE_LEVEL_WORDS or not all(rule.function_local for rule in relevant):
        return whole
    if ODD_SEPARATORS.search(text):
        return whole
    triggers = frozenset().union(*(rule.trigger_words for rule in relevant)) & present
    reduced = _Reducer(text, triggers).reduce(tree)
    if reduced is None:
        return whole
    source, line_map = reduced
    return Plan(relevant, source, line_map)


class _Reducer:
    """Builds the reduced module of one file (see the module docstring)."""

    def __init__(self, text: str, triggers: frozenset[str]) -> None:
        self.text = text
        self.lines = physical_lines(text, keepends=True)
        self.offsets = [0, *accumulate(len(line) for line in self.lines)]
        self.triggers = triggers
        self.pattern = _words_pattern(triggers)
        # keywords (``if``, ``for``) name no value: module-level code cannot hand one to a def
        self.value_triggers = frozenset(w for w in triggers if not keyword.iskeyword(w))
        self.keep = bytearray(len(self.lines) + 2)
        #: file line -> lines to emit in place of a dropped def starting there
        self.inserted: dict[int, list[str]] = {}
        self.defs: list[tuple[int, int, ast.AST, bool]] = []  # (first, last, node, in a class)
        self.classes: list[tuple[int, int, str]] = []  # (first body line, last line, indent)
        self.context: list[ast.AST] = []

    # -- line helpers ----------------------------------------------------------------------
    def _has_trigger(self, first: int, last: int) -> bool:
        return self.pattern.search(self.text, self.offsets[first - 1], self.offsets[last]) is not None

    def _indent(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip(" \t\f"))]

    def _newline(self, line: int) -> str:
        text = self.lines[line - 1]
        return "\r\n" if text.endswith("\r\n") else "\n"

    def _start(self, node: ast.stmt) -> int:
        """The first line of a statement, decorators included."""
        decorators = getattr(node, "decorator_list", None)
        if not decorators:
            return node.lineno
        line = min(d.lineno for d in decorators)
        while line > 1 and not self.lines[line - 1].lstrip().startswith("@"):
            line -= 1  # `@(` on its own line: the expression starts below the `@`
        return line

    def _mark(self, first: int, last: int) -> None:
        self.keep[first : last + 1] = b"\x01" * (last - first + 1)

    # -- structure -------------------------------------------------------------------------
    def _body(self, statements: Iterable[ast.stmt], in_class: bool = False) -> None:
        for stmt in statements:
            if isinstance(stmt, _DEFS):
                self.defs.append((self._start(stmt), stmt.end_lineno, stmt, in_class))
            elif isinstance(stmt, ast.ClassDef) and stmt.body[0].lineno > stmt.lineno:
                first_body = self._start(stmt.body[0])
                self._mark(self._start(stmt), first_body - 1)  # decorators and header
                self.context.extend((*stmt.decorator_list, *stmt.bases, *stmt.keywords))
                self.classes.append((first_body, stmt.end_lineno, self._indent(first_body)))
                self._body(stmt.body, in_class=True)
            else:
                self._mark(stmt.lineno, stmt.end_lineno)
                self.context.append(stmt)

    def _reaching_words(self) -> frozenset[str]:
        """The trigger words, plus every name that module-level code binds from them.

        A def without a trigger word can still use a fact made outside it: ``F.pad(...)`` after
        ``from torch.nn import functional as F``, ``n`` after ``n = x.shape[0]`` at module level.
        Every context statement (module and class level, and the imports of dropped defs) that
        uses a reaching word makes the names it binds reach too (an import: its local name;
        other code: all its words), until nothing changes.
        """
        if not self.value_triggers:
            return self.triggers
        nodes = list(self.context)
        for first, last, node, _ in self.defs:
            if _IMPORT.search(self.text, self.offsets[first - 1], self.offsets[last]):
                nodes.extend(n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
        pending = [_uses_and_binds(node) for node in nodes]
        reaching = set(self.value_triggers)
        changed = True
        while changed:
            changed = False
            for uses, binds in pending:
                if uses & reaching and not binds <= reaching:
                    reaching |= binds
                    changed = True
        return self.triggers | frozenset(reaching)

    def reduce(self, tree: ast.Module) -> tuple[str, tuple[int, ...]] | None:
        self._body(tree.body)
        reaching = self._reaching_words()
        self.pattern = _words_pattern(reaching)
        # a def that calls a kept helper (`n = seq_len(x)`, `self._shape(x)`) gets the helper's
        # facts (zlint.facts.helpers, one level deep): its name reaches like a trigger word
        helpers = frozenset(node.name for first, last, node, _ in self.defs if self._has_trigger(first, last))
        if helpers - reaching:
            self.pattern = _words_pattern(reaching | helpers)
        for first, last, node, in_class in self.defs:
            if self._has_trigger(first, last):
                self._mark(first, last)
                continue
            wanted = _IMPORT.search(self.text, self.offsets[first - 1], self.offsets[last])
            if in_class and not wanted:
                wanted = _SELF.search(self.text, self.offsets[first - 1], self.offsets[last])
            if not wanted:
                continue
            # imports from anywhere in it (the ImportMap is file-wide); `self.x = ...` only where
            # `self` is this class's instance (not in a nested class)
            reaching = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
            if in_class:
                reaching += [n for n in _walk_outside_classes(node) if _assigns_self_attribute(n)]
            reaching.sort(key=lambda n: (n.lineno, n.col_offset))
            if reaching:
                indent, newline = self._indent(first), self._newline(first)
                lines = [indent + ast.unparse(n) + newline for n in reaching]
                if any(":=" in line or "\n" in line.rstrip("\r\n") for line in lines):
                    return None  # a walrus would bind at class level; keep it simple: whole file
                self.inserted[first] = lines
        for first_body, last, indent in self.classes:
            if not any(self.keep[first_body : last + 1]) and not any(
                line in self.inserted for line in range(first_body, last + 1)
            ):
                self.inserted[first_body] = [indent + "pass" + self._newline(first_body)]
        if sum(self.keep) >= _WORTH_REDUCING * len(self.lines):
            return None
        out: list[str] = []
        line_map: list[int] = []
        keep, inserted, lines = self.keep, self.inserted, self.lines
        for number in range(1, len(lines) + 1):
            extra = inserted.get(number)
            if extra:
                out.extend(extra)
                line_map.extend([number] * len(extra))
            if keep[number]:
                line = lines[number - 1]
                if not line.endswith(("\n", "\r")):
                    line += "\n"  # the file's last line: more lines may follow here
                out.append(line)
                line_map.append(number)
        return "".join(out), tuple(line_map)



_IMPORT = re.compile(r"\bimport\b")
_SELF = re.compile(r"\bself\b")


def _walk_outside_classes(node: ast.AST):
    """``ast.walk`` that does not enter nested classes (their ``self`` is another object)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        todo.extend(c for c in ast.iter_child_nodes(current) if not isinstance(c, ast.ClassDef))


def _assigns_self_attribute(node: ast.AST) -> bool:
    """``self.x = ...``: feeds class-wide facts (which attributes hold containers)."""
    if isinstance(node, ast.Assign):
        return any(_is_self_attribute(t) for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return node.value is not None and _is_self_attribute(node.target)
    return False


def _is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _uses_and_binds(node: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """The words a context node's code uses, and the names through which it can hand a fact
    to a def: an import's local names; for other code, conservatively, every word it uses."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        binds = {alias.asname or alias.name.split(".", 1)[0] for alias in node.names if alias.name != "*"}
        return frozenset(_code_words(node)), frozenset(binds)
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        # the annotation of an assignment with a value makes no fact: only the value does
        words = _code_words(node.target) | _code_words(node.value)
    else:
        words = _code_words(node)
    return frozenset(words), frozenset(words)


def _code_words(node: ast.AST) -> set[str]:
    """Identifiers, attribute names and keywords used by the code of ``node``."""
    words: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            words.add(child.id)
        elif isinstance(child, ast.Attribute):
            words.add(child.attr)
        elif isinstance(child, ast.alias):
            words.update(child.name.split("."))
            if child.asname:
                words.add(child.asname)
        elif isinstance(child, ast.ImportFrom) and child.module:
            words.update(child.module.split("."))
        elif isinstance(child, ast.keyword) and child.arg:
            words.add(child.arg)
        elif isinstance(child, ast.arg):
            words.add(child.arg)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            words.update(child.names)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words.add(child.name)
    return words
