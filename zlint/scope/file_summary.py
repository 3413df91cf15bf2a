"""What one file defines, imports, calls and compiles, from one cheap ``ast`` pass
(:func:`summarize`): the input of the run-wide compiled scope (:mod:`zlint.scope.classify`).
Summaries are small and JSON-able, so the project index caches them by the file's bytes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from zlint.core.ast_walk import walk
from zlint.scope.compile_state import (
    PREDICATE,
    calls_predicate,
    dotted_with_super,
    none_names,
    predicate_returns,
    test_tree,
)
from zlint.scope.host_roles import SESSION
from zlint.scope.option_paths import READ_NODES, record_defaults

# Reading or writing files: dynamo cannot trace it, and model code does it only at setup or export
IO_CALLS = frozenset({
    "open", "io.open", "torch.load", "torch.save", "numpy.load", "numpy.save", "numpy.loadtxt",
    "json.load", "json.dump", "pickle.load", "pickle.dump", "yaml.safe_load",
    "safetensors.torch.load_file", "safetensors.torch.save_file", "safetensors.safe_open",
})
IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes"})
COMPILE_CALLS = frozenset({"torch.compile"})
# libraries that take host data only: a function that hands tensors to them runs around the model
HOST_LIBRARIES = ("PIL.", "matplotlib.", "cv2.")
# the checks that read a tensor condition into Python (an .item() under tracing: graph break)
TENSOR_CHECK_CALLS = frozenset({"torch._check_tensor_all", "torch._check_tensor_all_with"})
# the header of generated code names the file it was made from ("This file was automatically
# generated from src/pkg/modular_x.py"); only the leading comment block is read
_GENERATED_FROM = re.compile(r"\bgenerated\b[^\n]*?\bfrom\s+`?([\w./-]+\.py)\b", re.IGNORECASE)
_HEADER_LINES = 20


@dataclass
class FunctionInfo:
    """A function or method of a file (:attr:`FileSummary.functions`): what it calls, how it is
    decorated and what it does; read by the name resolution and the classification."""

    qualname: str
    name: str
    start: int
    end: int
    cls: str | None  # qualified name of the class whose method this is
    calls: set[str] = field(default_factory=set)  # dotted callee names as written
    decorators: list[str] = field(default_factory=list)
    params: tuple[str, ...] = ()
    #: methods referenced without a call (`fn = self.compute_rope`): called later by this code
    refs: set[str] = field(default_factory=set)
    #: of those, methods stored on the object (`self.searcher = self.greedy_decode`): they run
    #: wherever the attribute is called, not where it was stored
    stored_refs: set[str] = field(default_factory=set)
    #: callees called only inside branches dynamo never takes (tracing/scripting/not compiling)
    branch_calls: set[str] = field(default_factory=set)
    #: registers a buffer or parameter on the module, or assigns one: it changes the model (setup)
    mutates_module: bool = False
    #: takes an inference session (`inference_session: Sam3VideoInferenceSession`): a stateful
    #: host-side object that a streaming driver updates frame by frame
    takes_session: bool = False
    #: reads or writes files (`open`, `torch.load`, `json.dump`, ...): setup or export work
    does_io: bool = False
    #: hands tensors to host libraries (`.numpy()`, PIL, matplotlib, OpenCV): code around the model
    to_host: bool = False
    #: attribute names read on a receiver other than a bare ``self`` (``FileSummary.attribute_names``)
    attribute_names: set[str] = field(default_factory=set)
    #: callees every call of which here lies on a candidate default-off path
    #: (:attr:`FileSummary.option_paths`): callee -> per call, the indices of the paths holding it
    option_calls: dict[str, list[list[int]]] = field(default_factory=dict)
    #: what the default configuration needs (:mod:`zlint.scope.option_paths`): [how many of
    #: ``params`` are positional, ``*args`` name, ``**kwargs`` name, {parameter: default tree},
    #: {parameter: annotated class} (``__init__``), takes self (0/1), positional-only count];
    #: empty for an entry point (``forward``, dunders), whose callers pass arguments per call
    signature: list = field(default_factory=list)
    #: callee as written -> per call, [positional trees, {keyword: tree}] (+ [passes ``*args``,
    #: [``**`` trees]] when it unpacks any)
    call_args: dict[str, list] = field(default_factory=dict)
    #: the tree of what a one-statement helper returns (``def exists(v): return v is not None``)
    returns: object = None
    #: classes named here (called or handed on) -> per reference, the candidate paths holding it
    #: (``[[]]``: one reference on no candidate)
    class_refs: dict[str, list[list[int]]] = field(default_factory=dict)
    #: attributes it sets on objects other than ``self`` (``self.heads.keypoint_head = head``):
    #: any class's attribute of that name may be set so
    foreign_writes: list[str] = field(default_factory=list)
    #: (line, parameter index) of each call that hands one of its parameters to
    #: ``torch._check_tensor_all`` as the condition: this function checks a tensor condition
    tensor_checks: list[tuple[int, int]] = field(default_factory=list)
    #: what it looks up in or calls a method of, that may be a dispatch table
    #: (:attr:`FileSummary.tables`): ``self.<attr>``, or a dotted name whose head the module
    #: binds or imports (``OPS[name]``, ``ALL_ATTENTION_FUNCTIONS.get_interface(...)``)
    table_reads: set[str] = field(default_factory=set)


@dataclass
class GuardInfo:
    """An ``if`` in a function whose test calls a compile-state predicate; read in :func:`classify`,
    once every predicate of the run is known."""

    function: str  # qualname of the function holding it
    test: list  # the test as a small JSON-able tree (zlint.scope.compile_state.test_tree)
    body: tuple[int, int]
    orelse: tuple[int, int] | None
    #: callees called in the body / in the else branch (kept out of the function's own calls)
    calls: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    #: the guard and branch (0 body, 1 else) this one is nested in, if any
    parent: tuple[int, int] | None = None
    #: the earlier guards of the function that return or raise where they hold, each with the
    #: names it tests against None that nothing has rebound since: below such a guard, dynamo
    #: traces only where its test is false (``if mask is not None and is_tracing(mask): return``
    #: leaves ``mask`` None), which decides this test too
    after: list[list] = field(default_factory=list)


@dataclass
class ClassInfo:
    """A class of a file (:attr:`FileSummary.classes`): its bases, methods and layer attributes."""

    qualname: str
    bases: list[str]
    methods: dict[str, str] = field(default_factory=dict)  # name -> function qualname
    attributes: dict[str, str] = field(default_factory=dict)  # self.x = Cls(...) -> callee name
    decorators: list[str] = field(default_factory=list)  # dotted names as written (`use_experts`)
    #: class-level fields: name -> [tree of its value, annotated (a dataclass-style keyword)]
    fields: dict[str, list] = field(default_factory=dict)
    #: what ``__init__`` / ``__post_init__`` leave: [{attribute: tree}, the arguments of its call of
    #: the base's (:attr:`FunctionInfo.call_args` form) or None, attributes assigned after that
    #: call, that call's callee as written]
    init: list | None = None
    post_init: list | None = None
    #: other writes of ``self.X``: X -> [method, sets a literal (0/1)] for each; ``"*"``: by a computed name
    writes: dict[str, list[list]] = field(default_factory=dict)
    self_calls: list[str] = field(default_factory=list)  # methods it calls on self
    hooks: bool = False  # defines __getattr__ / __getattribute__: any name may answer


@dataclass
class FileSummary:
    """What one file defines, imports, calls and compiles (from its ``ast``)."""

    path: str
    #: local name -> dotted target (``nn`` -> ``torch.nn``, ``helper`` -> ``.utils.helper``)
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    #: callee expressions passed to torch.compile / compiled in place, as (owner qualname, dotted)
    compiled_names: list[tuple[str, str]] = field(default_factory=list)
    #: module-level `name = Cls(...)` bindings, for `torch.compile(model)`
    instances: dict[str, str] = field(default_factory=dict)
    #: earlier definitions of a name defined again (`if cond: def f` / `else: def f`): they run
    #: where the later one with the same qualified name runs
    shadowed: list[FunctionInfo] = field(default_factory=list)
    #: (first line, last line) of blocks that end by raising, and of raise statements
    error_paths: list[tuple[int, int]] = field(default_factory=list)
    #: (first line, last line, attribute) of one-time set-up blocks: ``if self.x is None:`` whose
    #: body sets ``self.x``; dynamo guards on the attribute, so they run on the first call only
    once_paths: list[tuple[int, int, str]] = field(default_factory=list)
    #: candidate default-off paths (:mod:`zlint.scope.option_paths`): [line, column, end line, end
    #: column, the deciding test's last line, function qualname, test tree, the test's value that
    #: leaves the path untaken]; the run decides which hold (:mod:`zlint.scope.defaults`)
    option_paths: list[list] = field(default_factory=list)
    #: module- and class-level calls' arguments (constructions), as :attr:`FunctionInfo.call_args`
    call_args: dict[str, list] = field(default_factory=dict)
    #: classes named at module or class level (``config_class = Config``, a registry)
    class_refs: list[str] = field(default_factory=list)
    #: module-level functions and imported names read as values, not called (``act=gelu``)
    value_names: list[str] = field(default_factory=list)
    #: attributes module-level code sets on objects (``Block.fused_attn = False``)
    foreign_writes: list[str] = field(default_factory=list)
    #: classes named as values, not called (``build_model_with_cfg(Sam, **kwargs)``, ``partial(Block)``)
    handed: list[str] = field(default_factory=list)
    #: keyword arguments (and dict entries) passed as literals: name -> the values
    keywords: dict[str, list] = field(default_factory=dict)
    #: module-level functions that rebind the ``forward`` of a class or module they are given
    #: (``experts_class.forward = dispatcher``): as a class decorator, they replace its forward
    forward_replacers: set[str] = field(default_factory=set)
    #: tests calling a compile-state predicate, in source order
    guards: list[GuardInfo] = field(default_factory=list)
    #: predicate functions defined here (`def is_tracing(...)`): qualname -> tree of what they return
    predicates: dict[str, list] = field(default_factory=dict)
    #: attribute names the file's module-level code reads on a receiver other than a bare
    #: ``self`` (``obj.m``, ``getattr(obj, "m")``): a method of the run by that name may be called
    #: there (what functions read is on each :class:`FunctionInfo`)
    attribute_names: set[str] = field(default_factory=set)
    size_oblivious: bool = False  # enables backed_size_oblivious
    single_graph: bool = False  # enables any single-graph mode (also mark_unbacked, Dim.DYNAMIC)
    #: where the file sets a single-graph mode up, as [owner qualname ("": module level), whether
    #: it is backed_size_oblivious, whether it holds for the whole process]: an assignment to the
    #: config holds for every later compile; a mark (``mark_unbacked``, an export ``Dim``) holds for
    #: the tensors it marks, and a ``patch(backed_size_oblivious=True)`` for what runs under it, so
    #: those reach only the code the owner and its callers run (:func:`zlint.scope.classify.classify`)
    mode_setups: list[list] = field(default_factory=list)
    #: module-level names bound to another dotted name (``disable = torch.compiler.disable``,
    #: ``getattr(getattr(torch, "compiler", None), "disable", None) or fallback``): name -> target
    aliases: dict[str, str] = field(default_factory=dict)
    #: the file this one says it was generated from, as its header writes it (``""``: none)
    generated_from: str = ""
    #: dispatch tables: a dict, list, tuple or set display of functions, bound to a module-level
    #: name (``OPS``), a class-level one or ``self.<attr>`` (``Cls.attr``) -> the dotted names of
    #: its entries as written; a function in one runs wherever a reader of the table calls it
    tables: dict[str, list[str]] = field(default_factory=dict)


def qualify(summary: FileSummary, name: str | None) -> str | None:
    """``nn.Module`` -> ``torch.nn.Module`` through the file's imports."""
    if not name:
        return None
    head, _, rest = name.partition(".")
    target = summary.imports.get(head)
    if target is None:
        return name
    return f"{target}.{rest}" if rest else target


