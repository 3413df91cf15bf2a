"""One traversal for every rule, with the dispatch table built once per rule class.

LibCST's ``visit_batched`` finds each visitor's ``visit_*``/``leave_*`` methods with
``inspect.getmembers`` on every call: with ~40 rules that lookup cost more than the traversal
itself (measured: 20 s of 36 s on 12 model files). Here the method names are found once per
class and only bound per file; the traversal semantics are LibCST's (visit methods run in
visitor order, their return values are ignored, attribute hooks like ``visit_For_body`` work).

LibCST's ``node.visit`` also rebuilds (and re-validates) every node it passes, even for a
read-only visitor. :class:`FastWrapper` walks the tree without rebuilding it: the order in which
LibCST visits a node type's fields is learnt once per type, by letting LibCST visit one node of
that type with a recorder; the node types whose hooks depend on the node (f-string parts with
a format spec) are visited by LibCST itself. ``tests/cst/test_batched.py`` checks that the
events (visit, attribute hooks, leave) come in exactly LibCST's order on real files.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper

Method = Callable[[cst.CSTNode], object]


# LibCST's visitor base classes declare a do-nothing ``visit_*``/``leave_*`` stub for every node
# type; a hook is a method that is not one of those very functions.
_STUB_CLASSES = (cst.CSTVisitor, cst.BatchableCSTVisitor, cst.CSTTransformer)


@lru_cache(maxsize=None)
def _hook_names(cls: type) -> tuple[str, ...]:
    """The non-stub ``visit_*``/``leave_*`` methods of a visitor class."""
    names = []
    for name in dir(cls):
        if not (name.startswith("visit_") or name.startswith("leave_")):
            continue
        member = getattr(cls, name, None)
        if callable(member) and not any(member is getattr(base, name, None) for base in _STUB_CLASSES):
            names.append(name)
    return tuple(names)


# Node types whose visit fires attribute hooks depending on the node's values (``format_spec``
# only when present): LibCST visits these itself.
_DELEGATED = frozenset({"FormattedStringExpression", "TemplatedStringExpression"})
#: the field order of those (:func:`field_order`): walk ``node.children`` as LibCST does
DELEGATE: tuple[str, ...] = ("<delegate>",)
_FIELD_ORDER: dict[type, tuple[str, ...]] = {}


class _FieldRecorder(cst.CSTVisitor):
    """Records which fields LibCST visits on one node, without descending further."""

    def __init__(self, target: cst.CSTNode) -> None:
        super().__init__()
        self.target = target
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.target

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.target:
            self.fields.append(attribute)


def field_order(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of ``node`` in the order LibCST visits them (learnt once per type), or
    :data:`DELEGATE`. Shared with the other walks that must see the nodes in the same order
    (:mod:`zlint.cst.positions`, :mod:`zlint.facts.values`)."""
    cls = type(node)
    order = _FIELD_ORDER.get(cls)
    if order is None:
        if cls.__name__ in _DELEGATED:
            order = DELEGATE
        else:
            recorder = _FieldRecorder(node)
            node.visit(recorder)
            order = tuple(recorder.fields)
        _FIELD_ORDER[cls] = order
    return order


# Whitespace, comments and punctuation: about 70% of a module's nodes. Their subtrees hold
# nothing but more of them, so a traversal in which no visitor hooks one of these types skips
# them (and gives the same events for every hook that exists).
_TRIVIA = (
    cst.BaseParenthesizableWhitespace, cst.Newline, cst.TrailingWhitespace, cst.EmptyLine, cst.Comment,
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
    cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
)
_IS_NODE: dict[type, bool] = {}
#: the cache for :func:`field_children` that leaves trivia out: the nodes the walk enters when
#: no visitor hooks trivia (shared with :mod:`zlint.cst.positions`, which marks those nodes)
IS_WALKED: dict[type, bool] = {}


def is_trivia(cls: type) -> bool:
    """Whether nodes of this type only carry whitespace, comments or punctuation."""
    return issubclass(cls, _TRIVIA)


