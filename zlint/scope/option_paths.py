"""What a file says about its modules' default configuration, for the run-wide reading
(:mod:`zlint.scope.defaults`): one ``ast`` pass (:func:`record_defaults`) into the file summary.

Dynamo guards a module's attributes as constants: with ``self.use_tiling = False`` set in
``__init__``, the body of ``if self.use_tiling and ...:`` is not traced unless a user opts in.
Whether a test is decided under the default configuration depends on values that flow across the
run (a parameter is what every call passes; ``self.x = config.y`` is the configuration class's
default), so this pass decides nothing: it writes each value as a small JSON-able tree over its
inputs, which the run-wide reading evaluates once every file is in:

* ``0``: unknown; ``["l", v]`` a literal (None, bool, number, string); ``["t", [v, ...]]`` a
  tuple or list of literals; ``["n"]`` some object that is not None; ``["k", {name: tree}]``
  keyword arguments known one by one (``dict(a=1)``, a dict display);
* ``["p", name]`` a parameter of the function; ``["a", name]`` an attribute of ``self``;
  ``["s"]`` ``self``; ``["g", tree, name]`` / ``["g", tree, name, default]`` an attribute of
  an object (``config.y``, ``getattr(config, "y", d)``); ``["o", dotted]`` what calling a class
  builds; ``["c", dotted, [args], {keywords}]`` a call of a helper of the run;
* ``["not", t]``, ``["and"|"or", [t, ...]]``, ``["cmp", op, a, b]``, ``["if", test, a, b]``,
  ``["neg", t]``, ``["bin", op, a, b]``.

Locals are replaced by their trees as the function's statements assign them (an ``if`` joins its
branches, a loop or ``try`` makes what it assigns unknown), so ``q = self.dropout and
self.training`` ... ``if q:`` is a test of ``self.dropout``. What is recorded:

* the *candidates* (:attr:`FileSummary.option_paths`): each ``if`` body and ``else``, each
  ``and``/``or`` operand after one that may decide it, each arm of a conditional expression, with
  its test's tree and the value that leaves it untaken;
* per function, its signature, the arguments of its calls (:attr:`FunctionInfo.call_args`), what a
  one-line helper returns, on which candidates each call and class reference lies, and the
  attributes it sets on other objects (``heads.keypoint_head = head``);
* per class, its class-level fields, what ``__init__`` and ``__post_init__`` leave in each
  attribute (and the arguments of their call of the base's), and the writes of its other methods;
* per file, the functions read as values (called where this reading cannot see), the classes
  handed on as values (``build_model_with_cfg(Sam, **kwargs)``) and the literals passed by keyword
  with them or put in dicts (``dict(use_rel_pos=True)``).

The statements' expressions are the nodes the summarizer walked already (:func:`record_defaults`).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Any

from zlint.core.ast_walk import walk
from zlint.scope.compile_state import dotted_with_super

# the file summary's records (zlint.scope.file_summary imports this module: no import back)
ClassInfo = FileSummary = FunctionInfo = Any

UNKNOWN = 0
# trees larger than this are unknown: a local rebuilt from itself in a long chain
_MAX_NODES = 40
# the kinds of tree whose value the run may know (a literal alone decides no configuration)
_LIVE = frozenset({"p", "a", "g", "c", "o", "s"})
_LEAVES = frozenset({"l", "p", "a", "n", "s", "o", "t"})  # trees of one node (``t``: literals only)
# methods that run inside the compiled call: their parameters are each caller's own
_CALLED_BY_TORCH = frozenset({"forward", "__call__"})
# methods whose parameters are configuration: their calls construct the object
_CONSTRUCTION = frozenset({"__init__", "__post_init__"})
_COMPARE = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_BINARY = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
}
BINARY_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "//": operator.floordiv, "%": operator.mod}
# callees that are no function of any run: builtins and the modules model code calls most
_NOT_RUN_CODE = frozenset({
    "len", "range", "isinstance", "issubclass", "getattr", "hasattr", "setattr", "print", "int", "float",
    "str", "bool", "list", "tuple", "dict", "set", "min", "max", "sum", "zip", "enumerate", "abs", "round",
    "any", "all", "sorted", "reversed", "map", "filter", "super", "type", "id", "iter", "next", "repr",
    "callable", "vars", "divmod", "pow", "frozenset", "format", "slice", "hash", "object",
})
_EXTERNAL_HEADS = frozenset({
    "torch", "numpy", "math", "einops", "functools", "itertools", "warnings", "logging", "os", "sys",
    "re", "typing", "collections", "copy", "inspect", "dataclasses", "json", "random", "operator",
})
# calls that set an attribute by name: a buffer, parameter or submodule registered under it too
_SETTERS = frozenset({"setattr", "register_buffer", "register_parameter", "add_module", "register_module"})
_DICT_WRITERS = frozenset({"update", "setdefault", "pop", "popitem", "clear"})  # on self.__dict__
_SCANNED = frozenset({ast.Name, ast.Attribute, ast.Call, ast.BoolOp, ast.IfExp, ast.Dict})
_BINDERS = frozenset({ast.Lambda, ast.comprehension})
#: the expression nodes this pass reads: what the summarizer keeps of its walk for it
READ_NODES = _SCANNED | _BINDERS


def live(tree: object) -> bool:
    """Whether the run may know ``tree``'s value from configuration (not unknown, not a bare literal)."""
    if type(tree) is not list:
        return False
    kind = tree[0]
    if kind in _LIVE:
        return True
    if kind in ("not", "neg"):
        return live(tree[1])
    if kind in ("and", "or"):
        return any(live(t) for t in tree[1])
    if kind in ("cmp", "bin"):
        return live(tree[2]) or live(tree[3])
    if kind == "if":
        return live(tree[1]) or live(tree[2]) or live(tree[3])
    return False


