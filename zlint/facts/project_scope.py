"""Where code runs under ``torch.compile``, across the files of one run.

A cheap ``ast`` pass over each file (:func:`summarize`) records its classes, functions, the calls
each function makes, its imports and what it says about compiling. :func:`classify` then labels
every function of the run:

* ``compiled``: the ``forward`` of an ``nn.Module`` (dynamo traces ``forward`` whenever a model is
  compiled, whoever compiles it), a function passed to or decorated with ``torch.compile``, and
  everything these call (``self.method()``, helpers of the module, imported helpers that resolve to
  a file of the run);
* ``never``: code that runs once, eagerly, outside any compiled call: construction (``__init__``),
  weight initialization, state-dict loading and checkpoint conversion, input preprocessing
  (processors, tokenizers, feature extractors), configuration, functions dynamo is told to skip
  (``torch.compiler.disable``), branches dynamo never takes (``if not is_compiling():``), and
  helpers only such code calls;
* ``unknown``: the rest.

The answer for one file is a :class:`FileScope`: small, picklable, hashable into the cache key.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

from zlint.facts.compile_state import (
    PREDICATE,
    absolute_name,
    calls_predicate,
    dotted,
    known_predicate_value,
    predicate_returns,
    skipped_operands,
    test_tree,
    tree_value,
)
from zlint.facts.host_roles import (
    ATTENTION_PROCESSOR,
    SESSION,
    checkpoint_role,
    class_role,
    file_role,
    function_role,
)

COMPILED, NEVER, UNKNOWN = "compiled", "never", "unknown"

# nn.Module and its subclasses in torch (Sequential, ModuleList, ...): their forward is traced.
_MODULE_BASE_PREFIXES = ("torch.nn.", "nn.")
SKIPPED_OPERAND = "not evaluated under torch.compile"
# Reading or writing files: dynamo cannot trace it, and model code does it only at setup or export
_IO_CALLS = frozenset({
    "open", "io.open", "torch.load", "torch.save", "numpy.load", "numpy.save", "numpy.loadtxt",
    "json.load", "json.dump", "pickle.load", "pickle.dump", "yaml.safe_load",
    "safetensors.torch.load_file", "safetensors.torch.save_file", "safetensors.safe_open",
})
_IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes"})
_COMPILE = frozenset({"torch.compile"})
# bases that say a class is not a module, whatever its methods are called
_PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Protocol", "typing.Protocol", "NamedTuple", "Enum"})
# dynamo runs what these decorate eagerly (TorchScript's jit.ignore/unused say nothing to dynamo)
_DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo"})


@dataclass
class _Function:
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
    #: callees called only inside branches dynamo never takes (tracing/scripting/not compiling)
    branch_calls: set[str] = field(default_factory=set)
    #: registers a buffer or parameter on the module, or assigns one: it changes the model (setup)
    mutates_module: bool = False
    #: takes an inference session (`inference_session: Sam3VideoInferenceSession`): a stateful
    #: host-side object that a streaming driver updates frame by frame
    takes_session: bool = False
    #: reads or writes files (`open`, `torch.load`, `json.dump`, ...): setup or export work
    does_io: bool = False


@dataclass
class _Guard:
    """An ``if`` in a function whose test calls a compile-state predicate; read in :func:`classify`,
    once every predicate of the run is known."""

    function: str  # qualname of the function holding it
    test: list  # the test as a small JSON-able tree (zlint.facts.compile_state.test_tree)
    body: tuple[int, int]
    orelse: tuple[int, int] | None
    #: callees called in the body / in the else branch (kept out of the function's own calls)
    calls: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    #: the guard and branch (0 body, 1 else) this one is nested in, if any
    parent: tuple[int, int] | None = None


@dataclass
class _Class:
    qualname: str
    bases: list[str]
    methods: dict[str, str] = field(default_factory=dict)  # name -> function qualname
    attributes: dict[str, str] = field(default_factory=dict)  # self.x = Cls(...) -> callee name


@dataclass
class FileSummary:
    """What one file defines, imports, calls and compiles (from its ``ast``)."""

    path: str
    #: local name -> dotted target (``nn`` -> ``torch.nn``, ``helper`` -> ``.utils.helper``)
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, _Function] = field(default_factory=dict)
    classes: dict[str, _Class] = field(default_factory=dict)
    #: callee expressions passed to torch.compile / compiled in place, as (owner qualname, dotted)
    compiled_names: list[tuple[str, str]] = field(default_factory=list)
    #: module-level `name = Cls(...)` bindings, for `torch.compile(model)`
    instances: dict[str, str] = field(default_factory=dict)
    #: earlier definitions of a name defined again (`if cond: def f` / `else: def f`): they run
    #: where the later one with the same qualified name runs
    shadowed: list[_Function] = field(default_factory=list)
    #: (first line, last line) of blocks that end by raising, and of raise statements
    error_paths: list[tuple[int, int]] = field(default_factory=list)
    #: tests calling a compile-state predicate, in source order
    guards: list[_Guard] = field(default_factory=list)
    #: predicate functions defined here (`def is_tracing(...)`): qualname -> tree of what they return
    predicates: dict[str, list] = field(default_factory=dict)
    size_oblivious: bool = False  # enables backed_size_oblivious
    single_graph: bool = False  # enables any single-graph mode (also mark_unbacked, Dim.DYNAMIC)


@dataclass(frozen=True)
class FileScope:
    """The compiled scope of one file: line regions, innermost wins, plus the single-graph facts."""

    #: (start line, end line, scope, reason), outermost first
    regions: tuple[tuple[int, int, str, str], ...] = ()
    #: this file enables backed_size_oblivious / any single-graph mode
    size_oblivious_here: bool = False
    single_graph_here: bool = False
    #: some file of the run does
    size_oblivious_project: bool = False
    single_graph_project: bool = False
    #: (line, column, end line, end column) of operands dynamo never evaluates: an expression
    #: inside whatever region holds it, so it wins over the regions
    skipped: tuple[tuple[int, int, int, int], ...] = ()

    def classify(self, line: int, column: int | None = None) -> tuple[str, str]:
        """(scope, reason) of the code at ``line`` (and ``column``, 0-based, when known: an
        operand dynamo skips may share its line with code that runs)."""
        if column is not None:
            for start, start_column, end, end_column in self.skipped:
                if (start, start_column) <= (line, column) < (end, end_column):
                    return NEVER, SKIPPED_OPERAND
        found = (NEVER, "module level (runs at import)")
        for start, end, scope, reason in self.regions:
            if start <= line <= end:
                found = (scope, reason)  # later regions are nested deeper
        return found

    def fingerprint(self) -> str:
        """What the cache key must include: everything here can change a finding."""
        return repr(self)


def _qualify(summary: FileSummary, name: str | None) -> str | None:
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
    statement are scanned flat with ``ast.walk``, which is several times cheaper than a visitor."""

    def __init__(self, summary: FileSummary) -> None:
        self.summary = summary
        self.scope: list[str] = []
        self.classes: list[_Class] = []
        self.functions: list[_Function] = []
        self.guard_at: tuple[int, int] | None = None  # (guard, branch) holding the current code
        self.shares_a_line: set[int] = set()  # first lines of blocks written on their test's line

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
            if isinstance(stmt, ast.If) and self.guarded(stmt):
                return
            if isinstance(stmt, ast.Assign):
                self.assign(stmt.targets, stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign([stmt.target], stmt.value)
            nested = [getattr(stmt, name, None) for name in ("body", "orelse", "finalbody")]
            nested += [h.body for h in getattr(stmt, "handlers", ())]
            nested += [c.body for c in getattr(stmt, "cases", ())]
            for expr in _own_expressions(stmt):
                self.expressions(expr)
            for block in nested:
                if isinstance(block, list):
                    self.body(block)

    def klass(self, node: ast.ClassDef) -> None:
        qual = ".".join([*self.scope, node.name])
        info = _Class(qual, [b for b in (dotted(base) for base in node.bases) if b])
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
        info = _Function(qual, node.name, node.lineno, node.end_lineno or node.lineno, cls)
        args = node.args
        info.params = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        info.takes_session = any(
            SESSION.search(dotted(a.annotation) or "") for a in (*args.posonlyargs, *args.args) if a.annotation
        )
        if node.decorator_list:
            info.start = min(d.lineno for d in node.decorator_list)
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = _qualify(self.summary, dotted(target))
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
        outer, self.guard_at = self.guard_at, None
        self.body(node.body)
        self.guard_at = outer
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

    def guarded(self, node: ast.If) -> bool:
        """Keep an ``if`` whose test calls a compile-state predicate for :func:`classify`, with
        the calls of each branch apart; False when the test calls none."""
        if not self.functions:
            return False
        test = test_tree(node.test)
        if not calls_predicate(test):
            return False
        body = (node.body[0].lineno, max((s.end_lineno or s.lineno) for s in node.body))
        orelse = (node.orelse[0].lineno, max((s.end_lineno or s.lineno) for s in node.orelse)) if node.orelse else None
        guard = _Guard(self.functions[-1].qualname, test, body, orelse, ([], []), self.guard_at)
        index = len(self.summary.guards)
        self.summary.guards.append(guard)
        self.expressions(node.test)
        outer = self.guard_at
        for branch, statements in enumerate((node.body, node.orelse)):
            self.guard_at = (index, branch)
            self.body(statements)
        self.guard_at = outer
        return True

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        for target in targets:
            if (dotted(target) or "").endswith("backed_size_oblivious") and _is_true(value):
                self.summary.size_oblivious = self.summary.single_graph = True
            if self.functions and isinstance(target, ast.Attribute) and target.attr == "data":
                self.functions[-1].mutates_module = True  # `module.weight.data = fused`: surgery
        if not isinstance(value, ast.Call):
            return
        callee = dotted(value.func)
        if self.functions and (callee or "").endswith("Parameter"):
            if any(isinstance(t, ast.Attribute) for t in targets):  # `self.w = nn.Parameter(...)`
                self.functions[-1].mutates_module = True
        if not callee or not callee.rsplit(".", 1)[-1][:1].isupper():
            return
        for target in targets:
            name = dotted(target)
            if name and name.startswith("self.") and self.classes and name.count(".") == 1:
                self.classes[-1].attributes.setdefault(name[5:], callee)
            elif name and not self.functions:
                self.summary.instances[name] = callee

    def expressions(self, root: ast.AST) -> None:
        called: set[int] = set()
        for node in ast.walk(root):  # parents come before children: a callee is seen as called
            if isinstance(node, ast.Call):
                self.call(node)
                called.add(id(node.func))
            elif isinstance(node, ast.Attribute) and id(node) not in called and self.functions:
                if isinstance(node.value, ast.Name) and node.value.id == "self" and isinstance(node.ctx, ast.Load):
                    self.functions[-1].refs.add(node.attr)
            elif isinstance(node, ast.Attribute) and node.attr == "DYNAMIC":
                if (dotted(node.value) or "").endswith("Dim"):
                    self.summary.single_graph = True

    def call(self, node: ast.Call) -> None:
        callee = dotted(node.func)
        if callee is None:
            return
        last = callee.rsplit(".", 1)[-1]
        if self.functions:
            if self.guard_at is not None:
                guard, branch = self.guard_at
                self.summary.guards[guard].calls[branch].append(callee)
            else:
                self.functions[-1].calls.add(callee)
            if last in ("register_buffer", "register_parameter") and callee.startswith("self."):
                self.functions[-1].mutates_module = True
            if last in _IO_METHODS or (_qualify(self.summary, callee) or callee) in _IO_CALLS:
                self.functions[-1].does_io = True
        if last == "mark_unbacked":
            self.summary.single_graph = True
        if any(k.arg == "backed_size_oblivious" and _is_true(k.value) for k in node.keywords):
            self.summary.size_oblivious = self.summary.single_graph = True
        qualified = _qualify(self.summary, callee)
        owner = ".".join(self.scope)
        if qualified in _COMPILE and node.args:
            first = node.args[0]
            target = dotted(first.func) if isinstance(first, ast.Call) else dotted(first)
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
        name, first = dotted(stmt.value.func) or "", stmt.value.args[0]
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


def summarize(path: str, tree: ast.Module) -> FileSummary:
    """The facts of one file that the project-wide classification needs."""
    summary = FileSummary(path)
    _Summarizer(summary).body(tree.body)
    return summary


# -- the project --------------------------------------------------------------------------------

_Key = tuple[str, str]  # (path, function qualname)


class _Project:
    """Name resolution across the files of one run."""

    def __init__(self, summaries: Iterable[FileSummary]) -> None:
        self.files = {s.path: s for s in summaries}
        # every dotted module name a file may be imported as: a/b/c.py -> c, b.c, a.b.c
        self.modules: dict[str, str | None] = {}
        for path in self.files:
            parts = list(PurePath(path).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            for i in range(len(parts)):
                name = ".".join(parts[i:])
                # an ambiguous suffix (two files end in models/utils.py) resolves to nothing
                self.modules[name] = path if name not in self.modules else None
        self._module_cache: dict[str, bool] = {}
        self._relative: dict[tuple[str, str], str | None] = {}
        self._symbols: dict[tuple[str, str], tuple[str, str] | None] = {}
        self._children: dict[_Key, list[_Key]] | None = None  # class -> its direct subclasses
        # method name -> the methods of that name in the run's classes: a call on an object whose
        # class is not known (`self.head.predict(...)` with the head registered by a framework,
        # `components.head.predict(...)`) resolves by name when exactly one class defines it
        self.methods_named: dict[str, list[_Key]] = {}
        for path, summary in self.files.items():
            for info in summary.classes.values():
                for name, qual in info.methods.items():
                    self.methods_named.setdefault(name, []).append((path, qual))

    def module_file(self, importer: str, dotted: str) -> str | None:
        """The file of the run that ``dotted`` (``.utils``, ``timm.layers``) names, if any."""
        if not dotted.startswith("."):
            return self.modules.get(dotted)
        # relative imports resolve from the importer's directory: memoized, as every file of a
        # package imports the same few siblings many times
        key = (os.path.dirname(importer), dotted)
        if key not in self._relative:
            self._relative[key] = self._relative_file(importer, dotted)
        return self._relative[key]

    def _relative_file(self, importer: str, dotted: str) -> str | None:
        level = len(dotted) - len(dotted.lstrip("."))
        base = PurePath(importer).parent
        for _ in range(level - 1):
            base = base.parent
        rest = dotted.lstrip(".").split(".") if dotted.strip(".") else []
        for candidate in (base.joinpath(*rest).with_suffix(".py") if rest else None,
                          base.joinpath(*rest, "__init__.py")):
            if candidate is not None and str(candidate) in self.files:
                return str(candidate)
        return None

    def resolve_symbol(self, path: str, name: str) -> tuple[str, str] | None:
        """(file, qualname) of a function or class that ``name`` names in ``path``."""
        key = (path, name)
        if key not in self._symbols:
            self._symbols[key] = None  # a re-export cycle resolves to nothing
            self._symbols[key] = self._resolve_symbol(path, name)
        return self._symbols[key]

    def _resolve_symbol(self, path: str, name: str) -> tuple[str, str] | None:
        summary = self.files[path]
        if name in summary.functions or name in summary.classes:
            return path, name
        head, _, rest = name.partition(".")
        target = summary.imports.get(head)
        if target is None:
            if rest and head in summary.classes:  # Cls.method
                return path, name
            return None
        full = f"{target}.{rest}" if rest else target
        # split the dotted target into a module of the run and a symbol in it, longest module first
        pieces = full.split(".") if not full.startswith(".") else None
        if pieces is None:
            dots = len(full) - len(full.lstrip("."))
            pieces = [full[:dots] + (full[dots:].split(".")[0] if full[dots:] else ""), *full[dots:].split(".")[1:]]
        for cut in range(len(pieces) - 1, 0, -1):
            module = ".".join(pieces[:cut]) if not pieces[0].startswith(".") else _join_relative(pieces[:cut])
            file = self.module_file(path, module)
            if file is not None:
                symbol = ".".join(pieces[cut:])
                other = self.files[file]
                if symbol in other.functions or symbol in other.classes:
                    return file, symbol
                if "." not in symbol and symbol in other.imports and (file, symbol) != (path, name):
                    return self.resolve_symbol(file, symbol)  # re-exported through __init__.py
                return None
        return None

    def class_of(self, path: str, name: str) -> tuple[str, str] | None:
        found = self.resolve_symbol(path, name)
        if found and found[1] in self.files[found[0]].classes:
            return found
        return None

    def is_module_class(self, path: str, qual: str, forward: bool = False, seen: frozenset = frozenset()) -> bool:
        """True when the class derives from ``nn.Module``, directly or through classes of the
        run. A base from outside the run (a library's ``PreTrainedModel``) counts as a module when
        the class or a subclass on the way defines ``forward`` (``forward`` is the nn.Module
        convention)."""
        key = f"{path}\0{qual}\0{forward}"
        if key in self._module_cache:
            return self._module_cache[key]
        if key in seen:
            return False
        summary = self.files[path]
        info = summary.classes[qual]
        forward = forward or "forward" in info.methods
        answer = False
        for base in info.bases:
            qualified = _qualify(summary, base) or base
            if qualified.startswith(_MODULE_BASE_PREFIXES) and not qualified.startswith("torch.nn.functional"):
                answer = True
            else:
                found = self.class_of(path, base)
                if found is not None:
                    answer = self.is_module_class(*found, forward, seen | {key})
                elif forward and base not in _PLAIN_BASES:
                    answer = True
            if answer:
                break
        self._module_cache[key] = answer
        return answer

    def method(self, path: str, cls: str, name: str, seen: frozenset = frozenset()) -> _Key | None:
        """``name`` looked up on class ``cls`` and its bases of the run (a simple MRO)."""
        info = self.files[path].classes.get(cls)
        if info is None or (path, cls) in seen:
            return None
        if name in info.methods:
            return path, info.methods[name]
        for base in info.bases:
            found = self.class_of(path, base)
            if found is not None:
                hit = self.method(*found, name, seen | {(path, cls)})
                if hit is not None:
                    return hit
        return None

    def attribute_class(self, path: str, cls: str, attr: str) -> _Key | None:
        info = self.files[path].classes.get(cls)
        while info is not None:
            callee = info.attributes.get(attr)
            if callee is not None:
                return self.class_of(path, callee)
            base = next((self.class_of(path, b) for b in info.bases if self.class_of(path, b)), None)
            if base is None or base[0] != path:
                return None
            info = self.files[path].classes.get(base[1])
        return None

    def callees(self, path: str, function: _Function, names: Iterable[str] | None = None) -> list[_Key]:
        """The functions of the run that ``function`` calls (as far as names resolve); ``names``:
        only these of its calls."""
        summary = self.files[path]
        out: list[_Key] = []
        if names is None and function.refs and function.cls:
            for attr in function.refs:
                hit = self.method(path, function.cls, attr)
                if hit is not None:
                    out.append(hit)
        for name in function.calls if names is None else names:
            name = name.removesuffix(".forward").removesuffix(".__call__")
            head, _, rest = name.partition(".")
            if head in ("self", "super()") and function.cls:
                if not rest:
                    continue
                attr = rest.split(".")[0]
                if "." not in rest:
                    if head == "self":
                        hit = self.method(path, function.cls, attr)
                        # `self.m()` runs whichever override the object's class has: those of
                        # the subclasses of the run too (a hook the base's loop calls)
                        out.extend(self.overrides(path, function.cls, attr))
                    else:
                        hit = self._super(path, function.cls, attr)
                    if hit is not None:
                        out.append(hit)
                        continue
                module = self.attribute_class(path, function.cls, attr)
                if module is not None:  # a submodule, or a plain callable object (a processor)
                    hit = self.method(*module, "forward") or self.method(*module, "__call__")
                    if hit is not None:
                        out.append(hit)
                elif "." in rest:
                    out.extend(self._by_method_name(rest.rsplit(".", 1)[-1]))
                continue
            nested = f"{function.qualname}.{name}"
            if nested in summary.functions:
                out.append((path, nested))
                continue
            found = self.resolve_symbol(path, name)
            if found is None:
                if rest and head not in summary.imports:  # a method of an object: `obj.attr.m(...)`
                    out.extend(self._by_method_name(name.rsplit(".", 1)[-1]))
                continue
            file, symbol = found
            if symbol in self.files[file].functions:
                out.append(found)
        return out

    def overrides(self, path: str, cls: str, name: str) -> list[_Key]:
        """The methods ``name`` that subclasses of ``cls`` (in the run, at any depth) define."""
        if self._children is None:
            self._children = {}
            for file, summary in self.files.items():
                for qual, info in summary.classes.items():
                    for base in info.bases:
                        found = self.class_of(file, base)
                        if found is not None and found != (file, qual):
                            self._children.setdefault(found, []).append((file, qual))
        out: list[_Key] = []
        seen = {(path, cls)}
        todo = list(self._children.get((path, cls), ()))
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            qual = self.files[key[0]].classes[key[1]].methods.get(name)
            if qual is not None:
                out.append((key[0], qual))
            todo.extend(self._children.get(key, ()))
        return out

    def _by_method_name(self, name: str) -> list[_Key]:
        """The one method of the run named ``name``, for a call whose receiver's class is unknown;
        nothing when no class or several classes define it (the call could be any of them, or a
        library's) or when the name is a dunder or ``forward`` (every module has one)."""
        owners = self.methods_named.get(name, ())
        if len(owners) != 1 or name == "forward" or name.startswith("__"):
            return []
        return list(owners)

    def _super(self, path: str, cls: str, name: str) -> _Key | None:
        info = self.files[path].classes[cls]
        for base in info.bases:
            found = self.class_of(path, base)
            if found is not None:
                hit = self.method(*found, name)
                if hit is not None:
                    return hit
        return None


def _join_relative(pieces: list[str]) -> str:
    return pieces[0] + ("." + ".".join(pieces[1:]) if len(pieces) > 1 else "")


def _marked_never(function: _Function) -> str | None:
    """An explicit marker that dynamo skips ``function``: it wins over reachability."""
    for decorator in function.decorators:
        if decorator in _DISABLE:
            return f"@{decorator}"
    return None


def _class_names(project: _Project, path: str, cls: str, seen: frozenset = frozenset()) -> list[str]:
    """The short names of a class and of all its bases, through classes of the run."""
    info = project.files[path].classes[cls]
    names = [cls.rsplit(".", 1)[-1]]
    for base in info.bases:
        names.append(base.rsplit(".", 1)[-1])
        found = project.class_of(path, base)
        if found is not None and found not in seen and found != (path, cls):
            names.extend(_class_names(project, *found, seen | {(path, cls)}))
    return names


def _never_reason(project: _Project, path: str, function: _Function) -> str | None:
    """Why ``function`` never runs compiled, from what it is, or None. These are heuristics:
    a function that compiled code reaches is compiled whatever this says."""
    reason = function_role(function.name)
    if reason is not None:
        return reason
    if function.mutates_module:
        return "changes the model's parameters or buffers (setup)"
    if function.does_io:
        return "reads or writes files (setup or export)"
    if function.cls is not None and not project.is_module_class(path, function.cls):
        return class_role(_class_names(project, path, function.cls), function.cls.rsplit(".", 1)[-1])
    return None


def classify(summaries: Iterable[FileSummary]) -> dict[str, FileScope]:
    """The :class:`FileScope` of every file of the run."""
    project = _Project(summaries)
    verdict: dict[_Key, tuple[str, str]] = {}
    functions = {(p, q): f for p, s in project.files.items() for q, f in s.functions.items()}

    # explicit markers first; name and class heuristics only for what compiled code never reaches
    by_role: set[_Key] = set()
    for key, function in functions.items():
        if PurePath(key[0]).name.startswith("convert_"):
            verdict[key] = (NEVER, "conversion script")
            continue
        role = file_role(key[0])
        if role is not None:  # a role by name; an explicit torch.compile still wins (below)
            verdict[key] = (NEVER, role)
            by_role.add(key)
            continue
        if function.name == "forward" and function.takes_session:
            # the driver of a streaming model (video tracking): Python bookkeeping per frame
            # around the submodules, whose own forwards are what gets compiled
            verdict[key] = (NEVER, "streaming driver (takes an inference session)")
            continue
        reason = _marked_never(function)
        if reason is not None:
            verdict[key] = (NEVER, reason)

    # compiled roots: forwards of modules, functions handed to torch.compile
    work: list[_Key] = []
    for key, function in functions.items():
        if key in verdict:
            continue
        path = key[0]
        if function.name == "forward" and function.cls and project.is_module_class(path, function.cls):
            verdict[key] = (COMPILED, f"forward of {function.cls.rsplit('.', 1)[-1]}")
            work.append(key)
        elif function.name == "__call__" and function.cls and ATTENTION_PROCESSOR.search(function.cls):
            # `Attention.forward` dispatches to whichever processor object it was given
            verdict[key] = (COMPILED, f"attention processor ({function.cls.rsplit('.', 1)[-1]})")
            work.append(key)
        elif any(d in _COMPILE for d in function.decorators):
            verdict[key] = (COMPILED, "decorated with torch.compile")
            work.append(key)
    for key in by_role:
        if any(d in _COMPILE for d in functions[key].decorators):
            verdict[key] = (COMPILED, "decorated with torch.compile")
            work.append(key)
    for path, summary in project.files.items():
        for owner, name in summary.compiled_names:
            for key in _compiled_targets(project, path, owner, name):
                if verdict.get(key, (None,))[0] is None or key in by_role:
                    verdict[key] = (COMPILED, "passed to torch.compile")
                    work.append(key)

    dead_code = {path: _read_guards(project, path) for path in project.files}
    callers: dict[_Key, set[_Key]] = {}
    branch_callers: dict[_Key, _Key] = {}  # called from a branch dynamo never takes
    for key, function in functions.items():
        for callee in project.callees(key[0], function):
            if callee != key:
                callers.setdefault(callee, set()).add(key)
        if function.branch_calls:
            for callee in project.callees(key[0], function, function.branch_calls):
                branch_callers.setdefault(callee, key)
    calls: dict[_Key, set[_Key]] = {}
    for callee, who in callers.items():
        for caller in who:
            calls.setdefault(caller, set()).add(callee)

    while work:  # what compiled code calls is compiled
        key = work.pop()
        for callee in sorted(calls.get(key, ())):  # sorted: the same reason on every run
            if callee not in verdict:
                verdict[callee] = (COMPILED, f"called from {key[1]}")
                work.append(callee)

    for key, function in functions.items():
        if key not in verdict:
            reason = _never_reason(project, key[0], function)
            if reason is not None:
                verdict[key] = (NEVER, reason)

    _propagate_never(functions, verdict, callers, branch_callers)
    # the weakest hint last, so that "called only from ..." keeps its more telling reason
    for key, function in functions.items():
        if key not in verdict:
            reason = checkpoint_role(function.params)
            if reason is not None:
                verdict[key] = (NEVER, reason)
    _propagate_never(functions, verdict, callers, branch_callers)

    oblivious = any(s.size_oblivious for s in project.files.values())
    single = any(s.single_graph for s in project.files.values())
    out: dict[str, FileScope] = {}
    for path, summary in project.files.items():
        regions: list[tuple[int, int, str, str]] = []
        every = [*summary.functions.items(), *((f.qualname, f) for f in summary.shadowed)]
        for qual, function in sorted(every, key=lambda kv: (kv[1].start, -kv[1].end)):
            scope, reason = verdict.get((path, qual), (None, ""))
            if scope is None:
                scope, reason = _inherited(regions, function) or (UNKNOWN, "no compiled caller found")
            regions.append((function.start, function.end, scope, reason))
        regions.extend((s, e, NEVER, why) for s, e, why in dead_code[path][0])
        regions.extend((s, e, NEVER, "error path (runs only on the way to raising)") for s, e in summary.error_paths)
        regions.sort(key=lambda r: (r[0], -r[1]))
        out[path] = FileScope(
            tuple(regions), summary.size_oblivious, summary.single_graph, oblivious, single,
            tuple(sorted(dead_code[path][1])),
        )
    return out


def _read_guards(
    project: _Project, path: str
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, int, int]]]:
    """Decide the file's compile-state tests now that every predicate of the run is known: the
    calls of a branch dynamo takes join the function's calls, those of a branch it never takes
    become ``branch_calls``. Returns the line spans dynamo never runs (branches), and the
    positions of the operands it never evaluates."""
    summary = project.files[path]
    dead: dict[tuple[int, int], bool] = {}
    spans: list[tuple[int, int, str]] = []
    skipped: list[tuple[int, int, int, int]] = []
    for index, guard in enumerate(summary.guards):
        function = summary.functions.get(guard.function)
        def call_value(name: str) -> bool | None:
            return _predicate_value(name, path, project)

        value = tree_value(guard.test, call_value)
        inside_dead = guard.parent is not None and dead[guard.parent]
        for branch, span in enumerate((guard.body, guard.orelse)):
            never = inside_dead or (value is not None and value is (branch == 1))
            dead[(index, branch)] = never
            if function is not None:
                (function.branch_calls if never else function.calls).update(guard.calls[branch])
            if never and span is not None and not inside_dead:
                spans.append((*span, "branch not taken under torch.compile"))
        if not inside_dead:
            for line, column, end, end_column, decided in skipped_operands(guard.test, call_value):
                skipped.append((line, column, end, end_column))
                if end > decided:  # whole lines after the deciding operand, for line-only queries
                    spans.append((max(line, decided + 1), end, SKIPPED_OPERAND))
    return spans, skipped


