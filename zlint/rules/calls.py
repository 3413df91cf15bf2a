"""Small helpers to read a call's shape: its method name, positional and keyword arguments, the
``torch.*`` function it calls, and a short snippet of a node for messages.

Not a base class: any rule may use these, whatever base it picks."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import ImportMap


def method_name(call: cst.Call) -> str | None:
    """``m`` for ``<expr>.m(...)``, else None."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    """Positional argument values, in order (``*args`` excluded)."""
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    """The value of keyword argument ``name``, else None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def torch_function(call: cst.Call, imports: ImportMap) -> str | None:
    """``nonzero`` for ``torch.nonzero(...)`` (through aliases), else None."""
    qual = imports.qualify(call.func)
    if qual is not None and qual.startswith("torch.") and qual.count(".") == 1:
        return qual[len("torch."):]
    return None



SNIPPET = 28


def snippet(context, node: cst.CSTNode) -> str:
    """The node's code on one line, cut to keep a message near 100 characters."""
    text = context.snippet(node)
    return text if len(text) <= SNIPPET else text[: SNIPPET - 3] + "..."
