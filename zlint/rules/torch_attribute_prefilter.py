"""ZL415's pre-pass: can a file hold an unknown ``torch`` attribute at all?

Nearly every model file says ``torch``, so ZL415's trigger word keeps every file on the slow
whole-file path, though the rule almost never fires. This check, on the text and the ``ast`` the
engine already has, answers "maybe" for every file in which ZL415 could report (it is a
superset: aliases from imports anywhere in the file, chains split over lines or comments, names
in strings) and "no" for the rest, which then skip the rule before LibCST runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import lru_cache

from zlint.torch_versions import TorchData

# separators inside a dotted chain: spaces, newlines in brackets, line continuations,
# comments, closing parentheses (``(torch).cuda``)
_SEP = r"(?:\s|\\|\)|#[^\n]*)*"
_NAME = r"[A-Za-z_]\w*"
_PART = re.compile(rf"\.{_SEP}({_NAME})")
_NESTED_CONFIG = "torch._inductor.config"


def may_hold_unknown_attribute(text: str, tree: ast.Module, data: TorchData) -> bool:
    """False only when no import and no ``alias.attr`` chain of the file can be reported."""
    namespaces = data.names
    roots: dict[str, set[str]] = {}
    for node in _imports(tree):
        if _import_may_report(node, namespaces):
            return True
        for local, qualified in _bindings(node):
            if _leads_to_checked(qualified, namespaces):
                roots.setdefault(local, set()).add(qualified)
    if not roots:
        return False
    for match in _chains(frozenset(roots)).finditer(text):
        targets = roots[match.group(1)]
        parts = _PART.findall(match.group(2))
        for qualified in targets:
            if _chain_may_report(qualified, parts, namespaces):
                return True
    return False


@lru_cache(maxsize=64)
def _chains(roots: frozenset[str]) -> re.Pattern[str]:
    """Dotted chains starting at one of ``roots`` (not preceded by a dot: a root, not an attribute)."""
    names = "|".join(sorted(map(re.escape, roots), key=len, reverse=True))
    return re.compile(rf"(?<![\w.])({names})\b((?:{_SEP}\.{_SEP}{_NAME})+)")


def _imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth (statements only: cheaper than ``ast.walk``)."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                todo.extend(children)


def _bindings(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, qualified name) as :class:`zlint.facts.imports.ImportMap` binds them."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                head = alias.name.split(".", 1)[0]
                yield head, head
    elif not node.level and node.module:
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name, f"{node.module}.{alias.name}"


def _leads_to_checked(qualified: str, namespaces: dict[str, frozenset[str]]) -> bool:
    return qualified in namespaces or any(ns.startswith(qualified + ".") for ns in namespaces)


def _import_may_report(node: ast.Import | ast.ImportFrom, namespaces: dict[str, frozenset[str]]) -> bool:
    if isinstance(node, ast.ImportFrom):
        names = namespaces.get(node.module or "") if not node.level else None
        return names is not None and any(a.name != "*" and a.name not in names for a in node.names)
    for alias in node.names:
        parts = alias.name.split(".")
        if _chain_may_report(parts[0], parts[1:], namespaces):
            return True
    return False


def _chain_may_report(qualified: str, parts: list[str], namespaces: dict[str, frozenset[str]]) -> bool:
    """Could ``qualified.part0.part1...`` hold an attribute missing from a checked namespace?"""
    for part in parts:
        if qualified == _NESTED_CONFIG or qualified.startswith(_NESTED_CONFIG + "."):
            return True  # dotted config keys: let the rule decide
        names = namespaces.get(qualified)
        if names is not None and part not in names:
            return True
        qualified = f"{qualified}.{part}"
    return False
