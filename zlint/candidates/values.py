"""What values a function's names may hold, read from its ``ast``: tensors, masks, sizes and
predicates, flow-insensitively, from the sources the shared facts use. The base of the
candidate stage's summaries (:class:`zlint.candidates.summary.FunctionSummary`), which asks
where those values reach the places the rules look at."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from typing import Any

from zlint.candidates.walk import (
    assigned_targets,
    call_arguments,
    callee_name,
    chain_head,
    group,
    is_self_attribute,
    own_returns,
    static_shape,
)
from zlint.core.ast_walk import dotted_path
from zlint.facts.vocabulary import (
    DIM_KEYWORDS,
    MASK_METHODS,
    MASK_PRESERVING_METHODS,
    NON_TENSOR_RESULT_METHODS,
    NON_TENSOR_TORCH,
    NOT_TENSOR_FIRST,
    NUMPY_SHARED_METHODS,
    SHAPED_ATTRIBUTES,
    TENSOR_ATTRIBUTES,
    TENSOR_METHODS,
    TENSOR_ONLY_METHODS,
    returns_tensor,
)

#: The attributes of a tensor that are tensors again (``x.T``, ``x.max(dim=1).values``).
TENSOR_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag", "values", "indices"})
#: Comparison operators that give an elementwise mask on a tensor (``is``/``in`` do not).
ELEMENTWISE_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: Uses of a name that the evidence (zlint.facts.tensor_evidence) takes for a tensor's.
_EVIDENCE_ATTRIBUTES = TENSOR_ATTRIBUTES | SHAPED_ATTRIBUTES
_EVIDENCE_METHODS = TENSOR_METHODS | NUMPY_SHARED_METHODS
#: Methods that give a size, a shape or a rank of any receiver.
_SIZE_METHODS = frozenset({"size", "numel", "nelement", "dim", "ndimension"})
#: Methods and torch functions that give a tuple of tensors.
_SPLITS = frozenset({"split", "chunk", "unbind", "tensor_split"})
#: Attributes, methods and builtins whose value is a size or a shape (the facts' sources).
_SIZE_SOURCE_WORDS = frozenset({"shape", "size", "numel", "nelement", "len"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Values the container facts (:func:`zlint.facts.values.container_attributes`) read as containers.
_CONTAINER_LITERALS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
_WORD = re.compile(r"\w+")


class ModuleIndex:
    """What the summaries need from the whole module: its functions, methods and imports."""

    def __init__(self, tree: ast.Module, imports: Iterable[ast.Import | ast.ImportFrom] = ()) -> None:
        #: names of module-level functions and of the methods of module-level classes (helpers)
        self.functions: set[str] = set()
        self.methods: dict[str, set[str]] = {}
        for statement in tree.body:
            if isinstance(statement, FUNCTIONS):
                self.functions.add(statement.name)
            elif isinstance(statement, ast.ClassDef):
                self.methods[statement.name] = {s.name for s in statement.body if isinstance(s, FUNCTIONS)}
        #: local name -> every qualified name an import anywhere in the file binds it to
        self.imported: dict[str, set[str]] = {}
        for node in imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".", 1)[0]
                    self.imported.setdefault(local, set()).add(alias.name if alias.asname else local)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for alias in node.names:
                    if alias.name != "*":
                        self.imported.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")

        #: (class name or None, function name) -> the summary of that helper (filled by plan)
        self.helpers: dict[tuple[str | None, str], ValueReadings] = {}
        self._returning: set[tuple[int, str]] = set()
        self._layers: dict[int, frozenset[str]] = {}
        self._registered: dict[int, frozenset[str]] = {}

    def layers(self, cls: ast.ClassDef) -> frozenset[str]:
        """The ``self.<attr>`` a class assigns a call to, anywhere in its code: those that may
        hold a torch.nn layer or a submodule (filled by :func:`set_class_attributes`)."""
        return self._layers.get(id(cls), frozenset())

    def registered(self, cls: ast.ClassDef) -> frozenset[str]:
        """The ``self.<attr>`` a class registers as a buffer or parameter, anywhere in its code
        (filled by :func:`set_class_attributes`)."""
        return self._registered.get(id(cls), frozenset())

    def set_class_attributes(self, layers: dict[int, set[str]], registered: dict[int, set[str]]) -> None:
        """Record, per class (by the ``id`` of its ``ast.ClassDef``), the ``self.<attr>`` its
        methods assign a call to and those they register as buffers or parameters
        (:func:`zlint.candidates.stage.summarize` finds them once the methods are summarized)."""
        self._layers = {key: frozenset(names) for key, names in layers.items()}
        self._registered = {key: frozenset(names) for key, names in registered.items()}

    def returns(self, owner: str | None, name: str, kind: str) -> bool:
        """Whether the same-module helper ``name`` (a method of class ``owner``) may return a
        value of ``kind`` ("tensor" or "size"); True when unknown or recursive."""
        summary = self.helpers.get((owner, name))
        if summary is None:
            return (name in self.functions) if owner is None else name in self.methods.get(owner, ())
        key = (id(summary), kind)
        if key in self._returning:
            return True
        self._returning.add(key)
        try:
            return summary.returns_may(kind)
        finally:
            self._returning.discard(key)

    def qualified(self, node: ast.AST) -> set[str]:
        """Every qualified name a Name/Attribute chain may stand for (imports in any order)."""
        head = chain_head(node)
        if not (isinstance(head, ast.Name) and head.id in self.imported):
            return set()
        dotted = dotted_path(node) or ""
        _, _, rest = dotted.partition(".")
        return {f"{q}.{rest}" if rest else q for q in self.imported[head.id]}


class ValueReadings:
    """Which values one function's code may hold, over-approximated from its ``ast``.

    Three flow-insensitive readings of the function mirror the facts (:mod:`zlint.facts`): which
    expressions may be a *tensor* (or a tuple of tensors), which a *mask* (a bool tensor), and
    which a *size* (a size, a shape or a comparison of one). A name may hold one when any of its
    bindings in the function (or, for a name it does not bind, at module level) may, or, for
    tensors, when the function's code gives evidence that it is one (``x.device``,
    ``x.masked_fill(...)``, ``torch.relu(x)``), a tensor annotation or an ``isinstance`` check.
    """

    def __init__(
        self,
        node: ast.AST,
        index: ModuleIndex,
        classes: Sequence[ast.ClassDef] = (),
        module: ValueReadings | None = None,
        groups: dict[type, list[Any]] | None = None,
    ) -> None:
        self.node = node
        self.index = index
        self._classes = tuple(classes)
        self.classes = tuple(c.name for c in classes)
        #: the summary of the module-level code: the names a function reads from there
        self.module = module
        #: the nodes of the function by type (``groups``: collected by one walk of the file)
        self._groups = groups if groups is not None else group(node)
        self._tensor_names: frozenset[str] = frozenset()
        self._mask_names: frozenset[str] = frozenset()
        self._size_names: frozenset[str] = frozenset()
        self._predicate_names: frozenset[str] = frozenset()

    def of(self, *types: type) -> Iterator[Any]:
        """Its nodes of the given types."""
        groups = self._groups
        for kind in types:
            yield from groups.get(kind, ())

    @cached_property
    def layers(self) -> frozenset[str]:
        """``self.<attr>`` that the enclosing classes (or this code) assign a call to: the only
        ones that can hold a layer or a submodule (:mod:`zlint.facts.modules`)."""
        return frozenset(a for c in self._classes for a in self.index.layers(c)) | self.self_calls

    @cached_property
    def self_calls(self) -> frozenset[str]:
        """The ``self.<attr>`` this code assigns a call to (``self.proj = nn.Linear(...)``)."""
        names = set()
        for node in self.of(ast.Assign, ast.AnnAssign):
            if isinstance(node.value, ast.Call):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.attr for t in targets if is_self_attribute(t))
        return frozenset(names)

    @cached_property
    def self_registered(self) -> frozenset[str]:
        """The ``self.<attr>`` this code registers as a buffer or parameter
        (``self.register_buffer("table", ...)``, ``self.w = nn.Parameter(...)``): tensors."""
        names = set()
        for node in self.of(ast.Assign, ast.AnnAssign):
            if isinstance(node.value, ast.Call) and (callee_name(node.value) or "").endswith("Parameter"):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.attr for t in targets if is_self_attribute(t))
        for call in self.calls(("register_buffer", "register_parameter")):
            if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
                names.add(call.args[0].value)
        return frozenset(names)

    @cached_property
    def registered(self) -> frozenset[str]:
        """The ``self.<attr>`` the enclosing classes (or this code) register as buffers or
        parameters (:mod:`zlint.facts.modules`)."""
        return frozenset(a for c in self._classes for a in self.index.registered(c)) | self.self_registered

    @cached_property
    def self_reads(self) -> frozenset[str]:
        """The ``<attr>`` of every ``self.<attr>`` it spells: the only attributes whose class
        facts (:mod:`zlint.facts.modules`, containers) its facts can read."""
        return frozenset(node.attr for node in self.of(ast.Attribute) if is_self_attribute(node))

    def self_writes(self, names: Iterable[str]) -> list[ast.AST]:
        """The values it assigns to ``self.<attr>`` for an ``attr`` in ``names`` where a class's
        facts read them (a call: a layer, a parameter, a submodule, a container constructor; a
        container literal; any value outside ``__init__``, which makes the attribute state that
        may change between calls), and the calls registering a buffer/parameter of such a name."""
        wanted = frozenset(names)
        found: list[ast.AST] = []
        anywhere = isinstance(self.node, FUNCTIONS) and self.node.name != "__init__"
        for node in self.of(ast.Assign, ast.AnnAssign, ast.AugAssign):
            if node.value is None or not (anywhere or isinstance(node.value, (ast.Call, *_CONTAINER_LITERALS))):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(is_self_attribute(t) and t.attr in wanted for t in targets):
                found.append(node.value)
        for call in self.calls(("register_buffer", "register_parameter")):
            name = call.args[0] if call.args else None
            if not isinstance(name, ast.Constant) or name.value in wanted:
                found.append(call)
        return found

    # -- words --------------------------------------------------------------------------------
    @cached_property
    def words(self) -> frozenset[str]:
        """Identifiers, attribute names, keywords of arguments and imported names it spells."""
        found: set[str] = {node.id for node in self.of(ast.Name)}
        found.update(node.attr for node in self.of(ast.Attribute))
        found.update(node.arg for node in self.of(ast.keyword) if node.arg)
        for node in self.of(ast.alias):
            found.update(node.name.split("."))
        return frozenset(found)

    @cached_property
    def string_words(self) -> frozenset[str]:
        """:attr:`words` and the words inside its string constants."""
        found = set(self.words)
        for node in self.of(ast.Constant):
            if isinstance(node.value, str):
                found.update(_WORD.findall(node.value))
        return frozenset(found)

    # -- bindings -----------------------------------------------------------------------------
    @cached_property
    def _bindings(self) -> list[tuple[list[str], ast.AST]]:
        """(names bound, the expression their value comes from) for every binding in the function."""
        out: list[tuple[list[str], ast.AST]] = []
        for node in self.of(ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
                            ast.comprehension):
            if isinstance(node, ast.Assign):
                out.append(([n for t in node.targets for n in assigned_targets(t)], node.value))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                out.append((list(assigned_targets(node.target)), node.value))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                out.append((list(assigned_targets(node.target)), node.iter))
        return out

    @cached_property
    def _bound(self) -> frozenset[str]:
        """Every name the function binds (a name it does not bind is read from the module)."""
        found = {n.id for n in self.of(ast.Name) if not isinstance(n.ctx, ast.Load)}
        found.update(node.arg for node in self.of(ast.arg))
        return frozenset(found)

    def _closure(self, seed: frozenset[str], test: Callable[[ast.AST], bool], attribute: str) -> frozenset[str]:
        """``seed`` and the names bound (transitively) from an expression ``test`` accepts; the
        names found so far live in ``attribute`` while ``test`` runs."""
        setattr(self, attribute, seed)
        changed = True
        while changed:
            changed = False
            for bound, value in self._bindings:
                names = getattr(self, attribute)
                if not set(bound) <= names and (
                    test(value) or isinstance(value, (ast.Tuple, ast.List)) and any(test(e) for e in value.elts)
                ):
                    setattr(self, attribute, names | set(bound))
                    changed = True
        return getattr(self, attribute)

    def _global(self, name: str, kind: str) -> bool:
        module = self.module
        return module is not None and name not in self._bound and name in getattr(module, kind)

    # -- tensors ------------------------------------------------------------------------------
    @cached_property
    def tensor_names(self) -> frozenset[str]:
        """Names that may hold a tensor or a tuple of tensors."""
        seed: set[str] = set()
        imported = self.index.imported
        # outside functions no evidence is read (the module's and classes' own code)
        evidence = self.module is not None
        for node in self.of(ast.arg, ast.AnnAssign, ast.Attribute, ast.Call, ast.Subscript):
            if isinstance(node, ast.arg) and node.annotation is not None and _may_annotate_tensor(
                node.annotation, self.index
            ):
                seed.add(node.arg)
            elif isinstance(node, ast.AnnAssign) and _may_annotate_tensor(node.annotation, self.index):
                seed.update(assigned_targets(node.target))
            elif not evidence:
                continue
            elif isinstance(node, ast.Attribute) and node.attr in _EVIDENCE_ATTRIBUTES:
                seed.update(_evidence_name(node.value, imported))
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and (
                    func.attr in _EVIDENCE_METHODS or any(k.arg in DIM_KEYWORDS for k in node.keywords)
                ):
                    seed.update(_evidence_name(func.value, imported))
                if node.args and (self._narrows_to_tensor(node) or self._feeds_tensor(func)):
                    seed.update(_evidence_name(node.args[0], imported))
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                if isinstance(node.slice, ast.Compare) or (  # x[x > 0], rois[:, 0]
                    isinstance(node.slice, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.slice.elts)
                ):
                    seed.update(_evidence_name(node.value, imported))
        return self._closure(frozenset(seed), self._tensor, "_tensor_names")

    def _feeds_tensor(self, func: ast.AST) -> bool:
        """``torch.relu(x)``, ``F.linear(x, w)``, ``self.conv(x)``: a call whose first argument
        the evidence takes for a tensor."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            return func.attr in self.layers  # a layer of the module
        for qualified in self.index.qualified(func):
            last = qualified.rsplit(".", 1)[-1]
            if qualified.startswith("torch.nn.functional.") or (
                qualified.startswith("torch.") and qualified.count(".") == 1 and last not in NOT_TENSOR_FIRST
                and not last[:1].isupper() and not last.startswith(("is_", "_", "set_", "get_"))
            ):
                return True
        return False

    @staticmethod
    def _narrows_to_tensor(call: ast.Call) -> bool:
        """``isinstance(x, torch.Tensor)``: the branch it guards sees a tensor."""
        if callee_name(call) != "isinstance" or not isinstance(call.func, ast.Name) or len(call.args) != 2:
            return False
        spelled = ast.unparse(call.args[1])
        return "Tensor" in spelled or "Parameter" in spelled

    def may_be_tensor(self, node: ast.AST | None) -> bool:
        """Whether the facts may make ``node`` a tensor, a mask or a tuple of tensors."""
        self.tensor_names  # noqa: B018 - the names first
        return self._tensor(node)

    def _tensor(self, node: ast.AST | None) -> bool:
        # while the names are being found: reads them as found so far
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self._tensor_names or self._global(node.id, "tensor_names")
        if isinstance(node, ast.Call):
            return self._call_may_be_tensor(node)
        if isinstance(node, ast.Subscript):
            return self._tensor(node.value)
        if isinstance(node, ast.Attribute):
            # a registered buffer or parameter of the class (zlint.facts.modules) is a tensor
            return (node.attr in TENSOR_VIEW_ATTRIBUTES and self._tensor(node.value)) or (
                is_self_attribute(node) and node.attr in self.registered
            )
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ast.MatMult) or self._tensor(node.left) or self._tensor(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._tensor(node.operand)
        if isinstance(node, ast.IfExp):
            return self._tensor(node.body) or self._tensor(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self._tensor(node.value)
        if isinstance(node, ast.Compare):  # x > 0 on a tensor: a mask
            return all(isinstance(op, ELEMENTWISE_COMPARISONS) for op in node.ops) and any(
                self._tensor(o) for o in (node.left, *node.comparators)
            )
        return False

    def _call_may_be_tensor(self, node: ast.Call) -> bool:
        func = node.func
        if isinstance(func, ast.Call):
            return True  # nn.Linear(a, b)(x)
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        if isinstance(func, ast.Attribute):
            if func.attr in _SIZE_METHODS:
                return False  # a size, a shape or a rank, whatever the receiver
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                # a layer or submodule, or a helper method that may return a tensor
                owners = [c for c in self.classes if func.attr in self.index.methods.get(c, ())]
                return func.attr in self.layers or any(self.index.returns(c, func.attr, "tensor") for c in owners)
        qualified = self.index.qualified(func)
        if qualified:  # torch.relu(x), F.pad(x): only torch gives tensors
            return any(_torch_tensor_function(q) for q in qualified)
        if isinstance(func, ast.Name):
            return func.id in self.index.functions and self.index.returns(None, func.id, "tensor")
        method = func.attr
        if method in NON_TENSOR_RESULT_METHODS and method not in _SPLITS:
            return False
        if method in TENSOR_ONLY_METHODS or any(k.arg in DIM_KEYWORDS for k in node.keywords):
            return True  # only a tensor has it: (coords == -1).all(dim=-1)
        return not method.startswith("is_") and self._tensor(func.value)

    @cached_property
    def mask_names(self) -> frozenset[str]:
        """Names that may hold a bool tensor."""
        seed = {
            node.arg for node in self.of(ast.arg)
            if node.annotation is not None
            and "BoolTensor" in ast.unparse(node.annotation)
        }
        self.tensor_names  # noqa: B018 - masks are tensors: computed first
        return self._closure(frozenset(seed), self._mask, "_mask_names")

    def _mask(self, node: ast.AST | None) -> bool:
        # while the names are being found: reads them as found so far
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self._mask_names or self._global(node.id, "mask_names")
        if isinstance(node, ast.Compare):
            return self._tensor(node)
        if isinstance(node, ast.Call):
            if not self._call_may_be_tensor(node):
                return False
            name = callee_name(node)
            if name in MASK_METHODS or name in {"any", "all"} or self._requests_bool(node):
                return True
            # `.to(...)`: a move keeps a mask a mask (the facts tell a move from a dtype change)
            if (name in MASK_PRESERVING_METHODS or name == "to") and isinstance(node.func, ast.Attribute):
                receiver = node.func.value
                # (ids == tok).unsqueeze(-1): only a tensor has the method, so the comparison is a mask
                return self._mask(receiver) or (name in TENSOR_ONLY_METHODS and _elementwise(receiver))
            return False
        if isinstance(node, ast.Subscript):
            return self._mask(node.value)
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and (
                self._mask(node.left) or self._mask(node.right)
            )
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._mask(node.operand)
        if isinstance(node, ast.NamedExpr):
            return self._mask(node.value)
        return False

    def _requests_bool(self, node: ast.Call) -> bool:
        """``dtype=torch.bool``, ``.to(torch.bool)``, ``"bool"``."""
        for arg in call_arguments(node):
            if isinstance(arg, ast.Constant) and arg.value == "bool":
                return True
            if "torch.bool" in self.index.qualified(arg):
                return True
        return False

    # -- sizes --------------------------------------------------------------------------------
    @cached_property
    def size_names(self) -> frozenset[str]:
        """Names that may hold a size, a shape or a comparison of one."""
        if not self.may_hold_size:
            return frozenset()
        self.tensor_names  # noqa: B018 - len(t) of a tensor is a size: computed first
        return self._closure(frozenset(), self._size, "_size_names")

    @cached_property
    def may_hold_size(self) -> bool:
        """Whether any size source occurs at all (``.shape``, ``.size()``, ``len()``, a helper,
        a module-level size...): most functions have none, and then no name holds a size."""
        if not _SIZE_SOURCE_WORDS.isdisjoint(self.words):
            return True
        index = self.index
        for call in self.of(ast.Call):
            func = call.func
            if isinstance(func, ast.Name) and (func.id in index.functions or func.id in index.imported):
                return True
            if isinstance(func, ast.Attribute) and (
                isinstance(func.value, ast.Name) and func.value.id == "self"
                and any(func.attr in index.methods.get(c, ()) for c in self.classes)
                or index.qualified(func)
            ):
                return True
        module = self.module
        return module is not None and not module.size_names.isdisjoint(self.words)

    def may_be_size(self, node: ast.AST | None) -> bool:
        """Whether the facts may make ``node`` a size, a shape or a comparison of a size."""
        self.size_names  # noqa: B018 - the names first
        return self._size(node)

    def _size(self, node: ast.AST | None) -> bool:
        # while the names are being found: reads them as found so far
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self._size_names or self._global(node.id, "size_names")
        if not self.may_hold_size:
            return False
        if isinstance(node, ast.Attribute):
            return node.attr == "shape"
        if isinstance(node, ast.Call):
            return self._call_may_be_size(node)
        if isinstance(node, (ast.Subscript, ast.NamedExpr)):
            return self._size(node.value)
        if isinstance(node, ast.BinOp):
            return self._size(node.left) or self._size(node.right)
        if isinstance(node, ast.UnaryOp):
            return self._size(node.operand)
        if isinstance(node, ast.IfExp):
            return self._size(node.body) or self._size(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self._size(e) for e in node.elts)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):  # [b.size(0) for b in boxes]
            return self._size(node.elt)
        if isinstance(node, ast.Compare):  # n > 1, n in (0, 1): not `n is None`
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                left, right = operands[i], operands[i + 1]
                if isinstance(op, ELEMENTWISE_COMPARISONS) and (self._size(left) or self._size(right)):
                    return True
                if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and (
                    self._size(left)
                ):
                    return True
            return False
        if isinstance(node, ast.BoolOp):
            return any(self._size(v) for v in node.values)
        if isinstance(node, ast.Starred):
            return self._size(node.value)
        return False

    def _call_may_be_size(self, node: ast.Call) -> bool:
        func = node.func
        args = node.args
        if isinstance(func, ast.Attribute):
            if func.attr in {"size", "numel", "nelement"}:
                return True
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                return any(
                    func.attr in self.index.methods.get(c, ()) and self.index.returns(c, func.attr, "size")
                    for c in self.classes
                )
        if isinstance(func, ast.Name):
            if func.id == "len":  # of a tensor: a size; of a parameter's shape: a static size
                return bool(args) and (self._tensor(args[0]) or static_shape(args[0]) or (
                    not (isinstance(args[0], ast.Attribute) and args[0].attr == "shape") and self._size(args[0])
                ))
            if func.id in {"any", "all", "sum"}:  # of sizes: any(pad), sum(b.size(0) for b in boxes)
                return bool(args) and self._size(args[0])
            if func.id in {"int", "round", "abs", "min", "max"}:
                return any(self._size(a) for a in args)
            if func.id in self.index.functions:
                return self.index.returns(None, func.id, "size")  # a helper returning a size
        for qualified in self.index.qualified(func):
            last = qualified.rsplit(".", 1)[-1]
            if last == "numel" or last.startswith("sym_") or qualified.startswith("math."):
                return last == "numel" or any(self._size(a) for a in args)
        return False

    @cached_property
    def predicate_names(self) -> frozenset[str]:
        """Names that may hold a comparison of a size (``small = n < 2``)."""
        self.size_names  # noqa: B018
        return self._closure(frozenset(), self._predicate, "_predicate_names")

    def _predicate(self, node: ast.AST | None) -> bool:
        # while the names are being found: reads them as found so far
        if isinstance(node, ast.Name):
            return node.id in self._predicate_names or self._global(node.id, "predicate_names")
        if isinstance(node, ast.Compare):
            return self._size(node)
        if isinstance(node, ast.BoolOp):
            return any(self._predicate(v) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            return self._predicate(node.operand)
        if isinstance(node, ast.IfExp):
            return self._predicate(node.body) or self._predicate(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self._predicate(node.value)
        if isinstance(node, ast.Call) and callee_name(node) in {"any", "all"}:
            return self._size(node)
        return False

    def returns_may(self, kind: str) -> bool:
        """Whether a ``return`` of this function (nested scopes excepted) may give ``kind``."""
        test = self.may_be_tensor if kind == "tensor" else self.may_be_size
        self.size_names  # noqa: B018 - the names first (tensors too)
        return any(test(value) for value in own_returns(self.node))

    def calls(self, names: Iterable[str] | None = None) -> Iterator[ast.Call]:
        """The calls in the function (of a callee whose last name is in ``names``)."""
        wanted = None if names is None else frozenset(names)
        for node in self.of(ast.Call):
            if wanted is None or callee_name(node) in wanted:
                yield node


def _elementwise(node: ast.AST) -> bool:
    """A comparison that is elementwise on a tensor (``a == b``, not ``a is b`` or ``a in b``)."""
    return isinstance(node, ast.Compare) and all(isinstance(op, ELEMENTWISE_COMPARISONS) for op in node.ops)


def literal_number(node: ast.AST) -> int | float | None:
    """The value of an int or float literal, signed (as :func:`zlint.facts.literals.number_literal`)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sign * node.value
    return None


def _evidence_name(node: ast.AST, imported: dict[str, set[str]]) -> list[str]:
    """``node`` as a name that evidence can make a tensor (not ``self``, not a module)."""
    if isinstance(node, ast.Name) and node.id not in {"self", "cls"} and node.id not in imported:
        return [node.id]
    return []


def _may_annotate_tensor(annotation: ast.AST, index: ModuleIndex) -> bool:
    """An annotation that may name a tensor type (``Tensor``, ``Optional[torch.FloatTensor]``,
    ``nn.Parameter``, ``"torch.Tensor"``, an alias of one): any other annotation is evidence
    against a tensor (:mod:`zlint.facts.size_facts`)."""
    for node in ast.walk(annotation):
        spelled: set[str] = set()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            spelled.add(node.value)
        elif isinstance(node, (ast.Name, ast.Attribute)):
            spelled.add(dotted_path(node) or "")
            spelled.update(index.qualified(node))
        if any("Tensor" in name or "Parameter" in name for name in spelled):
            return True
    return False


def _torch_tensor_function(qualified: str) -> bool:
    """``torch.<...>`` that the facts may take for a tensor-returning call (conservatively)."""
    if not qualified.startswith("torch."):
        return False
    last = qualified.rsplit(".", 1)[-1]
    if last in _SPLITS and qualified.count(".") == 1:
        return True
    if last in NON_TENSOR_TORCH or last[:1].isupper() or qualified.startswith("torch._"):
        return False
    return returns_tensor(qualified)