def field_children(node: cst.CSTNode, attribute: str, cache: dict[type, bool] = _IS_NODE) -> list[cst.CSTNode]:
    """The nodes in one field that the walk enters (CSTNode is an ABC: the answer is cached
    per type); with the ``IS_WALKED`` cache, trivia nodes are left out."""
    value = getattr(node, attribute)
    kind = type(value)
    if kind is tuple or kind is list:
        out = []
        for item in value:
            walked = cache.get(type(item))
            if walked is None:
                walked = cache[type(item)] = _enters(type(item), cache)
            if walked:
                out.append(item)
        return out
    walked = cache.get(kind)
    if walked is None:
        walked = cache[kind] = _enters(kind, cache)
    return [value] if walked else []


def _enters(kind: type, cache: dict[type, bool]) -> bool:
    return issubclass(kind, cst.CSTNode) and not (cache is IS_WALKED and is_trivia(kind))


@lru_cache(maxsize=None)
def _walked_fields(cls: type, order: tuple[str, ...]) -> tuple[str, ...]:
    """The fields of ``order`` whose declared type can hold a node that is not trivia
    (``whitespace_after``, ``lpar``, ``comma``... are left out); all of them when in doubt."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # an annotation that does not resolve: walk every field
        return order
    return tuple(name for name in order if name not in hints or not _only_trivia(hints[name]))


def _only_trivia(annotation: object) -> bool:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is not None:
        return bool(args) and all(_only_trivia(a) for a in args)
    if not isinstance(annotation, type):
        return False  # a string or an unusual form: assume it may hold anything
    return not issubclass(annotation, cst.CSTNode) or is_trivia(annotation)


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a read-only CSTVisitor, without rebuilding nodes.

    ``visit_*`` returning False skips the children, as in LibCST. A visitor that keeps LibCST's
    own ``on_*`` dispatch gets the fast walk (hooks found once per class, trivia skipped).
    """
    if _plain(type(visitor)):
        _Batch([visitor], obey_returns=True).walk(node)
    else:
        _generic_visit(node, visitor)


@lru_cache(maxsize=None)
def _plain(cls: type) -> bool:
    """Whether a visitor class reacts to nodes only through ``visit_*``/``leave_*`` methods."""
    base = cst.CSTVisitor
    return issubclass(cls, base) and all(
        getattr(cls, name) is getattr(base, name)
        for name in ("on_visit", "on_leave", "on_visit_attribute", "on_leave_attribute")
    )


def _generic_visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    order = field_order(node)
    if order is DELEGATE:
        node.visit(visitor)
        return
    if visitor.on_visit(node):
        for attribute in order:
            visitor.on_visit_attribute(node, attribute)
            for child in field_children(node, attribute):
                _generic_visit(child, visitor)
            visitor.on_leave_attribute(node, attribute)
    visitor.on_leave(node)