def _size(tree: object, budget: int = _MAX_NODES) -> int:
    """The nodes of ``tree`` (or of a list of trees), counted up to ``budget + 1``."""
    if type(tree) is not list:
        return 1
    count = 1
    for part in tree[1:] if tree and type(tree[0]) is str else tree:
        if type(part) is list:
            count += _size(part, budget - count)
        elif type(part) is dict:
            for value in part.values():
                count += _size(value, budget - count)
        if count > budget:
            break
    return count


def _sized(tree: object) -> object:
    return tree if type(tree) is not list or _size(tree) <= _MAX_NODES else UNKNOWN


def _literal(node: ast.expr) -> list | int:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.Constant) and (value is None or type(value) in (bool, int, float, str)):
        return ["l", value]
    if isinstance(node, ast.Constant):
        return ["n"]  # bytes, Ellipsis: an object
    return UNKNOWN


@dataclass
class _Frame:
    """What the walk knows inside one function."""

    qualname: str
    params: frozenset[str]  # parameters whose values are leaves (none for entry points)
    self_name: str | None
    env: dict[str, object] = field(default_factory=dict)  # local or "self.x" -> tree
    construction: bool = False  # __init__ / __post_init__: what it leaves in self.x is kept
    exits: list[dict[str, object]] = field(default_factory=list)  # env at each `return`
    open: list[int] = field(default_factory=list)  # candidates holding the current statement
    shadow: frozenset[str] = frozenset()  # names a lambda or comprehension of the statement binds
    super_call: list | None = None  # the arguments of its base's __init__/__post_init__ call
    super_callee: str = ""  # that call's callee as written (`super().__init__`, `Base.__init__`)
    after_super: set[str] = field(default_factory=set)  # attributes assigned after that call
    info: FunctionInfo | None = None
    plain: set[str] = field(default_factory=set)  # callees called off every candidate
    # the class method the code is in (nested functions too) and its self, for the class's writes
    owner: ClassInfo | None = None
    method: str = ""
    owner_self: str | None = None