class _Summarizer:
    """Statements are walked recursively (they carry the scope); the expressions of each
    statement are scanned flat, in ``ast.walk``'s order (:func:`zlint.core.ast_walk.walk`), several
    times cheaper than a visitor."""

    def __init__(self, summary: FileSummary) -> None:
        self.summary = summary
        #: statement -> the nodes of its own expressions that :func:`record_defaults` reads, in walk order
        self.walked: dict[int, list[ast.AST]] = {}
        self.scope: list[str] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.guard_at: tuple[int, int] | None = None  # (guard, branch) holding the current code
        self.shares_a_line: set[int] = set()  # first lines of blocks written on their test's line
        self.built: dict[str, str] = {}  # the function's locals bound to `Cls(...)`: name -> callee
        #: the names module-level code binds or imports: the heads a table read may start from
        self.module_names: frozenset[str] = frozenset()
        #: per function being walked: the ids of its top-level statements, and its narrowing
        #: guards so far (guard index, the names it tests against None not rebound since)
        self.top_level: list[set[int]] = []
        self.narrowing: list[list[tuple[int, set[str]]]] = []

    def body(self, statements: list[ast.stmt]) -> None:
        for stmt in statements:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.summary.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    self.summary.imports.setdefault(head, head)
        elif isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name != "*":
                    sep = "" if module.endswith(".") else "."
                    self.summary.imports[alias.asname or alias.name] = f"{module}{sep}{alias.name}"
        else:
            if self.functions:
                self.error_paths(stmt)
                self.rebind(stmt)
            if isinstance(stmt, ast.If) and self.guarded(stmt):
                return
            if isinstance(stmt, ast.If) and self.functions:
                self.once(stmt)
            if isinstance(stmt, ast.Assign):
                self.assign(stmt.targets, stmt.value)
                if not self.functions and not self.classes and len(stmt.targets) == 1:
                    self.alias(stmt.targets[0], stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign([stmt.target], stmt.value)
            nested = [getattr(stmt, name, None) for name in ("body", "orelse", "finalbody")]
            nested += [h.body for h in getattr(stmt, "handlers", ())]
            nested += [c.body for c in getattr(stmt, "cases", ())]
            walked = [n for expr in _own_expressions(stmt) for n in self.expressions(expr)]
            if not isinstance(stmt, ast.AnnAssign):  # the default-configuration pass reads them again
                self.walked[id(stmt)] = walked
            for block in nested:
                if isinstance(block, list):
                    self.body(block)

    def klass(self, node: ast.ClassDef) -> None:
        qual = ".".join([*self.scope, node.name])
        info = ClassInfo(qual, [b for b in (dotted_with_super(base) for base in node.bases) if b])
        for decorator in node.decorator_list:
            name = dotted_with_super(decorator.func if isinstance(decorator, ast.Call) else decorator)
            if name:
                info.decorators.append(name)
        self.summary.classes[qual] = info
        for expr in (*node.bases, *node.keywords, *node.decorator_list):
            self.expressions(expr)
        self.scope.append(node.name)
        self.classes.append(info)
        self.body(node.body)
        self.classes.pop()
        self.scope.pop()

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qual = ".".join([*self.scope, node.name])
        parent = ".".join(self.scope)
        cls = self.classes[-1].qualname if self.classes and self.classes[-1].qualname == parent else None
        info = FunctionInfo(qual, node.name, node.lineno, node.end_lineno or node.lineno, cls)
        args = node.args
        info.params = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        info.takes_session = any(
            SESSION.search(dotted_with_super(a.annotation) or "")
            for a in (*args.posonlyargs, *args.args)
            if a.annotation
        )
        if node.decorator_list:
            info.start = min(d.lineno for d in node.decorator_list)
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = qualify(self.summary, dotted_with_super(target))
            if name:
                info.decorators.append(name)
        if qual in self.summary.functions:
            self.summary.shadowed.append(self.summary.functions[qual])
        self.summary.functions[qual] = info
        if cls is not None:
            self.classes[-1].methods[node.name] = qual
        for decorator in node.decorator_list:  # torch.compile(...) in a decorator is a site
            self.expressions(decorator)
        if PREDICATE.match(node.name):
            returns = predicate_returns(node)
            if returns is not None:
                self.summary.predicates[qual] = returns
        self.scope.append(node.name)
        self.functions.append(info)
        self.top_level.append({id(stmt) for stmt in node.body})
        self.narrowing.append([])
        outer_built, self.built = self.built, {}
        outer, self.guard_at = self.guard_at, None
        self.body(node.body)
        self.guard_at = outer
        self.built = outer_built
        self.narrowing.pop()
        self.top_level.pop()
        self.functions.pop()
        self.scope.pop()

    def error_paths(self, stmt: ast.stmt) -> None:
        """A block that ends by raising runs only on the way to an error (`if bad: msg = ...;
        raise`), and so does a ``raise`` itself: what they cost is paid once, on failure."""
        blocks: list[list[ast.stmt]] = []
        if isinstance(stmt, ast.If):
            blocks = [stmt.body, stmt.orelse]
        elif isinstance(stmt, ast.Try):
            blocks = [h.body for h in stmt.handlers]
        elif isinstance(stmt, ast.Raise):
            blocks = [[stmt]]
        opened = getattr(stmt, "test", None)
        after = (opened.end_lineno or opened.lineno) if opened is not None else stmt.lineno - 1
        if isinstance(stmt, ast.Raise) and stmt.lineno in self.shares_a_line:
            return  # `if bad: raise ...` on one line: the line also holds the test
        for block in blocks:
            if block and block[0].lineno <= after:
                self.shares_a_line.add(block[0].lineno)
            elif block and _raises(block[-1]):
                end = max((s.end_lineno or s.lineno) for s in block)
                self.summary.error_paths.append((block[0].lineno, end))

    def once(self, node: ast.If) -> None:
        """``if self.x is None:`` (or ``if not self.x:``) whose body sets ``self.x``: the body
        runs on the first call; every later call finds the attribute set (dynamo guards on it)."""
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            target = test.operand
        elif (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))
              and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in (None, False)):
            target = test.left
        else:
            return
        name = dotted_with_super(target) if isinstance(target, ast.Attribute) else None
        if not name or not name.startswith("self.") or name.count(".") != 1:
            return
        for stmt in node.body:
            for child in ast.walk(stmt):
                targets = child.targets if isinstance(child, ast.Assign) else (
                    [child.target] if isinstance(child, (ast.AnnAssign, ast.AugAssign)) else [])
                if any(dotted_with_super(t) == name for t in targets):
                    end = max((s.end_lineno or s.lineno) for s in node.body)
                    self.summary.once_paths.append((node.body[0].lineno, end, name))
                    return

    def guarded(self, node: ast.If) -> bool:
        """Keep an ``if`` whose test calls a compile-state predicate for :func:`classify`, with
        the calls of each branch apart, and below a guard that narrows a name (:attr:`GuardInfo
        .after`), an ``if`` that tests that name against None; False for any other ``if``."""
        if not self.functions:
            return False
        test = test_tree(node.test)
        narrowing = self.narrowing[-1]
        after = [[index, sorted(names)] for index, names in narrowing if names]
        tested = set(none_names(test))
        predicate = calls_predicate(test)
        if not predicate and not (tested & {n for _, names in after for n in names}):
            return False
        body = (node.body[0].lineno, max((s.end_lineno or s.lineno) for s in node.body))
        orelse = (node.orelse[0].lineno, max((s.end_lineno or s.lineno) for s in node.orelse)) if node.orelse else None
        guard = GuardInfo(self.functions[-1].qualname, test, body, orelse, ([], []), self.guard_at, after)
        index = len(self.summary.guards)
        self.summary.guards.append(guard)
        self.walked[id(node)] = self.expressions(node.test)
        outer = self.guard_at
        for branch, statements in enumerate((node.body, node.orelse)):
            self.guard_at = (index, branch)
            self.body(statements)
        self.guard_at = outer
        if predicate and tested and id(node) in self.top_level[-1] and _exits(node.body):
            narrowing.append((index, tested))
        return True

    def rebind(self, stmt: ast.stmt) -> None:
        """A statement that binds names ends what the narrowing guards say of them."""
        if not self.functions or not any(names for _, names in self.narrowing[-1]):
            return
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        bound.update(
            n.target.id for expr in _own_expressions(stmt) for n in ast.walk(expr)
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
        )
        for _, names in self.narrowing[-1]:
            names.difference_update(bound)

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        for target in targets:
            if (
                self.functions and isinstance(target, ast.Attribute) and target.attr == "forward"
                and isinstance(target.value, ast.Name) and not self.classes
                and any(target.value.id in f.params for f in self.functions)
            ):
                self.summary.forward_replacers.add(self.functions[0].qualname)
            if (dotted_with_super(target) or "").endswith("backed_size_oblivious") and _is_true(value):
                self.mode_setup(oblivious=True, process_wide=True)
            if self.functions and isinstance(target, ast.Attribute) and target.attr == "data":
                self.functions[-1].mutates_module = True  # `module.weight.data = fused`: surgery
            if self.functions and (dotted_with_super(target) or "").startswith("self."):
                for option in (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,):
                    name = dotted_with_super(option) if isinstance(option, ast.Attribute) else None
                    if name and name.startswith("self.") and name.count(".") == 1:
                        self.functions[-1].stored_refs.add(name[5:])
        entries = _table_entries(value)
        if entries:
            self.table(targets, entries)
        if isinstance(value, ast.Name) and value.id in self.built and self.classes:
            for target in targets:  # `head = FCOSHead(...)` ... `self.head = head`
                name = dotted_with_super(target)
                if name and name.startswith("self.") and name.count(".") == 1:
                    self.classes[-1].attributes.setdefault(name[5:], self.built[value.id])
        if not isinstance(value, ast.Call):
            return
        callee = dotted_with_super(value.func)
        if self.functions and (callee or "").endswith("Parameter"):
            if any(isinstance(t, ast.Attribute) for t in targets):  # `self.w = nn.Parameter(...)`
                self.functions[-1].mutates_module = True
        if not callee or not callee.rsplit(".", 1)[-1][:1].isupper():
            return
        for target in targets:
            name = dotted_with_super(target)
            if name and name.startswith("self.") and self.classes and name.count(".") == 1:
                self.classes[-1].attributes.setdefault(name[5:], callee)
            elif name and not self.functions:
                self.summary.instances[name] = callee
            elif name and "." not in name:
                self.built[name] = callee

    def table(self, targets: list[ast.expr], entries: list[str]) -> None:
        """Record a dispatch table bound to a module-level name, a class-level one or
        ``self.<attr>`` (:attr:`FileSummary.tables`)."""
        for target in targets:
            name = dotted_with_super(target)
            if not name:
                continue
            if not self.functions and not self.classes and "." not in name:
                self.summary.tables[name] = entries
            elif self.classes and not self.functions and "." not in name:
                self.summary.tables[f"{self.classes[-1].qualname}.{name}"] = entries
            elif self.classes and name.startswith("self.") and name.count(".") == 1:
                key = f"{self.classes[-1].qualname}.{name[5:]}"
                self.summary.tables[key] = sorted({*self.summary.tables.get(key, ()), *entries})
            elif self.functions and "." not in name:
                # a table of the function's own (`ops = {"gelu": gelu}` ... `ops[kind](x)`): what
                # it holds is called here, as far as anyone can tell
                self.functions[-1].calls.update(entries)

    def table_read(self, receiver: ast.expr) -> None:
        """Note what a function looks up in or calls a method of, where it may be a table."""
        name = dotted_with_super(receiver)
        if not name or not self.functions:
            return
        function = self.functions[-1]
        head = name.split(".", 1)[0]
        if (head == "self" and name.count(".") == 1) or (head in self.module_names and head not in function.params):
            function.table_reads.add(name)

    def alias(self, target: ast.expr, value: ast.expr) -> None:
        """Record ``name = other.dotted.name`` at module level (:attr:`FileSummary.aliases`)."""
        dotted = alias_of(value) if isinstance(target, ast.Name) else None
        if dotted:
            self.summary.aliases[target.id] = qualify(self.summary, dotted) or dotted

    def expressions(self, root: ast.AST) -> list[ast.AST]:
        """Note the calls and attributes under ``root``; returns the nodes the default-configuration
        pass reads (:data:`zlint.scope.option_paths.READ_NODES`), in walk order."""
        called: set[int] = set()
        kept: list[ast.AST] = []
        for node in walk(root):  # parents come before children: a callee is seen as called
            kind = type(node)
            if kind in READ_NODES:
                kept.append(node)
            if kind is ast.Call:
                self.call(node)  # type: ignore[arg-type]
                called.add(id(node.func))  # type: ignore[attr-defined]
                if type(node.func) is ast.Attribute:  # type: ignore[attr-defined]
                    self.table_read(node.func.value)  # type: ignore[attr-defined]
            elif kind is ast.Subscript and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                self.table_read(node.value)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                value = node.value  # type: ignore[attr-defined]
                on_self = type(value) is ast.Name and value.id == "self"
                if not on_self:
                    self.attribute_name(node.attr)  # type: ignore[attr-defined]
                if id(node) not in called and self.functions:
                    if on_self and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                        self.functions[-1].refs.add(node.attr)  # type: ignore[attr-defined]
                elif node.attr == "DYNAMIC":  # type: ignore[attr-defined]
                    if (dotted_with_super(value) or "").endswith("Dim"):
                        self.mode_setup(oblivious=False)
        return kept

    def mode_setup(self, oblivious: bool, process_wide: bool = False) -> None:
        """Note a single-graph mode set up here (:attr:`FileSummary.mode_setups`)."""
        self.summary.single_graph = True
        self.summary.size_oblivious |= oblivious
        self.summary.mode_setups.append([".".join(self.scope), oblivious, process_wide])

    def attribute_name(self, name: str) -> None:
        (self.functions[-1] if self.functions else self.summary).attribute_names.add(name)

    def tensor_check(self, node: ast.Call) -> None:
        """Note a parameter of the current function passed as a tensor check's condition."""
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "cond"), None)
        function = self.functions[-1]
        if isinstance(first, ast.Name) and first.id in function.params:
            function.tensor_checks.append((node.lineno, function.params.index(first.id)))

    def call(self, node: ast.Call) -> None:
        callee = dotted_with_super(node.func)
        if callee is None:
            return
        last = callee.rsplit(".", 1)[-1]
        if callee in ("getattr", "hasattr") and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            if isinstance(node.args[1].value, str):
                self.attribute_name(node.args[1].value)
        if self.functions:
            if self.guard_at is not None:
                guard, branch = self.guard_at
                self.summary.guards[guard].calls[branch].append(callee)
            else:
                self.functions[-1].calls.add(callee)
            if last in ("register_buffer", "register_parameter") and callee.startswith("self."):
                self.functions[-1].mutates_module = True
            if last in IO_METHODS or (qualify(self.summary, callee) or callee) in IO_CALLS:
                self.functions[-1].does_io = True
            if (last == "numpy" and "." in callee) or (qualify(self.summary, callee) or "").startswith(HOST_LIBRARIES):
                self.functions[-1].to_host = True
            if last.startswith("_check_tensor_all") and qualify(self.summary, callee) in TENSOR_CHECK_CALLS:
                self.tensor_check(node)
        if last == "mark_unbacked":
            self.mode_setup(oblivious=False)
        if any(k.arg == "backed_size_oblivious" and _is_true(k.value) for k in node.keywords):
            self.mode_setup(oblivious=True)
        qualified = qualify(self.summary, callee)
        owner = ".".join(self.scope)
        if qualified in COMPILE_CALLS and node.args:
            first = node.args[0]
            target = dotted_with_super(first.func) if isinstance(first, ast.Call) else dotted_with_super(first)
            if target:
                self.summary.compiled_names.append((owner, target))
        elif last == "compile" and qualified == callee and "." in callee and not node.args:
            self.summary.compiled_names.append((owner, callee.rsplit(".", 1)[0]))  # model.compile()


