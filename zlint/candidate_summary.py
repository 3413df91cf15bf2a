"""What a function of a file can hold a finding from, decided on the ``ast``: the summaries the
rules' candidate declarations test (:class:`FunctionSummary`), one walk of each function.

Sizes, tensors and masks follow the function's names flow-insensitively, from the same sources
the shared facts use (:mod:`zlint.facts.size_facts`, the evidence of :mod:`zlint.facts.evidence`,
annotations, ``isinstance`` checks, module-level names and the return values of same-module
helpers), so that a new source of a fact is a new source here. :mod:`zlint.candidates` plans
what LibCST parses from them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from zlint.candidate_walk import (
    assigned_targets,
    call_arguments,
    callee_name,
    chain_head,
    condition_atoms,
    dotted_path,
    group,
    is_self_attribute,
    own_returns,
    static_shape,
)
from zlint.facts.evidence import (
    DIM_KEYWORDS,
    NOT_TENSOR_FIRST,
    NUMPY_SHARED_METHODS,
    SHAPED_ATTRIBUTES,
    TENSOR_ATTRIBUTES,
    TENSOR_METHODS,
)
from zlint.facts.size_facts import (
    MASK_PRESERVING_METHODS,
    NON_TENSOR_METHODS,
    NON_TENSOR_TORCH,
    TENSOR_ONLY_METHODS,
)
from zlint.facts.values import MASK_METHODS, returns_tensor

if TYPE_CHECKING:
    from zlint.settings import Settings

#: The attributes of a tensor that are tensors again (``x.T``, ``x.max(dim=1).values``).
TENSOR_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag", "values", "indices"})
#: Comparison operators that give an elementwise mask on a tensor (``is``/``in`` do not).
_ELEMENTWISE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: Uses of a name that the evidence (zlint.facts.evidence) takes for a tensor's.
_EVIDENCE_ATTRIBUTES = TENSOR_ATTRIBUTES | SHAPED_ATTRIBUTES
_EVIDENCE_METHODS = TENSOR_METHODS | NUMPY_SHARED_METHODS
#: Methods that give a size, a shape or a rank of any receiver.
_SIZE_METHODS = frozenset({"size", "numel", "nelement", "dim", "ndimension"})
#: Methods and torch functions that give a tuple of tensors.
_SPLITS = frozenset({"split", "chunk", "unbind", "tensor_split"})
#: Attributes, methods and builtins whose value is a size or a shape (the facts' sources).
_SIZE_SOURCE_WORDS = frozenset({"shape", "size", "numel", "nelement", "len"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Builtins that iterate their arguments (:data:`zlint.rules.zl202_tensor_iteration.ITERATING_BUILTINS`).
_ITERATING_BUILTINS = frozenset({"enumerate", "zip", "list", "tuple", "map", "reversed", "sorted", "iter", "set"})
#: Calls whose arguments the branch rules skip (:data:`zlint.rules.branching.SYMBOLIC_CHECKS`).
_SYMBOLIC_CHECKS = ("torch._check", "torch._assert", "torch.cond", "torch.sym_", "torch._dynamo")
#: Values the container facts (:func:`zlint.facts.values.container_attributes`) read as containers.
_CONTAINER_LITERALS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
_WORD = re.compile(r"\w+")

Predicate = Callable[["FunctionSummary", "Settings | None"], bool]


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
        self.helpers: dict[tuple[str | None, str], FunctionSummary] = {}
        self._returning: set[tuple[int, str]] = set()
        self._layers: dict[int, frozenset[str]] = {}

    def layers(self, cls: ast.ClassDef) -> frozenset[str]:
        """The ``self.<attr>`` a class assigns a call to, anywhere in its code: those that may
        hold a torch.nn layer or a submodule (filled by :func:`summarize`)."""
        return self._layers.get(id(cls), frozenset())

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


@dataclass
class Unit:
    """A function that is not nested in another function: the stage keeps or blanks these."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    #: the enclosing class definitions, outermost first
    classes: tuple[ast.ClassDef, ...]
    summary: FunctionSummary = field(init=False, repr=False)

    @property
    def first_line(self) -> int:
        return min([self.node.lineno, *(d.lineno for d in self.node.decorator_list)])


