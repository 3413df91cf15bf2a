"""A ready ``example(...)`` registration for a function ``--verify`` could not run, from source.

What a user pastes into ``zlint_examples.py``: the target by import path, a ``make_inputs`` with
the synthesized shapes (``n`` where the sweep drives a dim), and, for a method, a factory with
the constructor's required parameters spelled out, to be replaced by real values.
"""

from __future__ import annotations

import ast
from pathlib import Path

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


def make_inputs(plan: Plan | None) -> str:
    """``lambda n: (torch.randn(n, 4), 4)``: the plan's inputs, ``(...)`` with no plan."""
    if plan is None or not plan.params:
        return "lambda n: (...)"
    args, kwargs = [], []
    skipped = False  # after a parameter left at its default, the rest go by name
    for p in plan.params:
        if p.kind == "default":
            skipped = True
            continue
        if p.kind == "tensor":
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


def example_stub(path: str, tree: ast.Module, qualname: str, plan: Plan | None) -> str:
    """The lines to paste into ``zlint_examples.py``: imports, then ``example(Class.forward,
    lambda n: (...), factory=lambda: Class(...))``."""
    made = factory(tree, qualname)
    built = f", factory={made}" if made else ""
    return (f"import torch\nfrom zlint.verify import example\nfrom {module_name(path)} import "
            f"{qualname.split('.')[0]}\nexample({qualname}, {make_inputs(plan)}{built})")
