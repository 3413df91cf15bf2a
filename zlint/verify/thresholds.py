"""Size thresholds under a synthesized sweep (torch-free: ``ast`` only).

A comparison such as ``array.shape[axis] > length`` costs a recompile only when the sweep makes it
flip. With registered inputs the user chose the sizes; with synthesized inputs ``--verify`` must
know the other side to cross it. It is known when it is a literal, a module constant, or a
parameter the synthesized call leaves at its literal default (``length: int = 6``): the sweep then
gets sizes around it. When it is not (an attribute, a parameter of a helper called from elsewhere,
a computed value), silence at that line proves nothing, and the finding is UNVERIFIABLE.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from zlint.verify.synth import size_names_of

#: thresholds above this are not swept (a tensor that large is not worth the compile)
MAX_THRESHOLD = 4096
_SIZE_METHODS = ("size", "numel", "nelement")


def _int_of(node: ast.AST, names: dict[str, int]) -> int | None:
    """The int an expression is, from literals and ``names``: ``6``, ``-1``, ``N``, ``CHUNK * RATE``."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, (ast.Attribute, ast.Subscript)):  # ``self.grid_size[0]``, known from the built module
        return names.get(ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_of(node.operand, names)
        return -inner if inner is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = _int_of(node.left, names), _int_of(node.right, names)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        return a // b if b else None
    return None


def module_constants(tree: ast.Module | None) -> dict[str, int]:
    """Module-level names bound once to an int expression (``N_FRAMES = 3000``, ``HOP = N // 2``)."""
    if tree is None:
        return {}
    bound: dict[str, int] = {}
    seen: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            value = _int_of(node.value, bound) if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value else None
            if target.id in seen or value is None:
                bound.pop(target.id, None)
            else:
                bound[target.id] = value
            seen.add(target.id)
    return bound


def known_ints(tree: ast.Module | None, func: ast.AST | None) -> dict[str, int]:
    """Names whose int value is known where ``func`` runs with synthesized inputs: module constants
    and parameters left at an int default, unless ``func`` assigns them itself."""
    known = module_constants(tree)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return known
    assigned = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    params = {a.arg for a in [*positional, *args.kwonlyargs]}
    known = {k: v for k, v in known.items() if k not in params and k not in assigned}
    for arg, default in pairs:
        value = _int_of(default, module_constants(tree))
        if value is not None and arg.arg not in assigned:
            known[arg.arg] = value
    return known


def threshold_sizes(func: ast.AST, lines: Iterable[int], sizes: Iterable[int], known: dict[str, int]) -> list[int]:
    """Sizes that make a flagged comparison with a known int flip (``n > 32``, ``n > length`` with
    ``length=32``: 32 and 33) when the sweep does not already cross it."""
    lines, sizes = set(lines), tuple(sizes)
    extra: list[int] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Compare) and node.lineno in lines:
            equality = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
            for part in [node.left, *node.comparators]:
                value = _int_of(part, known)
                if value is not None and max(sizes) < value <= MAX_THRESHOLD:
                    extra += [value, value + 1]
                elif value is not None and equality and 0 <= value <= MAX_THRESHOLD:
                    extra.append(value)  # ``n != 4`` flips only at 4 itself
    return [n for n in dict.fromkeys(extra) if n not in sizes]


def reads_size(node: ast.AST, size_names: Iterable[str] = ()) -> bool:
    """Whether an expression reads a tensor size (``x.shape[i]``, ``x.size(i)``, ``len(x)``,
    ``x.numel()``) or a name bound to one."""
    names = set(size_names)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "shape":
            return True
        if isinstance(sub, ast.Call):
            func = sub.func
            if isinstance(func, ast.Attribute) and func.attr in _SIZE_METHODS:
                return True
            if isinstance(func, ast.Name) and func.id == "len":
                return True
        if isinstance(sub, ast.Name) and sub.id in names:
            return True
    return False


def _unknown_dim(node: ast.AST, known: dict[str, int]) -> str:
    """A size read whose dim index is not a known int (``x.shape[axis]``, ``x.size(dim)``)."""
    for sub in ast.walk(node):
        index = None
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "shape":
            index = sub.slice
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "size":
            index = sub.args[0] if sub.args else None
        if index is not None and not isinstance(index, ast.Slice) and _int_of(index, known) is None:
            return ast.unparse(sub)
    return ""