class _Recorder:
    """One walk over a module's statements; fills the summary's default-configuration tables."""

    def __init__(self, summary: FileSummary, walked: dict[int, list[ast.AST]]) -> None:
        self.summary = summary
        self.walked = walked  # statement -> its own expressions' nodes, walked by the summarizer
        self.candidates: list[list] = summary.option_paths
        self.scope: list[str] = []
        self.classes: list[ClassInfo] = []
        self.value_names: set[str] = set()  # names read as values, not called (`fn=gelu`)
        self.foreign_writes: set[str] = set()  # attributes module-level code sets on other objects
        self.handed: set[str] = set()  # classes named as values: handed on, built unseen
        self.keywords: dict[str, set[tuple[str, object]]] = {}  # literal keyword arguments
        # the module's own functions and classes: objects, not None
        self.defined: set[str] = set()
        self.named: set[str] = set()  # the module's functions and imports: read as values, called unseen

    # statements ------------------------------------------------------------------------------

    def module(self, statements: list[ast.stmt]) -> None:
        frame = _Frame("", frozenset(), None)
        self.block(statements, frame)
        self.summary.class_refs = sorted(set(self.summary.class_refs))

    def block(self, statements: list[ast.stmt], frame: _Frame) -> str | None:
        """Walk ``statements``; what ends them for sure (``"raise"``, ``"return"``, ``"jump"``)."""
        ended = None
        for stmt in statements:
            end = self.statement(stmt, frame)
            ended = ended or end  # code after it still holds calls and references
        return ended

    def statement(self, stmt: ast.stmt, frame: _Frame) -> str | None:
        kind = type(stmt)
        if kind is ast.Assign:
            self.scan(stmt, frame)
            self.bind(stmt.targets, stmt.value, frame)
        elif kind is ast.Expr:
            self.scan(stmt, frame)
            if frame.construction:
                self.forget([stmt], frame)
                if isinstance(stmt.value, ast.Call):
                    self.base_call(stmt.value, frame)  # type: ignore[arg-type]
        elif kind is ast.If:
            return self.branch(stmt, frame)
        elif kind is ast.Return:
            self.scan(stmt, frame)
            if frame.construction:
                frame.exits.append(dict(frame.env))
            return "return"
        elif kind is ast.Raise:
            self.scan(stmt, frame)
            return "raise"
        elif kind in (ast.Continue, ast.Break):
            return "jump"
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.scan(stmt, frame)  # decorators and parameter defaults run here
            self.function(stmt, frame)  # type: ignore[arg-type]
            if frame.info is not None:  # a local of the function; at module level, a value
                frame.env[stmt.name] = UNKNOWN  # type: ignore[attr-defined]
        elif kind is ast.ClassDef:
            self.scan(stmt, frame)
            self.klass(stmt)  # type: ignore[arg-type]
            if frame.info is not None:
                frame.env[stmt.name] = UNKNOWN  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            self.scan(stmt, frame)
            if stmt.value is not None:  # type: ignore[attr-defined]
                self.bind([stmt.target], stmt.value, frame)  # type: ignore[attr-defined]
        elif kind in (ast.With, ast.AsyncWith):
            self.scan(stmt, frame)
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    frame.env.update(dict.fromkeys(_targets(item.optional_vars, frame.self_name), UNKNOWN))
            return self.block(stmt.body, frame)  # type: ignore[attr-defined]
        elif kind in (ast.For, ast.AsyncFor, ast.While, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match):
            # what a loop or a try assigns may or may not have happened (or happened again)
            self.scan(stmt, frame)
            self.forget([stmt], frame)
            before = dict(frame.env)
            for name in ("body", "orelse", "finalbody"):
                self.block(getattr(stmt, name, None) or [], frame)
            for inner in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
                self.block(inner.body, frame)
            frame.env = before
        else:  # AugAssign, Delete, Assert, Global, imports, ...
            self.scan(stmt, frame)
            if kind is not ast.Assert:
                self.forget([stmt], frame)
        return None

    def branch(self, stmt: ast.If, frame: _Frame) -> str | None:
        self.scan(stmt, frame)
        test = self.tree(stmt.test, frame)
        decides = live(test)
        opened = stmt.test.end_lineno or stmt.test.lineno
        before = dict(frame.env)
        ends: list[str | None] = []
        envs: list[dict[str, object]] = []
        for untaken_when, block in ((False, stmt.body), (True, stmt.orelse)):
            frame.env = dict(before)
            index = self.candidate(block, opened, frame, test, untaken_when) if decides and block else None
            if index is not None:
                frame.open.append(index)
            ends.append(self.block(block, frame))
            if index is not None:
                frame.open.pop()
            envs.append(frame.env)
        # a branch that ends by raising is an error path: the code after the `if` runs after
        # the other one; one that returns leaves only the other one to continue
        if ends[0] and not ends[1]:
            frame.env = envs[1]
        elif ends[1] and not ends[0]:
            frame.env = envs[0]
        else:
            frame.env = _merge(test, envs[0], envs[1])
        return ends[0] if ends[0] and ends[1] else None

    def candidate(self, block: list[ast.stmt], opened: int, frame: _Frame, test: object, untaken_when: bool) -> int:
        last = block[-1]
        return self.add(frame, test, untaken_when, (block[0].lineno, block[0].col_offset,
                        last.end_lineno or last.lineno, last.end_col_offset or 0), opened)

    def add(
        self, frame: _Frame, test: object, untaken_when: bool, span: tuple[int, int, int, int], decided: int
    ) -> int:
        """A candidate: ``span`` is not run when ``test`` is ``untaken_when``; whole lines after
        ``decided`` (the deciding test's last line) belong to it, the rest by position."""
        self.candidates.append([*span, decided, frame.qualname, _sized(test), untaken_when])
        return len(self.candidates) - 1

    def forget(self, statements: list[ast.stmt], frame: _Frame) -> None:
        """What ``statements`` bind becomes unknown (``self.x`` too, inside a construction)."""
        frame.env.update(dict.fromkeys(_assigned(statements, frame.self_name), UNKNOWN))

    def bind(self, targets: list[ast.expr], value: ast.expr, frame: _Frame) -> None:
        tree = self.tree(value, frame)
        for target in targets:
            if isinstance(target, ast.Name):
                frame.env[target.id] = tree
            elif isinstance(target, ast.Attribute) and _is_name(target.value, frame.self_name):
                frame.env["self." + target.attr] = tree
                if frame.super_call is not None:
                    frame.after_super.add(target.attr)
            elif isinstance(target, (ast.Tuple, ast.List)):
                self.unpack(target.elts, value, frame)
            else:
                frame.env.update(dict.fromkeys(_targets(target, frame.self_name), UNKNOWN))

    def unpack(self, targets: list[ast.expr], value: ast.expr, frame: _Frame) -> None:
        """``a, b = x, y`` element by element; ``b, s, n = *x.shape, self.n`` from both ends."""
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if values is not None and not any(isinstance(t, ast.Starred) for t in targets):
            starred = [i for i, v in enumerate(values) if isinstance(v, ast.Starred)]
            if not starred and len(values) == len(targets):
                pairs = list(zip(targets, values))
            elif len(starred) == 1:
                front, back = values[:starred[0]], values[starred[0] + 1:]
                if len(front) + len(back) <= len(targets):
                    pairs = list(zip(targets, front))
                    pairs += list(zip(targets[len(targets) - len(back):], back)) if back else []
        trees = [(t, self.tree(v, frame)) for t, v in pairs]
        for target in targets:
            frame.env.update(dict.fromkeys(_targets(target, frame.self_name), UNKNOWN))
        for target, tree in trees:
            if isinstance(target, ast.Name):
                frame.env[target.id] = tree
            elif isinstance(target, ast.Attribute) and _is_name(target.value, frame.self_name):
                frame.env["self." + target.attr] = tree

    def base_call(self, call: ast.Call, frame: _Frame) -> None:
        """``super().__init__(...)`` / ``Base.__init__(self, ...)`` in a construction: recorded
        with its arguments; what is assigned after it wins over what the base sets."""
        callee = dotted_with_super(call.func) or ""
        method = frame.qualname.rsplit(".", 1)[-1]
        if frame.super_call is not None or not callee.endswith("." + method):
            return
        args = call.args
        if not callee.startswith("super()."):
            if not args or not _is_name(args[0], frame.self_name):
                return
            args = args[1:]
        frame.super_call = self.arguments(args, call.keywords, frame)
        frame.super_callee = callee

    # functions and classes -------------------------------------------------------------------

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, outer: _Frame) -> None:
        qual = ".".join([*self.scope, node.name])
        info = self.summary.functions.get(qual)
        cls = self.classes[-1] if self.classes and self.classes[-1].qualname == ".".join(self.scope) else None
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        method = cls is not None and not any(_last(d) == "staticmethod" for d in node.decorator_list)
        self_name = positional[0].arg if method and positional and not any(
            _last(d) == "classmethod" for d in node.decorator_list) else None
        # an entry point's parameters are each caller's own (`forward(x, interpolate=False)`)
        entry = node.name in _CALLED_BY_TORCH or (node.name.startswith("__") and node.name not in _CONSTRUCTION)
        names = [a.arg for a in (*positional, *args.kwonlyargs)]
        names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        params = frozenset() if entry else frozenset(names) - {self_name}
        frame = _Frame(qual, params, self_name, construction=cls is not None and node.name in _CONSTRUCTION, info=info)
        if cls is not None:
            frame.owner, frame.method, frame.owner_self = cls, node.name, self_name
        elif outer.owner is not None and outer.owner_self not in names:  # a function nested in a method
            frame.owner, frame.method, frame.owner_self = outer.owner, outer.method, outer.owner_self
        if info is not None and not entry:
            defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
            defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
            # a parameter annotated with a class of the run: an instance of it (its default
            # configuration, where no call says otherwise)
            annotations = {a.arg: name for a in (*positional, *args.kwonlyargs)
                           if a.annotation is not None and (name := _annotation(a.annotation))
                           and not _external(self.summary.imports.get(name.split(".", 1)[0]))}
            info.signature = [
                len(positional), args.vararg.arg if args.vararg else None, args.kwarg.arg if args.kwarg else None,
                {name: _default(d) for name, d in defaults.items()},
                annotations, int(method and self_name is not None), len(args.posonlyargs),
            ]
        self.scope.append(node.name)
        self.block(node.body, frame)
        self.scope.pop()
        if info is None:
            return
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            returns = _Frame(qual, frozenset(names) - {self_name}, self_name)
            tree = self.tree(body[0].value, returns)
            info.returns = tree if live(tree) else None
        info.option_calls = {c: sites for c, sites in info.option_calls.items() if c not in frame.plain}
        if frame.construction and cls is not None:
            end = frame.env
            for exit_env in frame.exits:
                end = _merge(UNKNOWN, end, exit_env)
            sets = {key[5:]: value for key, value in end.items() if key.startswith("self.")}
            record = [sets, frame.super_call, sorted(frame.after_super), frame.super_callee]
            if node.name == "__init__":
                cls.init = record
            else:
                cls.post_init = record

    def klass(self, node: ast.ClassDef) -> None:
        qual = ".".join([*self.scope, node.name])
        info = self.summary.classes.get(qual)
        if info is not None:
            info.fields = _fields(node)
            info.hooks = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in
                             ("__getattr__", "__getattribute__") for s in node.body)
            self.classes.append(info)
        self.scope.append(node.name)
        self.block(node.body, _Frame(qual, frozenset(), None))
        self.scope.pop()
        if info is not None:
            self.classes.pop()
            # `self.proj(x)` calls the submodule set in __init__, no method: its arguments say nothing
            submodules = {name for name, tree in (info.init[0] if info.init else {}).items()
                          if type(tree) is list and tree[0] == "o"}
            for method in info.methods.values():
                function = self.summary.functions.get(method)
                if function is not None and submodules:
                    for callee in [c for c in function.call_args if c.startswith("self.") and c[5:] in submodules]:
                        del function.call_args[callee]
            info.writes = {k: [list(w) for w in sorted(v)] for k, v in info.writes.items()}  # type: ignore[misc]
            info.self_calls = sorted(set(info.self_calls))

    # expressions -----------------------------------------------------------------------------

    def scan(self, stmt: ast.stmt, frame: _Frame) -> None:
        """The calls, class references, decided operands and writes of ``self`` in ``stmt``'s own
        expressions."""
        walked = self.walked.get(id(stmt))
        if walked is None:
            walked = [n for root in _own_expressions(stmt) for n in walk(root) if type(n) in READ_NODES]
        if not walked:
            return
        named = self.named  # a lower-case name matters only as a value of the module's own
        nodes = [node for node in walked if type(node) is not ast.Name or node.id[:1].isupper()  # type: ignore[attr-defined]
                 or node.id in named]  # type: ignore[attr-defined]
        binders = [node for node in nodes if type(node) in _BINDERS]
        bound = {a.arg for n in binders if type(n) is ast.Lambda for a in _lambda_args(n)}  # type: ignore[arg-type]
        bound.update(t.id for n in binders if type(n) is ast.comprehension
                     for t in walk(n.target) if isinstance(t, ast.Name))  # type: ignore[attr-defined]
        outer_shadow, frame.shadow = frame.shadow, frame.shadow | bound if bound else frame.shadow
        inner: list[tuple[int, tuple[int, int, int, int]]] = []  # this statement's own candidates
        heads: set[int] = set()  # callees and receivers: no reference as a value
        owner_self = frame.owner_self if frame.owner is not None else None
        for node in nodes:
            kind = type(node)
            if kind is ast.Name:
                if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    continue
                name = node.id  # type: ignore[attr-defined]
                if name[:1].isupper() and name not in frame.shadow:
                    self.reference(name, node, frame, inner)
                    if id(node) not in heads:  # handed on, not called: built where we cannot see
                        self.handed.add(name)
                elif name in self.named and id(node) not in heads and name not in frame.params and (
                        name not in frame.env):
                    self.value_names.add(name)
            elif kind is ast.Attribute:
                heads.add(id(node.value))  # type: ignore[attr-defined]
                if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    if owner_self is not None and _is_name(node.value, owner_self):  # type: ignore[attr-defined]
                        self.write(node.attr, stmt, node, frame)  # type: ignore[attr-defined]
                    elif not _is_name(node.value, frame.self_name):  # type: ignore[attr-defined]
                        self.foreign(node.attr, frame)  # type: ignore[attr-defined]
                elif id(node) not in heads and node.attr[:1].isupper():  # type: ignore[attr-defined]
                    name = dotted_with_super(node)
                    if name is not None:
                        self.reference(name, node, frame, inner)
                        if name.split(".", 1)[0] in self.summary.imports:  # `models.Block` handed on
                            self.handed.add(name)
            elif kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                heads.add(id(func))
                callee = dotted_with_super(func)
                if callee in ("isinstance", "issubclass"):  # a check, no hand-off
                    heads.update(id(a) for a in node.args[1:] for a in walk(a))  # type: ignore[attr-defined]
                elif node.keywords and (callee == "dict" or any(  # type: ignore[attr-defined]
                        _names_class(a) for a in (*node.args, *(k.value for k in node.keywords)))):  # type: ignore[attr-defined]
                    for keyword in node.keywords:  # type: ignore[attr-defined]  # `dict(use_rel_pos=True)`
                        if keyword.arg is not None:
                            self.keyword(keyword.arg, keyword.value)
                if callee is not None:
                    self.call(callee, node, frame, inner)  # type: ignore[arg-type]
                    if owner_self is not None or callee == "setattr":
                        self.set_by_call(node, func, owner_self, frame)  # type: ignore[arg-type]
            elif kind is ast.BoolOp:
                self.operands(node, frame, inner)  # type: ignore[arg-type]
            elif kind is ast.IfExp:
                self.arms(node, frame, inner)  # type: ignore[arg-type]
            elif kind is ast.Dict:  # a dict display: `{"use_rel_pos": True}` may become keyword arguments
                for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        self.keyword(key.value, value)
        frame.shadow = outer_shadow

    def keyword(self, name: str, value: ast.expr) -> None:
        """A literal in a dict (``dict(use_rel_pos=True)``, ``{"use_rel_pos": True}``) or passed
        by keyword along with a class handed on (``partial(Block, use_rel_pos=True)``): a factory
        may build a class handed on with it."""
        literal = _negative(value)
        if type(literal) is list and literal[0] == "l":
            self.keywords.setdefault(name, set()).add((type(literal[1]).__name__, literal[1]))

    def write(self, name: str, stmt: ast.stmt, target: ast.expr, frame: _Frame) -> None:
        """A write of ``self.name`` outside what the constructor leaves: a spoiler, unless it is a
        user's toggle (the run-wide reading decides) that sets a literal."""
        if frame.construction:
            return  # what __init__ itself sets is its record
        value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        direct = value is not None and (target in stmt.targets if isinstance(stmt, ast.Assign) else True)  # type: ignore[attr-defined]
        literal = int(direct and _negative(value) != UNKNOWN)  # type: ignore[arg-type]
        self._writes(frame).setdefault(name, set()).add((frame.method, literal))

    def set_by_call(self, node: ast.Call, func: ast.expr, owner_self: str | None, frame: _Frame) -> None:
        """``setattr(self, "a", v)``, ``self.register_buffer("a", t)``, ``self.__dict__.update(d)``,
        ``self.m()`` (a method the class calls itself); ``setattr(obj, "a", v)`` on another object."""
        named = _named_by_call(node)
        if isinstance(func, ast.Attribute):
            if owner_self is None:
                return
            if _is_name(func.value, owner_self):
                frame.owner.self_calls.append(func.attr)  # type: ignore[union-attr]
                if named is not None and not frame.construction:
                    self._writes(frame).setdefault(named, set()).add((frame.method, 0))
            elif _self_attr(func.value, owner_self) == "__dict__" and func.attr in _DICT_WRITERS:
                self._writes(frame).setdefault("*", set()).add((frame.method, 0))
        elif named is not None and node.args:  # setattr(...)
            if owner_self is not None and _is_name(node.args[0], owner_self):
                if named == "*" or not frame.construction:
                    self._writes(frame).setdefault(named, set()).add((frame.method, 0))
            elif not _is_name(node.args[0], frame.self_name) and named != "*":
                self.foreign(named, frame)

    def foreign(self, name: str, frame: _Frame) -> None:
        """``obj.name = v`` on another object than ``self``: noted where it is made."""
        if frame.info is not None:
            frame.info.foreign_writes.append(name)
        else:
            self.foreign_writes.add(name)

    def _writes(self, frame: _Frame) -> dict:
        return frame.owner.writes  # type: ignore[union-attr,return-value]

    def operands(self, node: ast.BoolOp, frame: _Frame, inner: list) -> None:
        """The operands after one that decides an ``and``/``or`` (False / True) are not evaluated."""
        stop = isinstance(node.op, ast.Or)
        last = node.values[-1]
        for position, operand in enumerate(node.values[:-1]):
            tree = self.tree(operand, frame)
            if live(tree):
                first = node.values[position + 1]
                span = (first.lineno, first.col_offset, last.end_lineno or last.lineno, last.end_col_offset or 0)
                inner.append((self.add(frame, tree, stop, span, operand.end_lineno or operand.lineno), span))

    def arms(self, node: ast.IfExp, frame: _Frame, inner: list) -> None:
        tree = self.tree(node.test, frame)
        if not live(tree):
            return
        for arm, untaken_when, decided in ((node.body, False, 1 << 30), (node.orelse, True, node.test.end_lineno)):
            span = (arm.lineno, arm.col_offset, arm.end_lineno or arm.lineno, arm.end_col_offset or 0)
            inner.append((self.add(frame, tree, untaken_when, span, decided or arm.lineno), span))

    def sites(self, node: ast.expr, frame: _Frame, inner: list) -> list[int]:
        """The candidates holding ``node``: the statement's, and its own expressions' around it."""
        if not inner:
            return frame.open[:] if frame.open else []
        at = (node.lineno, node.col_offset)
        return [*frame.open, *(i for i, (s, c, e, ec) in inner if (s, c) <= at < (e, ec))]

    def call(self, callee: str, node: ast.Call, frame: _Frame, inner: list) -> None:
        info = frame.info
        if info is not None:
            sites = self.sites(node, frame, inner)
            if sites:
                info.option_calls.setdefault(callee, []).append(sites)
            else:
                frame.plain.add(callee)
        # the arguments of calls that may reach code of the run; a call left out makes its callee's
        # parameters unknown (or, for a base's constructor, is the chain's record instead)
        head, last = callee.split(".", 1)[0], callee.rsplit(".", 1)[-1]
        if last in _CONSTRUCTION:
            return
        if head in ("self", "super()"):
            if head == "self" and frame.self_name != "self":
                return
        elif head in frame.env or head in frame.params or head in frame.shadow or head in _EXTERNAL_HEADS:
            return  # a method of a local object, or a library's function: no code of the run
        elif callee in _NOT_RUN_CODE or _external(self.summary.imports.get(head)):
            return
        elif not last[:1].isupper() and head not in self.defined and head not in self.summary.imports:
            return  # a method of a module-level object (`logger.warning(...)`)
        table = info.call_args if info is not None else self.summary.call_args  # module level: constructions
        table.setdefault(callee, []).append(self.arguments(node.args, node.keywords, frame))

    def reference(self, name: str, node: ast.expr, frame: _Frame, inner: list) -> None:
        """A class named where it may be built or handed on (``Block(...)``, ``partial(Block)``)."""
        head = name.split(".", 1)[0]
        if head in frame.env or head in frame.params or _external(self.summary.imports.get(head)):
            return
        info = frame.info
        if info is None:
            self.summary.class_refs.append(name)
            return
        sites = self.sites(node, frame, inner)
        known = info.class_refs.setdefault(name, [])
        if known != [[]]:
            if sites:
                known.append(sites)
            else:
                info.class_refs[name] = [[]]

    def arguments(self, args: list[ast.expr], keywords: list[ast.keyword], frame: _Frame) -> list:
        """A call's arguments: [positional trees, {keyword: tree}] and, when it unpacks any,
        whether it passes ``*args`` and its ``**`` trees."""
        positional = [self.tree(a, frame) for a in args if not isinstance(a, ast.Starred)]
        starred = int(any(isinstance(a, ast.Starred) for a in args))
        named = {k.arg: self.tree(k.value, frame) for k in keywords if k.arg is not None}
        unpacked = [self.tree(k.value, frame) for k in keywords if k.arg is None]
        return [positional, named, starred, unpacked] if starred or unpacked else [positional, named]

    def tree(self, node: ast.expr, frame: _Frame) -> object:
        """The tree of ``node``'s value (module docstring); a large one is unknown."""
        tree = self._tree(node, frame)
        return _sized(tree) if type(tree) is list and tree[0] not in _LEAVES else tree

    def _tree(self, node: ast.expr, frame: _Frame) -> object:
        kind = type(node)
        if kind is ast.Constant:
            return _literal(node)
        if kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name in frame.shadow:
                return UNKNOWN
            if name in frame.env:
                return frame.env[name]
            if name in frame.params:
                return ["p", name]
            if name == frame.self_name and name is not None:
                return ["s"]
            return ["n"] if name in self.defined else UNKNOWN  # a function or class of the module
        if kind is ast.Attribute:
            if _is_name(node.value, frame.self_name) and frame.self_name not in frame.shadow:  # type: ignore[attr-defined]
                if node.attr == "training":  # type: ignore[attr-defined]
                    return UNKNOWN  # nn.Module's train/eval switch: each use's, no configuration
                return frame.env.get("self." + node.attr, ["a", node.attr])  # type: ignore[attr-defined]
            base = self._tree(node.value, frame)  # type: ignore[attr-defined]
            if live(base):
                return ["g", base, node.attr]  # type: ignore[attr-defined]
            head = node.value  # type: ignore[attr-defined]
            if isinstance(head, ast.Name) and head.id not in frame.env and _external(self.summary.imports.get(head.id)):
                return ["n"]  # a library's function or class (`torch.sigmoid`)
            return UNKNOWN
        if kind is ast.UnaryOp:
            if isinstance(node.op, ast.Not):  # type: ignore[attr-defined]
                inner = self._tree(node.operand, frame)  # type: ignore[attr-defined]
                return ["not", inner] if live(inner) else UNKNOWN
            if isinstance(node.op, ast.USub):  # type: ignore[attr-defined]
                negative = _negative(node)
                if negative != UNKNOWN:
                    return negative
                inner = self._tree(node.operand, frame)  # type: ignore[attr-defined]
                return ["neg", inner] if live(inner) else UNKNOWN
            return UNKNOWN
        if kind is ast.BoolOp:
            values = [self._tree(v, frame) for v in node.values]  # type: ignore[attr-defined]
            if not any(live(v) for v in values):
                return UNKNOWN
            return ["and" if isinstance(node.op, ast.And) else "or", values]  # type: ignore[attr-defined]
        if kind is ast.Compare:
            return self.compare(node, frame)  # type: ignore[arg-type]
        if kind is ast.IfExp:
            test, body, orelse = (self._tree(n, frame) for n in (node.test, node.body, node.orelse))  # type: ignore[attr-defined]
            if body == orelse:
                return body
            if not live(test):  # either arm: the same, or an object both, or unknown
                return ["n"] if _not_none(body) and _not_none(orelse) else UNKNOWN
            return ["if", test, body, orelse]
        if kind is ast.Call:
            return self.call_tree(node, frame)  # type: ignore[arg-type]
        if kind in (ast.Tuple, ast.List, ast.Set):
            elts = node.elts  # type: ignore[attr-defined]
            values = [_literal(e) for e in elts]
            if all(type(v) is list and v[0] == "l" for v in values):
                return ["t", [v[1] for v in values]]  # type: ignore[index]
            return ["n"]
        if kind is ast.Dict:
            keys = node.keys  # type: ignore[attr-defined]
            if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
                return ["k", {k.value: self._tree(v, frame) for k, v in zip(keys, node.values)}]  # type: ignore[union-attr]
            return ["n"]
        if kind is ast.BinOp:
            op = _BINARY.get(type(node.op))  # type: ignore[attr-defined]
            left, right = self._tree(node.left, frame), self._tree(node.right, frame)  # type: ignore[attr-defined]
            if op is None or not (live(left) or live(right)):
                return UNKNOWN
            return ["bin", op, left, right]
        if kind is ast.NamedExpr:
            return self._tree(node.value, frame)  # type: ignore[attr-defined]
        if kind in (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr):
            return ["n"]
        return UNKNOWN

    def compare(self, node: ast.Compare, frame: _Frame) -> object:
        operands = [self._tree(n, frame) for n in (node.left, *node.comparators)]
        parts = []
        for index, op in enumerate(node.ops):
            name = _COMPARE.get(type(op))
            left, right = operands[index], operands[index + 1]
            if name is None or not (live(left) or live(right)):
                return UNKNOWN  # a chain is decided only when every link may be
            parts.append(["cmp", name, left, right])
        return parts[0] if len(parts) == 1 else ["and", parts]

    def call_tree(self, node: ast.Call, frame: _Frame) -> object:
        callee = dotted_with_super(node.func)
        if callee is None:
            return UNKNOWN
        args = node.args
        if callee == "getattr" and len(args) in (2, 3) and isinstance(args[1], ast.Constant):
            name = args[1].value
            base = self._tree(args[0], frame)
            if not isinstance(name, str) or not live(base):
                return UNKNOWN
            return ["g", base, name] if len(args) == 2 else ["g", base, name, self._tree(args[2], frame)]
        if callee == "dict" and not args and all(k.arg is not None for k in node.keywords):
            return ["k", {k.arg: self._tree(k.value, frame) for k in node.keywords}]
        last = callee.rsplit(".", 1)[-1]
        head = callee.split(".", 1)[0]
        if last[:1].isupper():
            return ["o", callee]  # built by a class: an object
        if head in frame.env or head in frame.params or head in frame.shadow or callee in _NOT_RUN_CODE:
            return UNKNOWN
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            return UNKNOWN
        positional = [self._tree(a, frame) for a in args]
        named = {k.arg: self._tree(k.value, frame) for k in node.keywords}
        if not any(live(v) for v in (*positional, *named.values())):
            return UNKNOWN  # a helper of unknown arguments (a constant helper is too rare to keep)
        return ["c", callee, positional, named]


