"""What a parameter's annotation says it takes, from source alone (no torch, no import).

Synthesized inputs must fit the annotations: a tensor given to ``size: Union[int, List[int]]``
makes eager fail ("Boolean value of Tensor") or, worse, makes dynamo break or guard where real
callers never would, and that is no evidence about the code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from zlint.core.ast_walk import dotted_path

#: ``torch.tensor`` (the factory) is what some real code writes for ``torch.Tensor``
TENSOR_NAMES = frozenset({"Tensor", "tensor", "FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "HalfTensor"})
_SCALARS = {"int": "int", "float": "float", "bool": "bool", "str": "str", "SymInt": "int", "_int": "int"}
_SEQUENCES = {"List", "list", "Tuple", "tuple", "Sequence", "Iterable", "MutableSequence"}
_UNIONS = {"Optional", "Union"}


#: tensor annotations that say the dtype: ``torch.LongTensor`` takes integer indices
_TENSOR_DTYPES = {"LongTensor": "int", "IntTensor": "int", "BoolTensor": "bool"}


@dataclass(frozen=True)
class Declared:
    """A parameter's declared type: ``tensor`` (with its ``dtype`` when the annotation names it),
    ``int``, ``float``, ``bool``, ``str``, ``ints`` (a list or tuple of ints, ``length`` long), or
    ``other`` (a module, a config, a callable)."""

    kind: str
    length: int = 2
    is_tuple: bool = False
    dtype: str = ""

    @property
    def not_a_tensor(self) -> bool:
        return self.kind != "tensor"


def _last(node: ast.expr) -> str:
    return (dotted_path(node) or "").rsplit(".", 1)[-1]


def declared(annotation: ast.expr | None) -> Declared | None:
    """The declared type of an annotation; None when there is none (or it names nothing known)."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return Declared("none")
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):  # ``int | None``
        return _union([annotation.left, annotation.right])
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        name = _last(annotation)
        if name in TENSOR_NAMES:
            return Declared("tensor", dtype=_TENSOR_DTYPES.get(name, ""))
        if name in _SCALARS:
            return Declared(_SCALARS[name])
        return Declared("other")
    if isinstance(annotation, ast.Subscript):
        outer = _last(annotation.value)
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if outer in _UNIONS:
            return _union(items)
        if outer in _SEQUENCES:
            kinds = [declared(i) for i in items if not (isinstance(i, ast.Constant) and i.value is Ellipsis)]
            if kinds and all(k is not None and k.kind in ("int", "float") for k in kinds):
                fixed = outer.lower() == "tuple" and len(kinds) == len(items)
                return Declared("ints", len(items) if fixed else 2, outer.lower() == "tuple")
            return Declared("other")
        if outer in ("Float", "Int", "Bool", "Shaped", "Num", "Real", "Integer", "Inexact"):
            return Declared("tensor")  # jaxtyping
        return Declared("other")
    return None


def _union(items: list[ast.expr]) -> Declared | None:
    """A union takes a tensor when any member does; else its first member that is not None
    (``Union[int, List[int]]`` -> int: the simplest value a caller may pass)."""
    kinds = [k for k in (declared(i) for i in items) if k is not None and k.kind != "none"]
    tensor = next((k for k in kinds if k.kind == "tensor"), None)
    if tensor is not None:
        return tensor
    order = ("int", "float", "bool", "ints", "str", "other")
    return min(kinds, key=lambda k: order.index(k.kind)) if kinds else None


#: neutral values, by the words in a parameter's name: a factor or step is 1, a probability 0
_UNIT_WORDS = ("stride", "group", "dilation", "ratio", "expand", "scale", "factor", "rate", "step")
_ZERO_WORDS = ("drop", "prob", "eps", "offset", "pad")


def value_for(name: str, kind: Declared, width: int) -> tuple[bool, Any]:
    """A value for a required parameter of that declared kind (``width`` for sizes and counts);
    (False, None) when no value can be guessed (a ``str`` mode, a config object)."""
    lowered = name.lower()
    number = 0 if any(w in lowered for w in _ZERO_WORDS) else 1 if any(w in lowered for w in _UNIT_WORDS) else width
    if kind.kind == "int":
        return True, number
    if kind.kind == "float":
        return True, float(number)
    if kind.kind == "bool":
        return True, False
    if kind.kind == "ints":
        values = [number] * kind.length
        return True, tuple(values) if kind.is_tuple else values
    return False, None


def _members(annotation: ast.expr | None) -> list[Declared]:
    """The declared types a union (``Union[...]``, ``Optional[...]``, ``a | b``) admits; the one
    type of any other annotation."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    items: list[ast.expr] = []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        items = [annotation.left, annotation.right]
    elif isinstance(annotation, ast.Subscript) and _last(annotation.value) in _UNIONS:
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if not items:
        found = declared(annotation)
        return [found] if found is not None else []
    return [m for item in items for m in _members(item) if m.kind != "none"]


#: what ``isinstance(x, T)`` admits, by T's name
_ISINSTANCE_KINDS = {
    "int": ("int",), "float": ("float", "int"), "bool": ("bool",), "str": ("str",), "list": ("ints",),
    "tuple": ("ints",), "Sequence": ("ints",), "Tensor": ("tensor",),
}


def member_for(annotation: ast.expr | None, requirement: str) -> Declared | None:
    """The member of a union that ``isinstance:T`` (or ``not isinstance:T``) picks
    (``Union[int, List[int]]``: ``not isinstance:int`` -> the list of ints); None when no member
    does."""
    negated = requirement.startswith("not ")
    type_name = requirement.split(":", 1)[1].rsplit(".", 1)[-1]
    admitted = _ISINSTANCE_KINDS.get(type_name, ())
    for member in _members(annotation):
        if (member.kind in admitted) != negated:
            return member
    return None