def open_threshold(
    compare: ast.Compare, known: dict[str, int], sizes: Iterable[int], size_names: Iterable[str] = (),
) -> str:
    """Why a synthesized sweep may never flip ``compare`` (empty: it crosses every threshold): a
    side that is not a size and has no known int value, or a known one outside the sweep, or a
    size whose dim is not known (the sweep may vary another one)."""
    sizes = list(sizes)
    sides = [compare.left, *compare.comparators]
    if not any(reads_size(side, size_names) for side in sides):
        return ""
    for side in sides:
        if reads_size(side, size_names):
            dim = _unknown_dim(side, known)
            if dim:
                return (f"reads `{dim}`, a dim the synthesized inputs cannot tell: the sweep may vary "
                        "another one; register an example with real inputs")
            continue
        value = _int_of(side, known)
        text = ast.unparse(side)
        if value is None:
            return (f"compares a size with `{text}`, whose value the synthesized inputs do not set: "
                    "the sweep may never cross it; register an example with real inputs")
        if sizes and not min(sizes) <= value <= max(sizes):
            return f"compares a size with {text} = {value}, outside the swept sizes {min(sizes)}-{max(sizes)}"
        equality = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in compare.ops)
        if sizes and equality and value not in sizes:
            return f"compares a size for equality with {text} = {value}, a size the sweep never takes"
    return ""


def open_thresholds(
    tree: ast.Module, lines: Iterable[int], sizes: Iterable[int], own: ast.AST | None,
    size_names: Iterable[str] = (), state: dict[str, int] | None = None,
) -> dict[int, str]:
    """Per flagged line, why the synthesized sweep may never flip a size comparison there. Lines of
    ``own`` (the function the inputs were synthesized for) know its parameters' defaults and the
    built module's ``state`` (``{"self.grid_size[0]": 14}``); a helper's lines, reached with values
    the caller computes, know only literals and module constants."""
    lines, sizes = set(lines), list(sizes)
    inside = set(range(own.lineno, (own.end_lineno or own.lineno) + 1)) if own is not None else set()
    own_known, module_known = {**known_ints(tree, own), **(state or {})}, module_constants(tree)
    out: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and node.lineno in lines and node.lineno not in out:
            here = node.lineno in inside
            # a helper's line reads sizes through its own names (``H, W = x.shape[-2:]``)
            names = size_names if here else helper_size_names(tree, node.lineno)
            why = open_threshold(node, own_known if here else module_known, sizes, names)
            if why:
                out[node.lineno] = why
    return out


def helper_size_names(tree: ast.Module, line: int) -> list[str]:
    """Local names bound to sizes in the innermost function holding ``line``."""
    holder = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
            if holder is None or node.lineno > holder.lineno:
                holder = node
    return size_names_of(holder) if holder is not None else []


def state_reads(func: ast.AST, lines: Iterable[int]) -> set[str]:
    """``self.<attr>`` and ``self.<attr>[i]`` compared on the flagged lines (``x.size(1) >
    self.max_len``, ``H != self.img_size[0]``): their values are known once the module is built."""
    lines = set(lines)
    out: set[str] = set()
    for node in ast.walk(func):
        if not (isinstance(node, ast.Compare) and node.lineno in lines):
            continue
        for part in [node.left, *node.comparators]:
            for sub in ast.walk(part):
                if isinstance(sub, ast.Subscript) and not isinstance(sub.slice, ast.Slice):
                    inner = sub.value
                    index = sub.slice
                    if _is_self_attr(inner) and isinstance(index, ast.Constant) and type(index.value) is int:
                        out.add(ast.unparse(sub))
                elif _is_self_attr(sub):
                    out.add(ast.unparse(sub))
    return out


def compared_names(func: ast.AST, lines: Iterable[int]) -> set[str]:
    """Names and ``name[i]`` compared on the flagged lines (``H != ss[0]``): a value the plan
    passes there is a threshold the sweep must cross."""
    lines = set(lines)
    out: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Compare) and node.lineno in lines:
            for part in [node.left, *node.comparators]:
                for sub in ast.walk(part):
                    if isinstance(sub, ast.Name):
                        out.add(sub.id)
                    elif (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name)
                          and isinstance(sub.slice, ast.Constant) and type(sub.slice.value) is int):
                        out.add(ast.unparse(sub))
    return out


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def around(values: Iterable[int], sizes: Iterable[int]) -> list[int]:
    """Each threshold value, one less and one more (``self.grid_size = 14``: 13, 14, 15), for the
    sweep, leaving out sizes it already has."""
    sizes = set(sizes)
    extra = [n for v in values if 0 < v <= MAX_THRESHOLD for n in (v - 1, v, v + 1)]
    return [n for n in dict.fromkeys(extra) if n not in sizes and n >= 0]