class FunctionSummary:
    """What one function's code can give a rule, over-approximated from its ``ast``.

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
        module: FunctionSummary | None = None,
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
    def self_reads(self) -> frozenset[str]:
        """The ``<attr>`` of every ``self.<attr>`` it spells: the only attributes whose class
        facts (:mod:`zlint.facts.modules`, containers) its facts can read."""
        return frozenset(node.attr for node in self.of(ast.Attribute) if is_self_attribute(node))

    def self_writes(self, names: Iterable[str]) -> list[ast.AST]:
        """The values it assigns to ``self.<attr>`` for an ``attr`` in ``names`` where a class's
        facts read them (a call: a layer, a parameter, a submodule, a container constructor; a
        container literal), and the calls registering a buffer/parameter of such a name."""
        wanted = frozenset(names)
        found: list[ast.AST] = []
        for node in self.of(ast.Assign, ast.AnnAssign):
            if not isinstance(node.value, (ast.Call, *_CONTAINER_LITERALS)):
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
                if isinstance(node.slice, ast.Compare):  # x[x > 0]
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
            return node.attr in TENSOR_VIEW_ATTRIBUTES and self._tensor(node.value)
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ast.MatMult) or self._tensor(node.left) or self._tensor(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._tensor(node.operand)
        if isinstance(node, ast.IfExp):
            return self._tensor(node.body) or self._tensor(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self._tensor(node.value)
        if isinstance(node, ast.Compare):  # x > 0 on a tensor: a mask
            return all(isinstance(op, _ELEMENTWISE) for op in node.ops) and any(
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
        if method in NON_TENSOR_METHODS and method not in _SPLITS:
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

    def may_be_mask(self, node: ast.AST | None) -> bool:
        """Whether the facts may make ``node`` a bool tensor (``x > 0``, ``m & n``, ``x.isnan()``)."""
        self.mask_names  # noqa: B018 - the names first
        return self._mask(node)

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
            return name in MASK_PRESERVING_METHODS and isinstance(node.func, ast.Attribute) and self._mask(
                node.func.value
            )
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
        if isinstance(node, ast.Compare):  # n > 1, n in (0, 1): not `n is None`
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                left, right = operands[i], operands[i + 1]
                if isinstance(op, _ELEMENTWISE) and (self._size(left) or self._size(right)):
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
            if func.id in {"any", "all"}:
                inner = args[0] if args else None
                return isinstance(inner, (ast.GeneratorExp, ast.ListComp)) and self._size(inner.elt)
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

    def may_be_predicate(self, node: ast.AST | None) -> bool:
        """Whether ``node`` may be a comparison of a size (a bool computed from one)."""
        self.predicate_names  # noqa: B018 - the names first
        return self._predicate(node)

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

    # -- where the rules look -----------------------------------------------------------------
    @cached_property
    def _conditions(self) -> tuple[list[ast.AST], list[ast.AST], list[ast.AST]]:
        """The atoms of the conditions that branch (``if``/``while``/ternaries/comprehension
        filters), of the ``if`` validations (whose body only raises) and of the ``assert``s."""
        branches: list[ast.AST] = []
        raising: list[ast.AST] = []
        asserts: list[ast.AST] = []
        for node in self.of(ast.If, ast.While, ast.IfExp, ast.Assert, ast.comprehension):
            if isinstance(node, ast.comprehension):
                for test in node.ifs:
                    branches.extend(condition_atoms(test))
            elif isinstance(node, ast.Assert):
                asserts.extend(condition_atoms(node.test))
            elif isinstance(node, ast.If) and all(isinstance(s, ast.Raise) for s in node.body):
                raising.extend(condition_atoms(node.test))
            else:
                branches.extend(condition_atoms(node.test))
        return branches, raising, asserts

    @cached_property
    def tests(self) -> list[ast.AST]:
        """The atoms of the conditions of ``if``/``while``/ternaries/comprehension filters/``assert``."""
        branches, raising, asserts = self._conditions
        return branches + raising + asserts

    @cached_property
    def sized_test(self) -> bool:
        """A condition may test a size."""
        self.size_names  # noqa: B018
        return any(self._size(atom) for atom in self.tests)

    @cached_property
    def sized_branch_test(self) -> bool:
        """A condition that branches (no validation) may test a size (ZL103)."""
        self.size_names  # noqa: B018
        return any(self._size(atom) for atom in self._conditions[0])

    @cached_property
    def sized_truth_test(self) -> bool:
        """A condition's atom may be a size tested for truth, not compared (``if n:``; ZL102)."""
        self.size_names  # noqa: B018
        return any(not isinstance(atom, ast.Compare) and self._size(atom) for atom in self.tests)

    @cached_property
    def sized_zero_test(self) -> bool:
        """A condition's atom may compare a size with a literal 0 or 1, once (``n > 0``; ZL104)."""
        self.size_names  # noqa: B018
        return any(
            isinstance(atom, ast.Compare) and len(atom.ops) == 1
            and any(_number(o) in (0, 1) for o in (atom.left, *atom.comparators)) and self._size(atom)
            for atom in self.tests
        )

    @cached_property
    def zero_one_comparison(self) -> bool:
        """A comparison in the function may be of a size with 0 or 1 (ZL101 reports at such a
        comparison, which sits where it is written: a literal 0, 1 or 2, or a size shifted by
        arithmetic), or the function reads a module-level size comparison."""
        self.size_names  # noqa: B018
        for node in self.of(ast.Compare):
            if _may_compare_with_zero_one(node) and self._size(node):
                return True
        module = self.module
        return module is not None and not (self.words - self._bound).isdisjoint(module.predicate_names)

    @cached_property
    def sized_predicate_argument(self) -> bool:
        """A call argument may be a size comparison (``torch.where(n > 1, ...)``), other than of
        a validation (``torch._check(n > 1)``, ``check_shape(...)``)."""
        self.predicate_names  # noqa: B018
        return any(
            self._predicate(arg) for call in self.calls() if not self._validates(call)
            for arg in call_arguments(call)
        )

    def _validates(self, call: ast.Call) -> bool:
        """``torch._check(...)``, ``_assert(...)``, ``self.assertEqual(...)``: the calls whose
        arguments the branch rules skip (:mod:`zlint.rules.branching`)."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name.lstrip("_").lower().startswith(("assert", "check")) or {"check", "assert"} & set(
            name.lower().split("_")
        ):
            return True
        qualified = self.index.qualified(func)
        return bool(qualified) and all(q.startswith(_SYMBOLIC_CHECKS) for q in qualified)

    def sized_argument(self, callees: Iterable[str], first: bool = False) -> bool:
        """A call of one of ``callees`` (last name) takes an argument (``first``: as its first
        positional argument) that may be a size."""
        self.size_names  # noqa: B018
        for call in self.calls(callees):
            args = call.args[:1] if first else call_arguments(call)
            if any(self._size(arg) for arg in args):
                return True
        return False

    @cached_property
    def sized_repeat(self) -> bool:
        """``[0] * n``: a list literal repeated a size times."""
        self.size_names  # noqa: B018
        return any(
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and any(
                isinstance(items, (ast.List, ast.Tuple)) and self._size(count)
                for items, count in ((node.left, node.right), (node.right, node.left))
            )
            for node in self.of(ast.BinOp)
        )

    @cached_property
    def sized_key(self) -> bool:
        """A size indexes, keys or is looked up in something (``cache[n]``, ``{n: v}``, ``n in seen``)."""
        self.size_names  # noqa: B018
        for node in self.of(ast.Subscript, ast.Dict, ast.Compare):
            if isinstance(node, ast.Subscript):
                index = node.slice
                if not isinstance(index, ast.Slice) and not (
                    isinstance(index, ast.Tuple) and any(isinstance(p, ast.Slice) for p in index.elts)
                ) and self._size(index):
                    return True
            elif isinstance(node, ast.Dict) and any(self._size(k) for k in node.keys if k is not None):
                return True
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(isinstance(op, (ast.In, ast.NotIn)) and self._size(operands[i])
                       for i, op in enumerate(node.ops)):
                    return True
        return self.sized_argument(("get", "setdefault", "pop", "__getitem__", "__contains__"), first=True)

    @cached_property
    def sized_format(self) -> bool:
        """A size formatted into a string (f-string, ``str()``, ``%``, ``.format()``)."""
        self.size_names  # noqa: B018
        for node in self.of(ast.FormattedValue, ast.BinOp):
            if isinstance(node, ast.FormattedValue) and self._size(node.value):
                return True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self._size(node.right):
                return True
        return self.sized_argument(("str", "repr", "format"))

    def sized_format_outside(self, quiet: Callable[[ast.AST], bool]) -> bool:
        """:attr:`sized_format` at a place no node on the way down is ``quiet`` about (a
        ``raise``, a log call, a message): a string the rule reports (ZL206)."""
        if not self.sized_format:
            return False
        todo: list[ast.AST] = [self.node]
        while todo:
            node = todo.pop()
            if quiet(node):
                continue
            if isinstance(node, ast.FormattedValue) and self._size(node.value):
                return True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_string(node.left) and (
                self._size(node.right)
            ):
                return True
            if isinstance(node, ast.Call) and (
                isinstance(node.func, ast.Name) and node.func.id in {"str", "repr"}
                or isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _is_string(node.func.value)
            ) and any(self._size(a) for a in call_arguments(node)):
                return True
            todo.extend(ast.iter_child_nodes(node))
        return False

    def tested_call(self, methods: frozenset[str]) -> bool:
        """A condition's atom (or an operand of one, or an item of one) is a call of one of
        ``methods``: ``if x.is_contiguous():``, ``if x.stride()[0] == 1:``."""
        for atom in self.tests:
            operands = [atom.left, *atom.comparators] if isinstance(atom, ast.Compare) else [atom]
            for operand in operands:
                if isinstance(operand, ast.Subscript):
                    operand = operand.value
                if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) and (
                    operand.func.attr in methods
                ):
                    return True
        return False

    @cached_property
    def tensor_test(self) -> bool:
        """A condition's atom other than an ``assert``'s may be a tensor (ZL303)."""
        self.tensor_names  # noqa: B018
        branches, raising, _ = self._conditions
        return any(self._tensor(atom) for atom in branches + raising)

    @cached_property
    def tensor_iteration(self) -> bool:
        """A loop or comprehension may run over a tensor, or an iterating builtin called by name
        may take one as a positional argument (its first but for ``map``) (ZL202)."""
        self.tensor_names  # noqa: B018
        for node in self.of(ast.For, ast.AsyncFor, ast.comprehension):
            if self._tensor(node.iter):
                return True
        for call in self.calls(_ITERATING_BUILTINS):
            if isinstance(call.func, ast.Name) and call.func.id in _ITERATING_BUILTINS:
                args = [a for a in call.args if not isinstance(a, ast.Starred)]
                if any(self._tensor(a) for a in (args[1:] if call.func.id == "map" else args)):
                    return True
        return False

    def data_dependent_call(self, names: frozenset[str], keep: Callable[[ast.Call], bool] | None = None) -> bool:
        """A call of one of ``names`` as a method or as a ``torch.<name>`` function (through
        aliases), that ``keep`` (if given) accepts: the calls a
        :class:`zlint.rules.data_dependent.CallRule` checks."""
        index = self.index
        for call in self.of(ast.Call):
            func = call.func
            spelled = {q[6:] for q in index.qualified(func) if q.startswith("torch.") and q.count(".") == 1}
            if isinstance(func, ast.Attribute):
                spelled.add(func.attr)
            if not spelled.isdisjoint(names) and (keep is None or keep(call)):
                return True
        return False

    def tensor_argument(self, callees: Iterable[str]) -> bool:
        """A call of one of ``callees`` (last name) takes an argument that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(self._tensor(arg) for call in self.calls(callees) for arg in call_arguments(call))

    def tensor_receiver(self, methods: Iterable[str]) -> bool:
        """``t.tolist()``: a call of one of ``methods`` on a receiver that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            isinstance(call.func, ast.Attribute) and self._tensor(call.func.value) for call in self.calls(methods)
        )

    @cached_property
    def tensor_slice_bound(self) -> bool:
        """``x[:t.max()]``: a slice bound that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            self._tensor(node.lower) or self._tensor(node.upper) for node in self.of(ast.Slice)
        )

    @cached_property
    def mask_index(self) -> bool:
        """``x[m]``: a subscript whose first index may be a bool tensor (ZL305)."""
        self.mask_names  # noqa: B018
        for node in self.of(ast.Subscript):
            if isinstance(node, ast.Subscript):
                index = node.slice
                first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
                if self._mask(first):
                    return True
        return False

    @cached_property
    def tensor_unpacked(self) -> bool:
        """``a, b = x``: a tuple target bound from a value that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
            and self._tensor(node.value)
            for node in self.of(ast.Assign)
        )

    # -- torch names --------------------------------------------------------------------------
    @cached_property
    def torch_names(self) -> frozenset[str]:
        """Every torch-qualified dotted name the function spells (each prefix of an attribute
        chain, and what its import statements name), resolved through any import of the file."""
        found: set[str] = set()
        for node in self.of(ast.Attribute, ast.ImportFrom, ast.Import):
            if isinstance(node, ast.Attribute):
                found.update(q for q in self.index.qualified(node) if q.startswith("torch."))
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    found.update(".".join(parts[: i + 1]) for i in range(1, len(parts)))
        return frozenset(found)


def _number(node: ast.AST) -> int | float | None:
    """The value of an int or float literal, signed (as :func:`zlint.facts.literals.number_literal`)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sign * node.value
    return None


