"""A ready ``example(...)`` registration for a function ``--verify`` could not run, from source.

What a user pastes into ``zlint_examples.py``: the target by import path, a ``make_inputs`` with
the synthesized shapes (``n`` where the sweep drives a dim), and, for a method, a factory with
the constructor's required parameters spelled out, to be replaced by real values. Where the user
registered an example already (for the function, the caller it was verified through, or another
method of its class), the stub starts from that (:class:`Registered`): the user's shapes and
factory, not placeholders.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zlint.verify.synth import FIXED, Plan, swept_text


def module_name(path: str) -> str:
    """``.../site-packages/timm/layers/drop.py`` -> ``timm.layers.drop`` (up the packages)."""
    file = Path(path)
    parts = [] if file.stem == "__init__" else [file.stem]
    parent = file.parent
    while (parent / "__init__.py").exists() and parent.parent != parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


def class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    body, node = tree.body, None
    for part in qualname.split(".")[:-1]:
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _required(func: ast.FunctionDef) -> list[ast.arg]:
    args = func.args
    positional = [*args.posonlyargs, *args.args][1:]
    required = positional[: len(positional) - len(args.defaults)]
    return required + [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


def _placeholder(arg: ast.arg) -> str:
    """``config: Wav2Vec2Config`` -> ``Wav2Vec2Config()``; ``dim: int`` -> ``4``; else ``...``."""
    annotation = arg.annotation
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # ``"NetConfig"``
        annotation = annotation.value
    elif annotation is not None:
        annotation = ast.unparse(annotation)
    annotation = annotation or ""
    if annotation.rsplit(".", 1)[-1].endswith("Config"):
        return f"{annotation}()"
    if annotation in ("int", "float"):
        return str(FIXED)
    return "..."


def factory(tree: ast.Module, qualname: str) -> str:
    """``lambda: MobileVitBlock(in_chs=...)`` for the class of a method; empty for a function."""
    cls = class_node(tree, qualname)
    if cls is None:
        return ""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    params = _required(init) if init is not None else []
    filled = ", ".join(f"{a.arg}={_placeholder(a)}" for a in params)
    return f"lambda: {qualname.split('.')[-2]}({filled})"


def _tensor(labels: list[str], swept: list[str], dtype: str, units: dict[str, int] | None = None) -> str:
    units = units or {}
    dims = ", ".join(
        (f"{units[lab]} * n" if lab in units else "n") if lab in swept else (lab if lab.isdigit() else str(FIXED))
        for lab in labels
    )
    if dtype == "int":
        return f"torch.randint(0, {FIXED}, ({dims}{',' if len(labels) == 1 else ''}))"
    if dtype == "bool":
        return f"torch.rand({dims}) > 0.5"
    return f"torch.randn({dims})"


@dataclass(frozen=True)
class Registered:
    """What a registered example gives a stub: the text of its ``make_inputs`` (``call``), each
    parameter's value in it (``params``, by name), and the source of its ``factory``."""

    call: str = ""
    params: dict[str, str] = field(default_factory=dict)
    factory: str = ""


def make_inputs(plan: Plan | None, known: dict[str, str] | None = None) -> str:
    """``lambda n: (torch.randn(n, 4), 4)``: the plan's inputs, ``(...)`` with no plan; ``known``
    values (a registered example's, by parameter name) replace the plan's own."""
    if plan is None or not plan.params:
        return "lambda n: (...)"
    known = known or {}
    args, kwargs = [], []
    skipped = False  # after a parameter left at its default, the rest go by name
    for p in plan.params:
        if p.name in known:
            value = known[p.name]
        elif p.kind == "default":
            skipped = True
            continue
        elif p.kind == "tensor":
            value = _tensor(p.labels, plan.swept, p.dtype, plan.units)
        elif p.kind == "attr":  # the module's own attribute (``self.conv.weight``): the user fills it in
            value = "..."
        else:
            value = swept_text(p.value) if p.swept else repr(p.value)
        by_name = p.keyword_only or skipped
        (kwargs if by_name else args).append(f"{p.name}={value}" if by_name else value)
    positional = f"({', '.join(args)}{',' if len(args) == 1 else ''})"
    if kwargs:
        return f"lambda n: ({positional}, dict({', '.join(kwargs)}))"
    return f"lambda n: {positional}"


def example_stub(
    path: str, tree: ast.Module, qualname: str, plan: Plan | None, start: Registered | None = None,
) -> str:
    """The lines to paste into ``zlint_examples.py``: imports, then ``example(Class.forward,
    lambda n: (...), factory=lambda: Class(...))``. ``start``: what the user registered already,
    which the stub keeps (their shapes and factory) where the source alone would guess."""
    start = start or Registered()
    made = factory(tree, qualname)
    if made and start.factory:  # a method: the user's own way of building its module
        made = start.factory
    built = f", factory={made}" if made else ""
    inputs = start.call if start.call and (plan is None or not plan.params) else make_inputs(plan, start.params)
    return (f"import torch\nfrom zlint.verify import example\nfrom {module_name(path)} import "
            f"{qualname.split('.')[0]}\nexample({qualname}, {inputs}{built})")


def callable_text(fn: Any) -> str:
    """The source of a registered ``factory``: ``lambda: Block(16)`` as written, the name of a
    function or class (``make_block``, ``Block``); empty when it cannot be read. A lambda is found
    among those on its line by where its body's code sits (``example(f, lambda n: ..., factory=
    lambda: ...)`` has two)."""
    code = getattr(fn, "__code__", None)
    if code is None or fn.__name__ != "<lambda>":
        name = getattr(fn, "__qualname__", "")
        return name if name and "<" not in name else ""
    try:
        source = Path(code.co_filename).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ""
    where = {(line, col) for line, _, col, _ in code.co_positions() if line is not None and col is not None}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            body = node.body
            if any((body.lineno, body.col_offset) <= spot <= (body.end_lineno, body.end_col_offset) for spot in where):
                return ast.get_source_segment(source, node) or ""
    return ""


def passed_on(
    caller: ast.FunctionDef | ast.AsyncFunctionDef, helper: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool,
    values: dict[str, str],
) -> dict[str, str]:
    """The registered values of ``caller``'s parameters (``values``) that it passes unchanged to
    ``helper`` (``pad(x, 4)`` or ``self.pad(x, 4)`` in ``forward(x)``), by the helper's parameter
    names. A parameter the calls pass in different ways (or as an expression) is left out: its
    value at the helper is not the registered one."""
    names = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]][1 if is_method else 0:]
    seen: dict[str, set[str | None]] = {}
    for node in ast.walk(caller):
        func = node.func if isinstance(node, ast.Call) else None
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if called != helper.name:
            continue
        positional = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):  # where the rest land is not known
                break
            positional.append(arg)
        pairs = [*zip(names, positional), *((k.arg, k.value) for k in node.keywords if k.arg)]
        for name, arg in pairs:
            seen.setdefault(name, set()).add(values.get(arg.id) if isinstance(arg, ast.Name) else None)
    return {name: texts.pop() for name, texts in seen.items() if len(texts) == 1 and None not in texts}
