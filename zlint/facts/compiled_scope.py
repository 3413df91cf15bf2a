"""Which code in a file is compiled, and which names hold compiled callables.

Computed once per file, lazily, from the already-parsed module: a cheap walk over statements
(not expressions) finds every ``torch.compile`` site — a decorator, a ``torch.compile(f)`` call,
an in-place ``model.compile()`` — and the functions they compile. Only when a file has such a
site do we look inside the compiled functions' bodies to follow calls to ``self.method(...)``,
module-level helpers and submodules (``self.encoder(...)`` with ``self.encoder = Encoder()``)
defined in the same file. Together these form the *compiled scope*.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import libcst as cst

from zlint.cst.batched import visit
from zlint.facts.imports import ImportMap, dotted_name

COMPILE_FUNCTIONS = frozenset({"torch.compile"})
# Keyword arguments of nn.Module.compile(); anything else (optimizer=, loss=) is another library.
_MODULE_COMPILE_KEYWORDS = frozenset({"fullgraph", "dynamic", "backend", "mode", "options", "disable"})


class Dynamic(enum.Enum):
    """What ``dynamic=`` says at a compile site."""

    UNSET = "unset"
    TRUE = "True"
    FALSE = "False"
    OTHER = "other"  # None or an expression: not known statically


@dataclass
class CompileSite:
    """One place a callable gets compiled."""

    node: cst.CSTNode  # the compile call or the decorator
    dynamic: Dynamic
    dynamic_arg: cst.Arg | None
    #: dotted names that hold the compiled callable afterwards (``model``, ``self.model``)
    bound_to: tuple[str, ...] = ()
    #: qualified name of the function/class whose body binds them ("" for the module)
    owner: str = ""
    #: qualified names of the functions it compiles, when known (``Net.forward``, ``step``)
    roots: tuple[str, ...] = ()


@dataclass
class CompiledScope:
    """The compiled functions of one file and the names bound to compiled callables."""

    functions: frozenset[str] = frozenset()
    sites: tuple[CompileSite, ...] = ()
    #: qualified name -> FunctionDef of every function in the file
    defs: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: the local name of the ``torch`` module, if the file binds one (``torch``, ``T``)
    torch_name: str | None = None

    def contains(self, qualname: str | None) -> bool:
        """True when ``qualname`` (``Net.forward``, ``step.inner``) is compiled code."""
        if not qualname or not self.functions:
            return False
        parts = qualname.split(".")
        return any(".".join(parts[:i]) in self.functions for i in range(1, len(parts) + 1))

    def site_for_call(self, func: cst.BaseExpression, qualname: str | None) -> CompileSite | None:
        """The compile site whose callable ``func`` (the callee of a call in ``qualname``) names."""
        name = dotted_name(func)
        if name is None or not self.sites:
            return None
        here = qualname or ""
        for site in self.sites:
            if name in site.bound_to and _visible(site.owner, here):
                return site
        return None

    def root_function(self, site: CompileSite) -> cst.FunctionDef | None:
        """The one function a site compiles (a decorated function, a module's forward)."""
        if len(site.roots) != 1:
            return None
        return self.defs.get(site.roots[0])


def _visible(owner: str, here: str) -> bool:
    """A name bound in ``owner`` is visible in ``here`` (the same or a nested scope)."""
    return not owner or here == owner or here.startswith(owner + ".")


def _dynamic_of(call: cst.Call) -> tuple[Dynamic, cst.Arg | None]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dynamic":
            value = arg.value
            if isinstance(value, cst.Name) and value.value in ("True", "False"):
                return (Dynamic.TRUE if value.value == "True" else Dynamic.FALSE), arg
            return Dynamic.OTHER, arg
    return Dynamic.UNSET, None


def _first_positional(call: cst.Call) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "model":
            return arg.value
    return None


class _Collector:
    """The statement walk: definitions, instances, compile sites. No expression traversal."""

    def __init__(self) -> None:
        self.imports = ImportMap()
        self.defs: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, str] = {}  # simple class name -> qualified name
        self.methods: dict[str, set[str]] = {}  # class qualname -> method names
        #: (owner, dotted name) -> class simple name, from `x = Cls(...)` / `self.x = Cls(...)`
        self.instances: dict[tuple[str, str], str] = {}
        self.sites: list[tuple[CompileSite, cst.BaseExpression | None, str]] = []
        self.torch_name: str | None = None

    def is_compile(self, func: cst.BaseExpression) -> bool:
        return self.imports.qualify(func) in COMPILE_FUNCTIONS

    def walk(self, body: object, scope: list[str], classes: list[str]) -> None:
        for stmt in body:  # type: ignore[attr-defined]
            self.statement(stmt, scope, classes)

    def statement(self, stmt: cst.CSTNode, scope: list[str], classes: list[str]) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small(small, scope, classes)
        elif isinstance(stmt, cst.FunctionDef):
            qual = ".".join([*scope, stmt.name.value])
            self.defs[qual] = stmt
            if scope and scope[-1] in self.methods:
                self.methods[scope[-1]].add(stmt.name.value)
            for decorator in stmt.decorators:
                self.decorator(decorator, stmt, scope, classes)
            self.walk(stmt.body.body, [*scope, stmt.name.value], classes)
        elif isinstance(stmt, cst.ClassDef):
            qual = ".".join([*scope, stmt.name.value])
            self.classes.setdefault(stmt.name.value, qual)
            self.methods.setdefault(qual, set())
            self.walk(stmt.body.body, [*scope, stmt.name.value], [*classes, qual])
        else:
            for child in _child_suites(stmt):
                self.walk(child, scope, classes)

    def decorator(self, decorator: cst.Decorator, func: cst.FunctionDef, scope: list[str], classes: list[str]) -> None:
        expr = decorator.decorator
        call = expr if isinstance(expr, cst.Call) else None
        if not self.is_compile(call.func if call else expr):
            return
        dynamic, arg = _dynamic_of(call) if call else (Dynamic.UNSET, None)
        owner = ".".join(scope)
        names = [func.name.value]
        if scope and classes and owner == classes[-1]:
            names = [f"self.{func.name.value}"]
        qual = ".".join([*scope, func.name.value])
        site = CompileSite(decorator, dynamic, arg, tuple(names), owner, (qual,))
        self.sites.append((site, None, owner))

    def small(self, small: cst.BaseSmallStatement, scope: list[str], classes: list[str]) -> None:
        if isinstance(small, cst.Import):
            self.imports.add_import(small)
            for alias in small.names:
                full = dotted_name(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    if full == "torch":
                        self.torch_name = alias.asname.name.value
                elif full is not None and full.split(".")[0] == "torch":
                    self.torch_name = self.torch_name or "torch"
            return
        if isinstance(small, cst.ImportFrom):
            self.imports.add_import_from(small)
            return
        owner = ".".join(scope)
        if isinstance(small, cst.Assign):
            targets = [dotted_name(t.target) for t in small.targets]
            self.value(small.value, [t for t in targets if t], owner, classes)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target = dotted_name(small.target)
            self.value(small.value, [target] if target else [], owner, classes)
        elif isinstance(small, (cst.Expr, cst.Return)) and small.value is not None:
            self.value(small.value, [], owner, classes, statement=isinstance(small, cst.Expr))

    def value(
        self, value: cst.BaseExpression, targets: list[str], owner: str, classes: list[str], statement: bool = False
    ) -> None:
        if not isinstance(value, cst.Call):
            return
        name_owner = lambda t: classes[-1] if t.startswith("self.") and classes else owner  # noqa: E731
        if self.is_compile(value.func):
            dynamic, arg = _dynamic_of(value)
            bound = tuple(targets)
            owners = {name_owner(t) for t in bound} or {owner}
            site = CompileSite(value, dynamic, arg, bound, owners.pop() if len(owners) == 1 else owner)
            self.sites.append((site, _first_positional(value), owner))
            return
        if isinstance(value.func, cst.Call) and self.is_compile(value.func.func):
            dynamic, arg = _dynamic_of(value.func)
            site = CompileSite(value.func, dynamic, arg, (), owner)
            self.sites.append((site, _first_positional(value.func), owner))
            return
        func = value.func
        if (
            statement
            and isinstance(func, cst.Attribute)
            and func.attr.value == "compile"
            and self.imports.qualify(func) is None
            and all(a.keyword is not None and a.keyword.value in _MODULE_COMPILE_KEYWORDS for a in value.args)
        ):
            receiver = dotted_name(func.value)
            if receiver is not None:  # nn.Module.compile(): compiles the module in place
                dynamic, arg = _dynamic_of(value)
                site = CompileSite(value, dynamic, arg, (receiver,), name_owner(receiver))
                self.sites.append((site, func.value, owner))
            return
        callee = dotted_name(func)
        if callee is not None and callee.split(".")[-1][:1].isupper():
            for target in targets:
                self.instances[(name_owner(target), target)] = callee.split(".")[-1]


def _child_suites(stmt: cst.CSTNode) -> list:
    """The statement lists nested in a compound statement (if/for/while/with/try/match)."""
    out: list = []
    for attr in ("body", "orelse", "finalbody"):
        child = getattr(stmt, attr, None)
        if isinstance(child, cst.BaseSuite):
            out.append(child.body if isinstance(child, cst.IndentedBlock) else ())
        elif isinstance(child, (cst.Else, cst.Finally)):
            out.append(child.body.body if isinstance(child.body, cst.IndentedBlock) else ())
        elif isinstance(child, cst.If):  # elif
            out.append((child,))
    for handler in getattr(stmt, "handlers", ()) or ():
        if isinstance(handler.body, cst.IndentedBlock):
            out.append(handler.body.body)
    for case in getattr(stmt, "cases", ()) or ():
        if isinstance(case.body, cst.IndentedBlock):
            out.append(case.body.body)
    return out


class _Calls(cst.CSTVisitor):
    """Callees of one function body: ``self.name(...)``/``self.name.forward(...)`` and ``name(...)``."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func)
        if name is not None:
            self.names.add(name.removesuffix(".forward"))


def compute_compiled_scope(module: cst.Module) -> CompiledScope:
    """The compiled scope of one parsed module."""
    collector = _Collector()
    collector.walk(module.body, [], [])
    if not collector.sites:
        return CompiledScope(defs=collector.defs, torch_name=collector.torch_name)

    def forward_of(class_name: str) -> str | None:
        qual = collector.classes.get(class_name)
        if qual and "forward" in collector.methods.get(qual, ()):
            return f"{qual}.forward"
        return None

    def instance_class(owner: str, name: str) -> str | None:
        parts = owner.split(".") if owner else []
        for i in range(len(parts), -1, -1):
            found = collector.instances.get((".".join(parts[:i]), name))
            if found:
                return found
        if name.startswith("self."):  # `self.x = Cls()` in another method of the same class
            for (own, dotted), cls in collector.instances.items():
                if dotted == name and (not owner or owner.startswith(own)):
                    return cls
        return None

    def resolve(expr: cst.BaseExpression | None, owner: str) -> tuple[str, ...]:
        if expr is None:
            return ()
        if isinstance(expr, cst.Call):  # torch.compile(Net(...))
            callee = dotted_name(expr.func)
            found = forward_of(callee.split(".")[-1]) if callee else None
            return (found,) if found else ()
        name = dotted_name(expr)
        return resolve_name(name, owner) if name else ()

    def resolve_name(name: str, owner: str) -> tuple[str, ...]:
        parts = owner.split(".") if owner else []
        if "." not in name:
            for i in range(len(parts), -1, -1):  # a function visible from here (class bodies are not scopes)
                scope = ".".join(parts[:i])
                if scope in collector.methods and i < len(parts):
                    continue
                qual = f"{scope}.{name}" if scope else name
                if qual in collector.defs:
                    return (qual,)
        head, _, attr = name.rpartition(".")
        if head == "self" and parts:
            for i in range(len(parts) - 1, 0, -1):  # self.method of the enclosing class
                qual = ".".join([*parts[:i], attr])
                if qual in collector.defs:
                    return (qual,)
        if head and attr == "forward":
            name = head
        cls = instance_class(owner, name)
        if cls is None and name == "self" and parts:
            cls = parts[-2] if len(parts) >= 2 else None
        found = forward_of(cls) if cls else None
        return (found,) if found else ()

    sites: list[CompileSite] = []
    roots: set[str] = set()
    for site, target, owner in collector.sites:
        if not site.roots:
            site.roots = resolve(target, owner)
        roots.update(site.roots)
        sites.append(site)

    # Follow calls from compiled functions to functions and submodules of the same file.
    functions: set[str] = set()
    work = [r for r in roots if r in collector.defs]
    while work:
        qual = work.pop()
        if qual in functions:
            continue
        functions.add(qual)
        calls = _Calls()
        visit(collector.defs[qual].body, calls)  # zlint.cst.batched.visit
        for name in calls.names:
            work.extend(found for found in resolve_name(name, qual) if found not in functions)
    return CompiledScope(frozenset(functions), tuple(sites), collector.defs, collector.torch_name)