class _Batch(cst.CSTVisitor):
    """Dispatches each node to the visitors' hooks. Batched visitors' return values are ignored,
    as in LibCST's ``visit_batched``; with ``obey_returns`` (one visitor), a ``visit_*`` returning
    False skips the node's children, as in ``node.visit``."""

    def __init__(
        self, visitors: Sequence[cst.CSTVisitor | cst.BatchableCSTVisitor], obey_returns: bool = False
    ) -> None:
        super().__init__()
        self._obey = obey_returns
        self._visit: dict[str, list[Method]] = {}
        self._leave: dict[str, list[Method]] = {}
        # attribute hooks (visit_For_body): type name -> attribute -> methods
        self._visit_attr: dict[str, dict[str, list[Method]]] = {}
        self._leave_attr: dict[str, dict[str, list[Method]]] = {}
        for visitor in visitors:
            for name in _hook_names(type(visitor)):
                kind, _, rest = name.partition("_")
                type_name, _, attribute = rest.partition("_")
                method = getattr(visitor, name)
                if attribute:
                    table = self._visit_attr if kind == "visit" else self._leave_attr
                    table.setdefault(type_name, {}).setdefault(attribute, []).append(method)
                else:
                    table = self._visit if kind == "visit" else self._leave
                    table.setdefault(type_name, []).append(method)
        hooked = {*self._visit, *self._leave, *self._visit_attr, *self._leave_attr}
        # skip trivia unless a visitor hooks one of their types
        self._cache = _IS_NODE if hooked & _trivia_names() else IS_WALKED
        self._plans: dict[type, tuple] = {}  # per node type: see _plan

    def walk(self, node: cst.CSTNode) -> None:
        """Visit ``node`` and its subtree like ``node.visit(self)``, without rebuilding nodes."""
        plan = self._plans.get(type(node))
        if plan is None:
            plan = self._plans[type(node)] = self._plan(node)
        if plan is DELEGATE:
            node.visit(self)
            return
        visits, leaves, fields, attribute_hooks = plan
        for method in visits:
            if method(node) is False and self._obey:
                fields = attribute_hooks = ()
        walk = self.walk
        if attribute_hooks:
            for attribute, before, after in attribute_hooks:
                for method in before:
                    method(node)
                for child in field_children(node, attribute, self._cache):
                    walk(child)
                for method in after:
                    method(node)
        else:
            cache = self._cache
            for attribute in fields:
                value = getattr(node, attribute)
                kind = type(value)
                if kind is tuple or kind is list:
                    for item in value:
                        entered = cache.get(type(item))
                        if entered is None:
                            entered = cache[type(item)] = _enters(type(item), cache)
                        if entered:
                            walk(item)
                else:
                    entered = cache.get(kind)
                    if entered is None:
                        entered = cache[kind] = _enters(kind, cache)
                    if entered:
                        walk(value)
        for method in leaves:
            method(node)

    def _plan(self, node: cst.CSTNode) -> tuple:
        """What the walk does at a node of this type, found once per type: its ``visit_*`` and
        ``leave_*`` methods, the fields it enters, and each field's attribute hooks (when the
        type has any, every field is entered, as LibCST does)."""
        order = field_order(node)
        if order is DELEGATE:
            return DELEGATE
        name = type(node).__name__
        visit_attr = self._visit_attr.get(name, {})
        leave_attr = self._leave_attr.get(name, {})
        hooks: tuple = ()
        if visit_attr or leave_attr:
            hooks = tuple(
                (attribute, tuple(visit_attr.get(attribute, ())), tuple(leave_attr.get(attribute, ())))
                for attribute in order
            )
        elif self._cache is IS_WALKED:
            order = _walked_fields(type(node), order)
        return tuple(self._visit.get(name, ())), tuple(self._leave.get(name, ())), order, hooks

    def on_visit(self, node: cst.CSTNode) -> bool:
        descend = True
        methods = self._visit.get(type(node).__name__)
        if methods:
            for method in methods:
                if method(node) is False and self._obey:
                    descend = False
        return descend

    def on_leave(self, original_node: cst.CSTNode) -> None:
        methods = self._leave.get(type(original_node).__name__)
        if methods:
            for method in methods:
                method(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        by_attribute = self._visit_attr.get(type(node).__name__)
        if by_attribute:
            for method in by_attribute.get(attribute, ()):
                method(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        by_attribute = self._leave_attr.get(type(original_node).__name__)
        if by_attribute:
            for method in by_attribute.get(attribute, ()):
                method(original_node)


@lru_cache(maxsize=None)
def _trivia_names() -> frozenset[str]:
    names, stack = set(), [cst.CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub.__name__ not in names:
                stack.append(sub)
                if is_trivia(sub):
                    names.add(sub.__name__)
    return frozenset(names)


def visit_batched(wrapper: MetadataWrapper, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
    """Resolve every visitor's metadata, then traverse ``wrapper.module`` once for all of them."""
    with ExitStack() as stack:
        for visitor in visitors:
            stack.enter_context(visitor.resolve(wrapper))
        batch = _Batch(visitors)
        if isinstance(wrapper, FastWrapper):
            batch.walk(wrapper.module)
        else:
            wrapper.module.visit(batch)


class FastWrapper(MetadataWrapper):
    """A MetadataWrapper whose batched traversals (rules, and LibCST's own resolution of
    batchable metadata providers such as the size facts) use the fast walk."""

    def visit_batched(self, visitors, before_visit=None, after_leave=None):  # type: ignore[override]
        if before_visit is not None or after_leave is not None:
            return super().visit_batched(visitors, before_visit, after_leave)
        visitors = list(visitors)
        visit_batched(self, visitors)
        return self.module