def _may_compare_with_zero_one(node: ast.Compare) -> bool:
    """Whether the facts may find a size compared with 0 or 1 here (:mod:`zlint.facts.comparisons`):
    a literal 0, 1 or 2 (``n >= 2``), an arithmetic side (``n - 3 > 0``, ``n // 2 > 0``), or
    ``in`` a literal tuple holding 0 or 1."""
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        left, right = operands[i], operands[i + 1]
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, (ast.Tuple, ast.List, ast.Set)) and any(_number(e) in (0, 1) for e in right.elts):
                return True
        elif isinstance(op, _ELEMENTWISE):
            for mine, other in ((left, right), (right, left)):
                value = _number(other)
                if value is not None and (value in (0, 1, 2) or isinstance(mine, ast.BinOp)):
                    return True
    return False


def _is_string(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


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


def spells(words: frozenset[str], strings: bool = False) -> Predicate:
    """The candidate test of a rule that reports at a node spelling one of ``words`` (as an
    identifier; ``strings``: or inside a string, such as a config key)."""

    def test(summary: FunctionSummary, settings: Settings | None = None) -> bool:
        return not words.isdisjoint(summary.string_words if strings else summary.words)

    return test


def at_compile_sites(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """For rules that report only around a ``torch.compile`` site (a compile call, what it
    compiles, the loops calling it): no function is a candidate, since :func:`plan` parses a
    file that names ``compile`` in its code whole."""
    return False


def size_condition(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """A condition, or a bool passed to a call, that may test a size (the ZL1 rules)."""
    return summary.sized_test or summary.sized_predicate_argument


def size_compared_with_zero_or_one(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL101: a size condition, and a comparison that may be of a size with 0 or 1."""
    return size_condition(summary, settings) and summary.zero_one_comparison


def size_tested_for_truth(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL102: a condition's atom that may be a size itself."""
    return summary.sized_truth_test


def size_branch(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL103: a branch (no validation), or a bool passed to a call, that may test a size."""
    return summary.sized_branch_test or summary.sized_predicate_argument


def size_zero_test(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL104: a condition's atom that may be a size, or a size compared once with 0 or 1."""
    return summary.sized_truth_test or summary.sized_zero_test