def _merge(test: object, one: dict[str, object], other: dict[str, object]) -> dict[str, object]:
    """The names after an ``if``: each one's tree under both branches (``["if", test, ...]``)."""
    out = {}
    for name in one.keys() | other.keys():
        a, b = one.get(name, UNKNOWN), other.get(name, UNKNOWN)
        if a == b:
            out[name] = a
        elif live(test) and name in one and name in other:
            out[name] = _sized(["if", test, a, b])
        else:
            out[name] = UNKNOWN
    return out


def _not_none(tree: object) -> bool:
    return type(tree) is list and (tree[0] in ("n", "t", "k", "o") or (tree[0] == "l" and tree[1] is not None))


def _negative(node: ast.expr) -> object:
    """``-1``, ``-0.5``: a negative literal; a plain literal as :func:`_literal`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if type(value) in (int, float):
            return ["l", -value]
    return _literal(node) if isinstance(node, ast.Constant) else UNKNOWN


def _default(node: ast.expr) -> object:
    """A parameter's default: a literal, a tuple of literals, or unknown."""
    if isinstance(node, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in node.elts):
        values = [_literal(e) for e in node.elts]
        if all(type(v) is list and v[0] == "l" for v in values):
            return ["t", [v[1] for v in values]]  # type: ignore[index]
    return _negative(node)


