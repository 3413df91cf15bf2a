"""Recognize a ``torch.compile(...)`` call (any alias, a decorator, ``module.compile(...)``) and read
its literal arguments. Shared by the ZL41x compile-call rules; cheap, so each rule calls it.

Only literal values count: a rule must stay quiet when an argument is a variable, ``**kwargs`` or
anything else whose value is only known at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from zlint.facts.imports import ImportMap

#: keyword arguments that make an unqualified ``x.compile(...)`` an ``nn.Module.compile`` call
#: (``re.compile``/Keras' ``compile`` take none of them)
MODULE_COMPILE_KEYWORDS = frozenset({"fullgraph", "dynamic", "backend", "mode", "options", "disable"})

_NOT_TORCH = object()


def literal_string(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain string literal (concatenations included, f-strings not)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def literal_bool(node: cst.BaseExpression | None) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def literal_type(node: cst.BaseExpression) -> str | None:
    """The Python type name of a literal (``bool``, ``int``, ``float``, ``str``, ``NoneType``)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Name) and node.value == "None":
        return "NoneType"
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float"
    if literal_string(node) is not None:
        return "str"
    return None


@dataclass
class OptionItem:
    """One ``key: value`` of a literal ``options=`` dict."""

    key: str
    key_node: cst.CSTNode
    value: cst.BaseExpression


@dataclass
class CompileCall:
    """A recognized compile call and its arguments."""

    node: cst.Call
    #: True for ``torch.compile`` by qualified name, False for a ``.compile(...)`` method call
    qualified: bool
    keywords: dict[str, cst.Arg] = field(default_factory=dict)
    positional: list[cst.Arg] = field(default_factory=list)
    #: ``*args`` or ``**kwargs`` present: the full argument list is unknown
    has_star: bool = False

    def value(self, name: str) -> cst.BaseExpression | None:
        arg = self.keywords.get(name)
        return arg.value if arg is not None else None

    def literal_mode(self) -> str | None:
        return literal_string(self.value("mode"))

    def literal_options(self) -> bool:
        """``options=`` is a dict display or a ``dict(...)`` call (whatever its contents)."""
        value = self.value("options")
        return isinstance(value, cst.Dict) or (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
        )

    def backend_is_inductor(self) -> bool:
        """True when the backend is inductor for sure: absent, None or the literal "inductor"."""
        if "backend" not in self.keywords:
            return not self.has_star
        value = self.value("backend")
        return is_none(value) or literal_string(value) == "inductor"

    def option_items(self) -> list[OptionItem] | None:
        """The items of a literal ``options={...}`` / ``options=dict(...)``; None when not literal."""
        value = self.value("options")
        if isinstance(value, cst.Dict):
            items = []
            for element in value.elements:
                if not isinstance(element, cst.DictElement):
                    return None  # ``**other``: keys unknown
                key = literal_string(element.key)
                if key is None:
                    return None
                items.append(OptionItem(key, element.key, element.value))
            return items
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
            items = []
            for arg in value.args:
                if arg.keyword is None or arg.star:
                    return None
                items.append(OptionItem(arg.keyword.value, arg.keyword, arg.value))
            return items
        return None


def compile_call(node: cst.Call, imports: ImportMap) -> CompileCall | None:
    """A :class:`CompileCall` when ``node`` calls ``torch.compile`` or ``nn.Module.compile``."""
    func = node.func
    if not isinstance(func, (cst.Name, cst.Attribute)):
        return None
    qualified = imports.qualify(func)
    if qualified == "torch.compile":  # any alias: `from torch import compile as tc`
        call = CompileCall(node, qualified=True)
    elif isinstance(func, cst.Attribute) and func.attr.value == "compile" and qualified is None:
        call = CompileCall(node, qualified=False)
    else:
        return None  # re.compile, a local function named compile, another library's compile
    for arg in node.args:
        if arg.star:
            call.has_star = True
        elif arg.keyword is not None:
            call.keywords[arg.keyword.value] = arg
        else:
            call.positional.append(arg)
    # ``x.compile(...)`` is taken for nn.Module.compile only when it passes compile keywords and
    # nothing else: a class of its own with ``compile(mode=..., compile_model=True)`` is not torch's
    if not call.qualified and (
        not call.keywords or not call.keywords.keys() <= MODULE_COMPILE_KEYWORDS or call.positional
    ):
        return None
    return call