def _predicate_value(name: str, path: str, project: _Project, seen: frozenset = frozenset()) -> bool | None:
    """What calling ``name`` (in ``path``) returns under dynamo: known for torch's and libraries'
    predicates; a predicate defined in the run is read from what it returns."""
    qualified = _qualify(project.files[path], name) or name
    if qualified.startswith("."):  # `from .utils import is_tracing` inside a library's package
        qualified = absolute_name(path, qualified) or qualified
    known = known_predicate_value(qualified)
    if known is not None:
        return known
    found = project.resolve_symbol(path, name)
    if found is None or found in seen:
        return None
    returns = project.files[found[0]].predicates.get(found[1])
    if returns is None:
        return None
    return tree_value(returns, lambda callee: _predicate_value(callee, found[0], project, seen | {found}))


def _propagate_never(
    functions: dict[_Key, _Function],
    verdict: dict[_Key, tuple[str, str]],
    callers: dict[_Key, set[_Key]],
    branch_callers: dict[_Key, _Key],
) -> None:
    """Helpers that only never-compiled code (or a branch dynamo never takes) calls are never
    compiled either."""
    changed = True
    while changed:
        changed = False
        for key in functions:
            who = callers.get(key, set())
            if key in verdict or not (who or key in branch_callers):
                continue
            if all(verdict.get(c, (None,))[0] == NEVER for c in who):
                if who:
                    why = f"called only from {sorted(who)[0][1]}"
                else:
                    why = f"called only in a tracing/scripting branch of {branch_callers[key][1]}"
                verdict[key] = (NEVER, why)
                changed = True