def _is_name(node: ast.AST, name: str | None) -> bool:
    return name is not None and isinstance(node, ast.Name) and node.id == name


def _last(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _external(target: str | None) -> bool:
    """An import from a library that holds no code of any run (``torch``, ``math``)."""
    return target is not None and not target.startswith(".") and target.split(".", 1)[0] in _EXTERNAL_HEADS


def _annotation(node: ast.expr) -> str | None:
    """The class an annotation names (``Config``, ``cfg.Config``, ``"Config"``, ``Config | None``,
    ``Optional[Config]``), if it is one name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [n for n in (node.left, node.right) if not (isinstance(n, ast.Constant) and n.value is None)]
        return _annotation(sides[0]) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript) and _last(node.value) == "Optional":
        return _annotation(node.slice)
    name = dotted_with_super(node)
    return name if name and name.rsplit(".", 1)[-1][:1].isupper() else None


def _lambda_args(node: ast.Lambda) -> list[ast.arg]:
    args = node.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]


# per statement type, the fields holding its own expressions: not nested statements, annotations
# (no value is built) nor a class's bases (a base is no construction)
_SKIPPED_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases", "annotation", "returns", "bases",
                             "type_comment", "type_params"})
_EXPRESSION_FIELDS: dict[type, tuple[str, ...]] = {}


def _own_expressions(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions of a statement, not those of the statements nested in it (nor annotations,
    nor a class's bases); a function's decorators and parameter defaults (they run at ``def``)."""
    kind = type(stmt)
    names = _EXPRESSION_FIELDS.get(kind)
    if names is None:
        names = _EXPRESSION_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SKIPPED_FIELDS)
    out: list[ast.AST] = []
    for name in names:
        value = getattr(stmt, name, None)
        if type(value) is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.arguments):
            out.extend(d for d in (*value.defaults, *value.kw_defaults) if d is not None)
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