def _raises(stmt: ast.stmt) -> bool:
    """``raise``, ``assert False`` or ``torch._assert(False, ...)``."""
    if isinstance(stmt, ast.Raise):
        return True
    if isinstance(stmt, ast.Assert):
        return isinstance(stmt.test, ast.Constant) and not stmt.test.value
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and stmt.value.args:
        name, first = dotted_with_super(stmt.value.func) or "", stmt.value.args[0]
        return name.endswith("_assert") and isinstance(first, ast.Constant) and first.value is False
    return False


def _own_expressions(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions of a statement, not those of the statements nested in it."""
    out: list[ast.AST] = []
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out


def _is_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def summarize(path: str, tree: ast.Module, text: str = "") -> FileSummary:
    """The facts of one file that the project-wide classification needs (``text``: its source,
    whose header comments may say it was generated from another file)."""
    summary = FileSummary(path, generated_from=generated_from(text))
    summarizer = _Summarizer(summary)
    summarizer.module_names = _module_names(tree)
    summarizer.body(tree.body)
    record_defaults(tree, summary, summarizer.walked)
    return summary


def _exits(body: list[ast.stmt]) -> bool:
    """A block that ends by returning or raising: what follows its ``if`` runs only where the
    test is false."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _module_names(tree: ast.Module) -> frozenset[str]:
    """The names the module's own statements bind or import (its top level only)."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return frozenset(names)


def _table_entries(value: ast.expr) -> list[str]:
    """The dotted names a dict, list, tuple or set display holds as values (not calls, not
    constants): the entries of a dispatch table (``{"sdpa": sdpa_forward, ...}``)."""
    if isinstance(value, ast.Dict):
        items: list[ast.expr] = list(value.values)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        items = list(value.elts)
    else:
        return []
    found = {dotted_with_super(item) for item in items if isinstance(item, (ast.Name, ast.Attribute))}
    return sorted(name for name in found if name and not name.startswith("self."))


def generated_from(text: str) -> str:
    """The file the leading comment block of ``text`` says it was generated from, or ``""``."""
    for line in text.splitlines()[:_HEADER_LINES]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        found = _GENERATED_FROM.search(stripped)
        if found:
            return found.group(1)
    return ""


def alias_of(value: ast.expr) -> str | None:
    """The dotted name a module-level binding's value stands for, as written: an attribute chain,
    ``getattr(x, "name"[, default])`` on one, and the first operand of ``a or fallback`` (the
    fallback is for a library version without ``a``)."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return alias_of(value.values[0])
    if (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
        and 2 <= len(value.args) <= 3 and not value.keywords
        and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str)
    ):
        owner = alias_of(value.args[0])
        return f"{owner}.{value.args[1].value}" if owner else None
    if isinstance(value, (ast.Name, ast.Attribute)):
        return dotted_with_super(value)
    return None
