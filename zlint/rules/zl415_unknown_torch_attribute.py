"""ZL415: ``torch.X``, ``torch.compiler.X``, ``torch._dynamo.X`` (and the dynamo/inductor config
keys) that do not exist in the target torch version: typos and invented APIs."""

from __future__ import annotations

import re

import libcst as cst

from zlint.rules.api import PLUGIN_ATTRIBUTES, dotted_name
from zlint.rules.compile_checks import TorchDataRule, did_you_mean, version_note

#: config namespaces: a store to an unknown key raises too, so stores are checked there
CONFIG_NAMESPACES = ("torch._dynamo.config", "torch._inductor.config")
_VERSIONISH = re.compile(r"^\d+\.\d+")


def _mentions_guard(node: cst.CSTNode) -> bool:
    """Does a condition test for the attribute's existence or the torch version?"""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            func = dotted_name(current.func) or ""
            if func in ("hasattr", "getattr") or "version" in func.lower() or "available" in func.lower():
                return True
        elif isinstance(current, cst.Name) and "version" in current.value.lower():
            return True
        elif isinstance(current, cst.Attribute) and "version" in current.attr.value.lower():
            return True
        elif isinstance(current, cst.SimpleString):
            value = current.evaluated_value
            if isinstance(value, str) and _VERSIONISH.match(value):
                return True
        stack.extend(current.children)
    return False


_CATCHES_MISSING = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _try_catches_missing(node: cst.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for kind in kinds:
            value = kind.value if isinstance(kind, cst.Element) else kind
            name = dotted_name(value) or ""
            if name.rsplit(".", 1)[-1] in _CATCHES_MISSING:
                return True
    return False


class UnknownTorchAttribute(TorchDataRule):
    code = "ZL415"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "unknown-torch-attribute"
    summary = "torch.*, torch.compiler.* or torch._dynamo.* attribute that the torch version lacks"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._guards = 0  # enclosing try blocks that catch a missing attribute
        #: enclosing conditions (an if/ternary test, the left side of `and`/`or`), scanned for a
        #: version or hasattr guard only when a finding is about to be reported: almost no file
        #: has one, and scanning every condition of every file cost more than the rule itself
        self._conditions: list[tuple[str, cst.CSTNode]] = []
        self._memo: dict[int, bool] = {}
        self._in_import = False
        self._stores: set[int] = set()

    # -- code that only runs when the attribute exists (or on another torch) --------------------

    def visit_If(self, node: cst.If) -> None:
        self._conditions.append(("test", node.test))

    def leave_If(self, original_node: cst.If) -> None:
        self._conditions.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._conditions.append(("test", node.test))

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._conditions.pop()

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._conditions.append(("left", node))

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        self._conditions.pop()

    def _guarded(self) -> bool:
        """Whether an enclosing try or condition makes this code run only where it is safe."""
        if self._guards:
            return True
        for kind, node in self._conditions:
            found = self._memo.get(id(node))
            if found is None:
                found = self._memo[id(node)] = (
                    _mentions_guard(node) if kind == "test" else self._left_guards(node)  # type: ignore[arg-type]
                )
            if found:
                return True
        return False

    def report(self, node, message, fix=None, tier=None) -> None:  # type: ignore[override]
        if not self._guarded():
            super().report(node, message, fix=fix, tier=tier)

    def _left_guards(self, node: cst.BooleanOperation) -> bool:
        """Whether the left side of ``a and b and c`` mentions a guard, memoized along the
        left spine: rescanning each nested left side made long chains quadratic."""
        memo = self.__dict__.setdefault("_bool_memo", {})
        key = id(node)
        if key not in memo:
            spine, current = [], node.left
            while isinstance(current, cst.BooleanOperation) and id(current) not in memo:
                spine.append(current)
                current = current.left
            acc = memo[id(current)] if isinstance(current, cst.BooleanOperation) else _mentions_guard(current)
            for op in reversed(spine):  # innermost first: each operand is scanned once
                acc = acc or _mentions_guard(op.right)
                memo[id(op)] = acc
            memo[key] = acc
        return memo[key]

    def visit_Try(self, node: cst.Try) -> None:
        self._guards += _try_catches_missing(node)

    def leave_Try(self, original_node: cst.Try) -> None:
        self._guards -= _try_catches_missing(original_node)

    # -- stores: monkeypatching torch.X is fine; an unknown config key raises -------------------

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._stores.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._stores.add(id(node.target))

    def visit_Del(self, node: cst.Del) -> None:
        self._stores.add(id(node.target))

    # -- the checks ------------------------------------------------------------------------------

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._in_import:
            return
        qualified = self.context.imports.qualify(node)
        if qualified is None or not qualified.startswith("torch."):
            return
        namespace, _, attr = qualified.rpartition(".")
        names = self.data.names.get(namespace)
        if names is None:
            self._check_nested_config(node, qualified)
            return
        if id(node) in self._stores and namespace not in CONFIG_NAMESPACES:
            return
        self._check(node.attr, namespace, attr)

    def _check_nested_config(self, node: cst.Attribute, qualified: str) -> None:
        """``torch._inductor.config.triton.cudagraphs``: check the dotted key."""
        prefix = "torch._inductor.config."
        if not qualified.startswith(prefix) or qualified.count(".") != prefix.count(".") + 1:
            return
        key = qualified[len(prefix):]
        group = key.split(".", 1)[0]
        options = self.data.inductor_options
        if not any(k.startswith(group + ".") for k in options) or key in options:
            return
        self.report(
            node.attr,
            f"`{qualified}` does not exist in {version_note(self.data)}: raises AttributeError"
            f"{did_you_mean(key, options)}",
        )

    def _check(self, node: cst.CSTNode, namespace: str, attr: str) -> None:
        names = self.data.names[namespace]
        if attr in names or (namespace == "torch" and attr in PLUGIN_ATTRIBUTES):
            return
        self.report(
            node,
            f"`{namespace}.{attr}` does not exist in {version_note(self.data)}: raises AttributeError; "
            + (did_you_mean(attr, names).strip(" ()") or "guard it with hasattr()"),
        )

    def leave_Import(self, original_node: cst.Import) -> None:
        self._in_import = False

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self._in_import = False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import = True
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        if module not in self.data.names:
            return
        for alias in node.names:
            if isinstance(alias.name, cst.Name):
                self._check(alias.name, module, alias.name.value)

    def visit_Import(self, node: cst.Import) -> None:
        self._in_import = True
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            parts = full.split(".")
            for depth in range(1, len(parts)):
                namespace = ".".join(parts[:depth])
                if namespace in self.data.names:
                    if parts[depth] not in self.data.names[namespace]:
                        self._check(alias.name, namespace, parts[depth])
                        break
