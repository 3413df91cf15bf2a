"""Which functions of one file a verified function calls, and in what order their lines run
(torch-free: ``ast`` only).

Dynamo inlines the helpers a compiled function calls, so a guard, recompile or graph break can
come from a helper's line. ``--verify`` places each effect on the innermost frame in the verified
file; this module tells the verdicts where such a line sits relative to the verified function: a
line's *call path* is the call lines leading from the verified function to it, then the line
itself (``forward`` calls ``pad_or_trim`` at line 29; line 14 of the helper is ``(29, 14)``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

Function = ast.FunctionDef | ast.AsyncFunctionDef
#: how deep a chain of helper calls is followed
MAX_DEPTH = 8


def functions(tree: ast.Module) -> dict[str, Function]:
    """Module-level functions and methods of module-level classes, by qualified name."""
    out: dict[str, Function] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}.{item.name}"] = item
    return out


def calls(qualname: str, node: Function, known: dict[str, Function]) -> list[tuple[int, str]]:
    """``(line, callee)`` for each call in ``node`` of a function of the same file: ``helper(...)``
    for a module-level function, ``self.method(...)`` / ``Class.method(...)`` for a method."""
    owner = qualname.rsplit(".", 1)[0] if "." in qualname else ""
    out = []
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func, callee = sub.func, ""
        if isinstance(func, ast.Name) and func.id in known:
            callee = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in ("self", "cls") and owner and f"{owner}.{func.attr}" in known:
                callee = f"{owner}.{func.attr}"
            elif f"{func.value.id}.{func.attr}" in known:
                callee = f"{func.value.id}.{func.attr}"
        if callee and callee != qualname:
            out.append((sub.lineno, callee))
    return sorted(out)


class CallGraph:
    """The calls between one file's functions, read once (a file may hold hundreds)."""

    def __init__(self, tree: ast.Module) -> None:
        self.known = functions(tree)
        self.edges = {name: calls(name, node, self.known) for name, node in self.known.items()}

    def entry_paths(self, qualname: str) -> dict[str, tuple[int, ...]]:
        """For each function ``qualname`` reaches (itself included, with ``()``), the call lines of
        its first call chain from ``qualname`` (the lexicographically smallest)."""
        if qualname not in self.known:
            return {}
        paths: dict[str, tuple[int, ...]] = {qualname: ()}
        pending = [qualname]
        while pending:
            current = pending.pop()
            if len(paths[current]) >= MAX_DEPTH:
                continue
            for line, callee in self.edges[current]:
                candidate = (*paths[current], line)
                if callee not in paths or candidate < paths[callee]:
                    paths[callee] = candidate
                    pending.append(callee)
        return paths

    def callers(self, qualname: str) -> list[tuple[str, int]]:
        """Functions that reach ``qualname`` through calls, each with the fewest calls on the way
        (1: it calls ``qualname`` itself)."""
        into: dict[str, set[str]] = {}
        for caller, edges in self.edges.items():
            for _, callee in edges:
                into.setdefault(callee, set()).add(caller)
        depth = {qualname: 0}
        frontier = [qualname]
        while frontier and depth[frontier[0]] < MAX_DEPTH:
            following = []
            for name in frontier:
                for caller in sorted(into.get(name, ())):
                    if caller not in depth:
                        depth[caller] = depth[name] + 1
                        following.append(caller)
            frontier = following
        return sorted((name, d) for name, d in depth.items() if name != qualname)


def entry_paths(tree: ast.Module, qualname: str) -> dict[str, tuple[int, ...]]:
    """:meth:`CallGraph.entry_paths` of one file."""
    return CallGraph(tree).entry_paths(qualname)


def callers(tree: ast.Module, qualname: str) -> list[tuple[str, int]]:
    """:meth:`CallGraph.callers` of one file."""
    return CallGraph(tree).callers(qualname)


@dataclass
class CallPaths:
    """The order of lines as the verified function runs them, helpers' lines included."""

    qualname: str
    #: (first line, last line, call path of the function) of each function the verified one reaches
    spans: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)

    @classmethod
    def of(cls, tree: ast.Module | CallGraph | None, qualname: str) -> CallPaths | None:
        """The call paths from ``qualname`` in ``tree`` (or its graph); None when it is not there."""
        if tree is None:
            return None
        graph = tree if isinstance(tree, CallGraph) else CallGraph(tree)
        paths = graph.entry_paths(qualname)
        if not paths:
            return None
        spans = []
        for name, path in paths.items():
            node = graph.known[name]
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first, node.end_lineno or node.lineno, path))
        return cls(qualname, spans)

    def _innermost(self, line: int | None) -> tuple[int, int, tuple[int, ...]] | None:
        """The span of the innermost reached function holding ``line``, None when none does."""
        holding = [s for s in self.spans if line is not None and s[0] <= line <= s[1]]
        return min(holding, key=lambda s: s[1] - s[0]) if holding else None

    def key(self, line: int | None) -> tuple[int, ...] | None:
        """The call path of ``line`` (its innermost reached function's path, then the line); None
        when no reached function holds it."""
        span = self._innermost(line)
        return None if span is None else (*span[2], line)

    def frame(self, line: int | None) -> tuple[int, int] | None:
        """The first and last line of the innermost reached function holding ``line``: the frame
        dynamo runs it in. None when no reached function holds it."""
        span = self._innermost(line)
        return None if span is None else (span[0], span[1])

    def reaches(self, line: int) -> bool:
        return self.key(line) is not None

    def precedes(self, earlier: int | None, line: int) -> bool:
        """Whether ``earlier`` may run before ``line`` in one call of the verified function: its
        call path sorts first and is not a call that leads to ``line`` (a break at the call of a
        helper is not a break before the helper's lines). Unknown lines may: True."""
        a, b = self.key(earlier), self.key(line)
        if a is None:
            return True
        if b is None:
            return earlier is not None and earlier < line
        return a < b and b[:len(a)] != a

    def first(self, lines: list[int]) -> int:
        """The line of ``lines`` that runs first."""
        return min(lines, key=lambda n: (self.key(n) is None, self.key(n) or (), n))