def _inherited(regions: list[tuple[int, int, str, str]], function: _Function) -> tuple[str, str] | None:
    """A nested function runs where its enclosing function runs."""
    for start, end, scope, reason in reversed(regions):
        if start <= function.start and function.end <= end and scope != UNKNOWN:
            return scope, reason
    return None


def _compiled_targets(project: _Project, path: str, owner: str, name: str) -> list[_Key]:
    """The functions ``torch.compile(name)`` (written in function ``owner``) compiles."""
    summary = project.files[path]
    name = name.removesuffix(".forward")
    if name.startswith("self.") and owner:
        cls = owner.rsplit(".", 1)[0]
        if cls in summary.classes:
            attr = name[5:]
            hit = project.method(path, cls, attr)
            if hit is not None:
                return [hit]
            module = project.attribute_class(path, cls, attr)
            forward = project.method(*module, "forward") if module else None
            return [forward] if forward else []
        return []
    callee = summary.instances.get(name, name)
    found = project.resolve_symbol(path, callee)
    if found is None:
        return []
    file, symbol = found
    if symbol in project.files[file].classes:  # torch.compile(model) with model = Net(...)
        forward = project.method(file, symbol, "forward")
        return [forward] if forward else []
    return [found]


def scope_for_file(path: str, tree: ast.Module) -> FileScope:
    """The scope of one file linted on its own (no project index)."""
    return classify([summarize(path, tree)])[path]