def _fields(node: ast.ClassDef) -> dict[str, list]:
    """Class-level fields: ``y: float = 0.0`` / ``y = field(default=0.0)`` -> [tree, annotated]
    (annotated fields are keyword arguments of a dataclass-style constructor)."""
    out: dict[str, list] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out[stmt.target.id] = [_field_default(stmt.value), 1]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            out[stmt.targets[0].id] = [_negative(stmt.value) if isinstance(stmt.value, (ast.Constant, ast.UnaryOp))
                                       else UNKNOWN, 0]
    return out


def _field_default(value: ast.expr | None) -> object:
    if value is None:
        return UNKNOWN
    if isinstance(value, ast.Call) and _last(value.func) == "field":
        for keyword in value.keywords:
            if keyword.arg == "default":
                return _negative(keyword.value)
        return UNKNOWN
    return _negative(value)


def _self_attr(node: ast.AST, self_name: str = "self") -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _names_class(node: ast.expr) -> bool:
    """``Block``, ``layers.Block``: a name that, by its case, is a class handed on as a value."""
    name = dotted_with_super(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return name is not None and name.rsplit(".", 1)[-1][:1].isupper()


def _targets(target: ast.expr, self_name: str | None) -> list[str]:
    """The names and ``self.x`` attributes an assignment target rebinds (not ``self.cache[k]``
    nor ``self.config.x``: they change what the attribute holds)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _targets(element, self_name)]
    if isinstance(target, ast.Starred):
        return _targets(target.value, self_name)
    if isinstance(target, ast.Attribute) and _is_name(target.value, self_name):
        return ["self." + target.attr]
    return []


def _assigned(statements: list[ast.stmt], self_name: str | None) -> set[str]:
    """What ``statements`` (and the blocks nested in them) assign: names, and ``self.x``
    (also by ``setattr(self, "x", v)`` / ``self.register_buffer("x", t)``)."""
    out: set[str] = set()
    todo = list(statements)
    while todo:
        stmt = todo.pop()
        kind = type(stmt)
        targets: list[ast.expr] = []
        if kind is ast.Assign:
            targets = stmt.targets  # type: ignore[attr-defined]
        elif kind in (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor):
            targets = [stmt.target]  # type: ignore[attr-defined]
        elif kind in (ast.With, ast.AsyncWith):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]  # type: ignore[attr-defined]
        elif kind is ast.Delete:
            targets = stmt.targets  # type: ignore[attr-defined]
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            out.add(stmt.name)  # type: ignore[attr-defined]
            continue
        elif kind in (ast.Global, ast.Nonlocal):
            out.update(stmt.names)  # type: ignore[attr-defined]
        elif kind is ast.Expr and isinstance(stmt.value, ast.Call):  # type: ignore[attr-defined]
            call = stmt.value  # type: ignore[attr-defined]
            named, func = _named_by_call(call), call.func
            on_self = _is_name(func.value, self_name) if isinstance(func, ast.Attribute) else (
                bool(call.args) and _is_name(call.args[0], self_name))
            if named is not None and not named.endswith("*") and on_self:
                out.add("self." + named)
        for target in targets:
            out.update(_targets(target, self_name))
        for name in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, name, None) or ())
        for handler in getattr(stmt, "handlers", ()):
            if handler.name:
                out.add(handler.name)
            todo.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            out.update(n.name for n in walk(case.pattern) if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name)
            todo.extend(case.body)
    return out


def _named_by_call(node: ast.Call) -> str | None:
    """The attribute a ``setattr(self, "a", v)`` / ``self.register_buffer("a", t)`` sets, ``"*"``
    when its name is not a literal; None for other calls."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in _SETTERS:
        return None
    key = node.args[1 if name == "setattr" else 0] if len(node.args) > (name == "setattr") else None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.JoinedStr) and key.values and isinstance(key.values[0], ast.Constant):
        return f"{key.values[0].value}*"  # f"pos_embed_{i}": the attributes with that prefix
    return "*"


def record_defaults(tree: ast.Module, summary: FileSummary, walked: dict[int, list[ast.AST]] | None = None) -> None:
    """Fill ``summary``'s default-configuration tables (module docstring) from ``tree``; the
    summary's functions and classes must be in already. ``walked``: the nodes of statements'
    own expressions that the summarizer walked (the same lists, in the same order)."""
    recorder = _Recorder(summary, walked or {})
    recorder.defined = {
        s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    recorder.named = summary.functions.keys() | summary.imports.keys()
    recorder.module(tree.body)
    summary.value_names = sorted(recorder.value_names)
    summary.foreign_writes = sorted(recorder.foreign_writes)
    summary.handed = sorted(recorder.handed)
    summary.keywords = {name: [v for _, v in sorted(values, key=repr)] for name, values in recorder.keywords.items()}
    for function in summary.functions.values():
        function.foreign_writes = sorted(set(function.foreign_writes))
