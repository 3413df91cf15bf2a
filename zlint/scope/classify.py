"""Where code runs under ``torch.compile``, across the files of one run.

A cheap ``ast`` pass over each file (:func:`~zlint.scope.file_summary.summarize`) records its
classes, functions, the calls each function makes, its imports and what it says about compiling;
:mod:`zlint.scope.names` resolves names across the files. :func:`classify` then labels
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
* ``option``: a branch of compiled or unknown code that the run's default configuration
  never takes (``if self.use_tiling:`` with ``use_tiling = False`` in ``__init__``; the file
  summaries hold each test as a tree, :mod:`zlint.scope.option_paths`, which
  :mod:`zlint.scope.defaults` evaluates over the run), the helpers only such branches call
  (``tiled_decode`` and the ``blend_v`` it calls), or only such helpers, and the classes only
  such branches build: compiled only where a user turns the option on;
* ``unknown``: the rest.

The answer for one file is a :class:`FileScope`: small, picklable, hashable into the cache key.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath

from zlint.core.diagnostics import tensor_check_need
from zlint.core.walks import reach, settle
from zlint.scope.compile_state import (
    absolute_name,
    is_package,
    known_predicate_value,
    narrowed,
    skipped_operands,
    tree_value,
)
from zlint.scope.defaults import Defaults
from zlint.scope.file_summary import COMPILE_CALLS, FileSummary, FunctionInfo, GuardInfo, qualify, summarize
from zlint.scope.host_roles import (
    ATTENTION_PROCESSOR,
    checkpoint_role,
    class_role,
    criterion_role,
    file_role,
    function_role,
)
from zlint.scope.names import Key, Project

__all__ = ["COMPILED", "NEVER", "OPTION", "UNKNOWN", "FileScope", "classify", "scope_for_file"]

COMPILED, NEVER, OPTION, UNKNOWN = "compiled", "never", "option", "unknown"

SKIPPED_OPERAND = "not evaluated under torch.compile"
# dynamo runs what these decorate eagerly (TorchScript's jit.ignore/unused say nothing to dynamo)
_DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo"})


@dataclass(frozen=True)
class FileScope:
    """The compiled scope of one file: line regions, innermost wins, plus the single-graph facts."""

    #: (start line, end line, scope, reason), outermost first
    regions: tuple[tuple[int, int, str, str], ...] = ()
    #: this file enables backed_size_oblivious / any single-graph mode
    size_oblivious_here: bool = False
    single_graph_here: bool = False
    #: some file of the run does for the whole process (sets the config)
    size_oblivious_project: bool = False
    single_graph_project: bool = False
    #: (line, column, end line, end column) of operands dynamo never evaluates: an expression
    #: inside whatever region holds it, so it wins over the regions
    skipped: tuple[tuple[int, int, int, int], ...] = ()
    #: the run holds this file's whole Python package: "no compiled caller found" is then what
    #: the search found (a user calls the code from outside), not a gap in what the run saw
    whole_package: bool = False
    #: (line, column, end line, end column, reason) of operands the module's default
    #: configuration never evaluates (``self.use_tiling and ...``): ``option`` unless never compiled
    option_operands: tuple[tuple[int, int, int, int, str], ...] = ()
    #: facts of the run findings of this file may need (:attr:`Diagnostic.needs`)
    facts: tuple[str, ...] = ()
    #: (first line, last line, whether backed_size_oblivious) of the functions of this file that
    #: a mark or a scoped patch elsewhere in the run reaches (:attr:`FileSummary.mode_setups`)
    mode_regions: tuple[tuple[int, int, bool], ...] = ()

    def single_graph_at(self, line: int, oblivious: bool = False) -> bool:
        """Whether the run compiles the code at ``line`` under a single-graph mode set up in a
        file of the run (``oblivious``: backed_size_oblivious itself); this file's own set-up
        counts only where it reaches, except for the file's own findings (``*_here``)."""
        if self.size_oblivious_project if oblivious else self.single_graph_project:
            return True
        return any(start <= line <= end and (is_oblivious or not oblivious)
                   for start, end, is_oblivious in self.mode_regions)

    def classify(self, line: int, column: int | None = None) -> tuple[str, str]:
        """(scope, reason) of the code at ``line`` (and ``column``, 0-based, when known: an
        operand dynamo skips may share its line with code that runs)."""
        if column is not None:
            for start, start_column, end, end_column in self.skipped:
                if (start, start_column) <= (line, column) < (end, end_column):
                    return NEVER, SKIPPED_OPERAND
        found: tuple[str, str] | None = None
        for start, end, scope, reason in self.regions:
            # later regions are nested deeper; code that never compiles stays so under an option
            if start <= line <= end and not (scope == OPTION and found is not None and found[0] == NEVER):
                found = (scope, reason)
        if found is None:
            found = (NEVER, "module level (runs at import)")
        if column is not None and found[0] != NEVER:
            for start, start_column, end, end_column, reason in self.option_operands:
                if (start, start_column) <= (line, column) < (end, end_column):
                    return OPTION, reason
        return found


def _marked_never(project: Project, path: str, function: FunctionInfo) -> str | None:
    """An explicit marker that dynamo skips ``function``, itself or through a module-level alias
    of the run (``disable_compiler = torch.compiler.disable``): it wins over reachability."""
    for decorator in function.decorators:
        if decorator in _DISABLE:
            return f"@{decorator}"
        if project.alias_target(path, decorator) in _DISABLE:
            return f"@{decorator.rsplit('.', 1)[-1]} (an alias of torch.compiler.disable)"
    return None


def _templates(project: Project) -> dict[str, str]:
    """Files of the run that another file of the run says it was generated from (its header:
    "automatically generated from .../modular_x.py"), in the same directory: template -> the
    generated file. Nothing imports a template; its code runs as the generated file."""
    out: dict[str, str] = {}
    for path, summary in project.files.items():
        if summary.generated_from:
            source = str(PurePath(path).parent / PurePath(summary.generated_from).name)
            if source != path and source in project.files:
                out[source] = path
    return out


def _class_names(project: Project, path: str, cls: str) -> list[str]:
    """The short names of a class and of all its bases, through classes of the run."""
    names = []
    for key in project.lineage(path, cls):
        names.append(key[1].rsplit(".", 1)[-1])
        names.extend(base.rsplit(".", 1)[-1] for base, _ in project.base_classes(*key))
    return names


def _never_reason(project: Project, path: str, function: FunctionInfo) -> str | None:
    """Why ``function`` never runs compiled, from what it is, or None. These are heuristics:
    a function that compiled code reaches is compiled whatever this says."""
    reason = function_role(function.name)
    if reason is not None:
        return reason
    if function.mutates_module:
        return "changes the model's parameters or buffers (setup)"
    if function.does_io:
        return "reads or writes files (setup or export)"
    if function.to_host:
        return "hands tensors to host libraries (.numpy(), PIL, matplotlib, OpenCV)"
    if function.cls is not None and not project.is_module_class(path, function.cls):
        return class_role(_class_names(project, path, function.cls), function.cls.rsplit(".", 1)[-1])
    built = _module_built(project, path, function)
    if built is not None:
        return f"builds modules ({built}(...)): model construction"
    return None


def _module_built(project: Project, path: str, function: FunctionInfo) -> str | None:
    """A module class ``function`` instantiates (``nn.Linear(...)``, ``RegNet(...)``), if any:
    code that builds layers constructs the model, once, before anything is compiled."""
    summary = project.files[path]
    for name in sorted(function.calls):
        last = name.rsplit(".", 1)[-1]
        if not last[:1].isupper():
            continue
        qualified = qualify(summary, name) or name
        if qualified.startswith("torch.nn.") and not qualified.startswith("torch.nn.functional"):
            if qualified.count(".") == 2 and last != "Parameter":
                return last
            continue
        found = project.class_of(path, name)
        if found is not None and project.is_module_class(*found):
            return last
    return None


def _eager_methods(
    project: Project,
    functions: dict[Key, FunctionInfo],
    verdict: dict[Key, tuple[str, str]],
    calls: dict[Key, set[Key]],
    callers: dict[Key, set[Key]],
    whole: frozenset[str],
    escaped: set[Key],
) -> dict[Key, str]:
    """The methods no code the run may compile can call, with why: in a run that holds their
    package, what reaches them is only eager code, or their callers outside the run (a user calling
    ``model.merge()`` between forwards). Code that may compile is compiled code, public functions
    no code of the run calls (a user may call them anywhere), and methods called implicitly or
    by a base from outside the run; from there a call reaches what it resolves to and, on an
    object of unknown class (``obj.merge()``, ``getattr(obj, "m")``), every method of that name."""
    by_name = project.methods_named
    roots: list[Key] = []
    for key, function in functions.items():
        scope = verdict.get(key, (None,))[0]
        if scope == NEVER:
            continue
        if function.cls is None:
            public = key not in callers  # a user may call it from their compiled code
        else:
            public = function.name == "forward" or function.name.startswith("__")
            public = public or not _bases_known(project, key[0], function.cls)
        if public or scope == COMPILED or key[0] not in whole or key in escaped:
            roots.append(key)
    for summary in project.files.values():  # module-level tables of methods (`{"a": Net.m}`)
        for name in summary.attribute_names:
            roots.extend(by_name.get(name, ()))

    def successors(key: Key) -> Iterator[Key]:
        function = functions[key]
        yield from calls.get(key, ())
        for name in function.attribute_names:
            yield from by_name.get(name, ())
        if function.cls is not None:
            for name in (*function.calls, *(f"self.{r}" for r in function.refs)):
                head, _, rest = name.partition(".")
                if head == "self" and rest and "." not in rest and project.method(key[0], function.cls, rest) is None:
                    yield from by_name.get(rest, ())  # a method the class does not have: maybe any

    may_compile = [key for key in roots if verdict.get(key, (None,))[0] != NEVER]
    reached = set(reach(may_compile, lambda key: (k for k in successors(key) if verdict.get(k, (None,))[0] != NEVER)))
    out: dict[Key, str] = {}
    for key, function in functions.items():
        if key in reached or key in verdict or function.cls is None or key[0] not in whole:
            continue
        who = sorted(callers.get(key, ()))
        if who:
            out[key] = f"called only from eager code ({who[0][1]})"
        else:
            owner = function.cls.rsplit(".", 1)[-1]
            out[key] = f"no code of the run calls {owner}.{function.name} (its callers run it eagerly)"
    return out


# bases from outside the run whose own code calls no method a subclass adds: nn.Module runs only
# forward (and its hooks) when called, the containers their children's forwards, the rest are plain
_INERT_BASES = frozenset({
    "torch.nn.Module", "nn.Module", "torch.nn.Sequential", "nn.Sequential", "torch.nn.ModuleList", "nn.ModuleList",
    "torch.nn.ModuleDict", "nn.ModuleDict", "object", "ABC", "abc.ABC", "typing.Protocol", "Protocol",
})


def _bases_known(project: Project, path: str, cls: str) -> bool:
    """True when every base of ``cls``, through classes of the run, is one of the run's or an inert one."""
    for key in project.lineage(path, cls):
        summary = project.files[key[0]]
        for base, found in project.base_classes(*key):
            if found is None and (qualify(summary, base) or base) not in _INERT_BASES:
                return False
    return True


def classify(summaries: Iterable[FileSummary], whole: frozenset[str] = frozenset()) -> dict[str, FileScope]:
    """The :class:`FileScope` of every file of the run; ``whole``: the files whose whole package
    the run holds, where a method that no code of the run calls has no caller in compiled code."""
    project = Project(_unshared(s) for s in summaries)
    verdict: dict[Key, tuple[str, str]] = {}
    functions = {(p, q): f for p, s in project.files.items() for q, f in s.functions.items()}

    # explicit markers first; name and class heuristics only for what compiled code never reaches
    by_role: set[Key] = set()
    templates = _templates(project)
    for key, function in functions.items():
        if PurePath(key[0]).name.startswith("convert_"):
            verdict[key] = (NEVER, "conversion script")
            continue
        if key[0] in templates:
            generated = PurePath(templates[key[0]]).name
            verdict[key] = (NEVER, f"template of the generated {generated}: never imported (its code runs there)")
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
        reason = _marked_never(project, key[0], function)
        if reason is not None:
            verdict[key] = (NEVER, reason)

    # compiled roots: forwards of modules, functions handed to torch.compile
    work: list[Key] = []
    criteria: dict[Key, str] = {}  # loss forwards: not roots
    for key, function in functions.items():
        if key in verdict:
            continue
        path = key[0]
        if function.name == "forward" and function.cls and project.is_module_class(path, function.cls):
            replacer = _forward_replaced_by(project, path, function.cls)
            if replacer is not None:
                # the class's calls run the decorator's dispatcher, which picks an
                # implementation by configuration; this one runs only where it is picked
                verdict[key] = (UNKNOWN, f"@{replacer} replaces this forward: it runs only where its dispatch picks it")
                continue
            criterion = criterion_role(_class_names(project, path, function.cls))
            if criterion is not None:  # compiled only if compiled code reaches it (below)
                criteria[key] = criterion
                continue
            verdict[key] = (COMPILED, f"forward of {function.cls.rsplit('.', 1)[-1]}")
            work.append(key)
        elif function.name == "__call__" and function.cls and ATTENTION_PROCESSOR.search(function.cls):
            # `Attention.forward` dispatches to whichever processor object it was given
            verdict[key] = (COMPILED, f"attention processor ({function.cls.rsplit('.', 1)[-1]})")
            work.append(key)
        elif any(d in COMPILE_CALLS for d in function.decorators):
            verdict[key] = (COMPILED, "decorated with torch.compile")
            work.append(key)
    for key in by_role:
        if any(d in COMPILE_CALLS for d in functions[key].decorators):
            verdict[key] = (COMPILED, "decorated with torch.compile")
            work.append(key)
    for path, summary in project.files.items():
        for owner, name in summary.compiled_names:
            for key in _compiled_targets(project, path, owner, name):
                if verdict.get(key, (None,))[0] is None or key in by_role:
                    verdict[key] = (COMPILED, "passed to torch.compile")
                    work.append(key)

    dead_code = {path: _read_guards(project, path) for path in project.files}
    checks = _tensor_check_wrappers(project, dead_code)
    callers: dict[Key, set[Key]] = {}
    branch_callers: dict[Key, Key] = {}  # called from a branch dynamo never takes
    for key, function in functions.items():
        # a function in a dispatch table runs wherever a reader of the table calls it
        # (`ATTENTION_FUNCTIONS[impl](...)`): its readers are its callers
        read = project.table_functions(key[0], function) if function.table_reads else []
        for callee in [*project.callees(key[0], function), *read]:
            if callee != key:
                callers.setdefault(callee, set()).add(key)
        if function.branch_calls:
            for callee in project.callees(key[0], function, function.branch_calls):
                branch_callers.setdefault(callee, key)
    # a method taken as a value (`self.searcher = self.greedy_decode` in __init__) runs wherever
    # the value is called: who took it says nothing about where it runs
    escaped = {
        hit for key, f in functions.items() if f.stored_refs for hit in project.referenced(key[0], f, f.stored_refs)
    }
    calls = _invert(callers)

    # the default configuration: which candidate paths it never takes, and the classes only
    # such paths build (their methods run only where a user turns the option on)
    defaults = Defaults(project, functions, whole, callers, escaped)
    held = {path: defaults.decide(path) for path in project.files}
    option_classes = _option_classes(project, functions, held, defaults.children)
    built_only: dict[Key, str] = {}
    for (path, cls), why in option_classes.items():
        for name, qual in project.files[path].classes[cls].methods.items():
            # a compiled root (its forward) too: no compiled call has been followed yet
            if verdict.get((path, qual), (COMPILED,))[0] == COMPILED and function_role(name) is None:
                built_only[path, qual] = why
                verdict[path, qual] = (OPTION, why)
    work = [key for key in work if key not in built_only]

    roots = set(work)  # compiled whatever calls them
    compiled_from: dict[Key, Key] = {}
    while work:  # what compiled code calls is compiled
        key = work.pop()
        for callee in sorted(calls.get(key, ())):  # sorted: the same reason on every run
            # reaching compiled code wins over a file's role by its name: a helper in a `data/`
            # package that a compiled forward calls runs compiled
            if callee not in verdict or (callee in by_role and verdict[callee][0] == NEVER):
                by_role.discard(callee)
                verdict[callee] = (COMPILED, f"called from {key[1]}")
                compiled_from[callee] = key
                work.append(callee)
    for key, why in criteria.items():
        verdict.setdefault(key, (UNKNOWN, why))

    for key, function in functions.items():
        if key not in verdict:
            reason = _never_reason(project, key[0], function)
            if reason is not None:
                verdict[key] = (NEVER, reason)

    _propagate_never(functions, verdict, callers, branch_callers, escaped)
    if whole:
        for key, why in _eager_methods(project, functions, verdict, calls, callers, whole, escaped).items():
            verdict[key] = (NEVER, why)
        _propagate_never(functions, verdict, callers, branch_callers, escaped)
    # the weakest hint last, so that "called only from ..." keeps its more telling reason
    for key, function in functions.items():
        if key not in verdict:
            reason = checkpoint_role(function.params)
            if reason is not None:
                verdict[key] = (NEVER, reason)
    _propagate_never(functions, verdict, callers, branch_callers, escaped)

    plain_callers, option_callers = _split_callers(project, functions, callers, held)
    _propagate_option(functions, verdict, plain_callers, option_callers, roots | escaped, built_only)
    _compiled_by_default(functions, verdict, plain_callers, roots, escaped, compiled_from)
    process_wide = [setup for s in project.files.values() for setup in s.mode_setups if setup[2]]
    oblivious, single = any(setup[1] for setup in process_wide), bool(process_wide)
    under_mode = _under_single_graph_mode(project, functions, callers, calls)
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
        regions.extend(
            (s, e, NEVER, f"one-time set-up: sets {attr} on the first call only") for s, e, attr in summary.once_paths
        )
        taken = [(span[:5], why) for span, why in zip(summary.option_paths, held[path]) if why is not None]
        # whole lines after the deciding test, for line-only queries; the rest by position
        regions.extend((max(s, d + 1), e, OPTION, why) for (s, _, e, _, d), why in taken if e > d)
        regions.sort(key=lambda r: (r[0], -r[1]))
        out[path] = FileScope(
            tuple(regions), summary.size_oblivious, summary.single_graph, oblivious, single,
            tuple(sorted(dead_code[path][1])), path in whole and is_package(os.path.dirname(path) or "."),
            tuple(sorted((s, c, e, ec, why) for (s, c, e, ec, _), why in taken)),
            _facts(project, path, checks),
            tuple(sorted(
                (f.start, f.end, under_mode[path, qual])
                for qual, f in summary.functions.items() if (path, qual) in under_mode
            )),
        )
    return out


def _under_single_graph_mode(
    project: Project, functions: dict[Key, FunctionInfo], callers: dict[Key, set[Key]], calls: dict[Key, set[Key]]
) -> dict[Key, bool]:
    """The functions a mark or a scoped patch of the run reaches (:attr:`FileSummary.mode_setups`),
    each with whether backed_size_oblivious is among the modes that reach it.

    Dynamo sees ``mark_unbacked`` only on the tensor it marks, in the frames compiled while that
    tensor is passed in: the code the marking function calls, and, since a helper may mark the
    tensors it is given and hand them back, the code its callers call. A ``patch(...)`` holds
    for what its function runs. Whatever those call, and what the compile calls they make
    compile, runs under the mode; a set-up at module level reaches the whole file. A mark whose
    compiled code cannot be followed (a harness compiling a function it is handed) reaches none."""
    starts: dict[Key, bool] = {}
    for path, summary in project.files.items():
        for owner, oblivious, process_wide in summary.mode_setups:
            if process_wide:
                continue
            key = (path, owner)
            if key in functions:
                found = [key, *(() if oblivious else callers.get(key, ()))]
            else:  # module level, or a class body: what the file runs and compiles there
                found = [k for k in functions if k[0] == path]
                found += [
                    target for at, name in summary.compiled_names if (path, at) not in functions
                    for target in _compiled_targets(project, path, at, name)
                ]
            for start in found:
                starts[start] = starts.get(start, False) or oblivious
    out: dict[Key, bool] = {}

    def successors(key: Key) -> Iterator[Key]:
        yield from sorted(calls.get(key, ()))
        path = key[0]
        for owner, name in project.files[path].compiled_names:
            if owner == key[1]:
                yield from _compiled_targets(project, path, owner, name)

    for oblivious in (True, False):  # the oblivious set-ups first: their reach says so
        for key in reach([k for k, o in starts.items() if o == oblivious], successors):
            if key in functions:
                out.setdefault(key, oblivious)
    return out


def _tensor_check_wrappers(project: Project, dead_code: dict[str, tuple[list, list]]) -> set[Key]:
    """Functions of the run that hand their first parameter to ``torch._check_tensor_all`` on
    a path dynamo traces (transformers' ``torch_compilable_check`` does so under ``is_tracing()``):
    called with a tensor condition, each call is the tensor check's graph break."""
    out: set[Key] = set()
    for path, summary in project.files.items():
        never = dead_code[path][0]
        for qual, function in summary.functions.items():
            if function.cls is None and any(
                index == 0 and not any(s <= line <= e for s, e, _ in never) for line, index in function.tensor_checks
            ):
                out.add((path, qual))
    return out


def _facts(project: Project, path: str, checks: set[Key]) -> tuple[str, ...]:
    """The run facts findings of ``path`` may need: the names it calls that are tensor checks."""
    if not checks:
        return ()
    names = {name for f in project.files[path].functions.values() for name in f.calls}
    return tuple(sorted(tensor_check_need(n) for n in names if project.resolve_symbol(path, n) in checks))


def _forward_replaced_by(project: Project, path: str, cls: str) -> str | None:
    """The decorator of class ``cls`` (in ``path``) that rebinds its ``forward``, if one of the run
    does (:attr:`FileSummary.forward_replacers`)."""
    info = project.files[path].classes.get(cls)
    for name in info.decorators if info is not None else ():
        found = project.resolve_symbol(path, name)
        if found is not None and found[1] in project.files[found[0]].forward_replacers:
            return name
    return None


def _unshared(summary: FileSummary) -> FileSummary:
    """``summary`` with its own call sets for the functions its guards name (:func:`_read_guards`
    adds to them): the caller's summaries stay as the file has them, to classify again."""
    if not summary.guards:
        return summary
    guarded = {guard.function for guard in summary.guards}
    functions = {
        qual: dataclasses.replace(f, calls=set(f.calls), branch_calls=set(f.branch_calls)) if qual in guarded else f
        for qual, f in summary.functions.items()
    }
    return dataclasses.replace(summary, functions=functions)


def _read_guards(
    project: Project, path: str
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, int, int]]]:
    """Decide the file's compile-state tests now that every predicate of the run is known: the
    calls of a branch dynamo takes join the function's calls, those of a branch it never takes
    become ``branch_calls``. Returns the line spans dynamo never runs (branches), and the
    positions of the operands it never evaluates."""
    summary = project.files[path]
    dead: dict[tuple[int, int], bool] = {}
    spans: list[tuple[int, int, str]] = []
    skipped: list[tuple[int, int, int, int]] = []

    def call_value(name: str) -> bool | None:
        return _predicate_value(name, path, project)

    for index, guard in enumerate(summary.guards):
        function = summary.functions.get(guard.function)
        known = _narrowed_by(summary.guards, guard, call_value)
        value = tree_value(guard.test, call_value, known)
        inside_dead = guard.parent is not None and dead[guard.parent]
        for branch, span in enumerate((guard.body, guard.orelse)):
            never = inside_dead or (value is not None and value is (branch == 1))
            dead[(index, branch)] = never
            if function is not None:
                (function.branch_calls if never else function.calls).update(guard.calls[branch])
            if never and span is not None and not inside_dead:
                spans.append((*span, "branch not taken under torch.compile"))
        if not inside_dead:
            for line, column, end, end_column, decided in skipped_operands(guard.test, call_value, known):
                skipped.append((line, column, end, end_column))
                if end > decided:  # whole lines after the deciding operand, for line-only queries
                    spans.append((max(line, decided + 1), end, SKIPPED_OPERAND))
    return spans, skipped


def _narrowed_by(guards: list[GuardInfo], guard: GuardInfo, call_value) -> dict[str, bool]:
    """The None-ness of names that the guards above ``guard`` decide on dynamo's path (each
    returns or raises where it holds: :attr:`GuardInfo.after`); a name two guards disagree on is
    left unknown."""
    known: dict[str, bool] = {}
    clashes: set[str] = set()
    for index, names in guard.after:
        for name, none in narrowed(guards[index].test, call_value, names).items():
            if known.setdefault(name, none) is not none:
                clashes.add(name)
    return {name: none for name, none in known.items() if name not in clashes}


def _predicate_value(name: str, path: str, project: Project, seen: frozenset = frozenset()) -> bool | None:
    """What calling ``name`` (in ``path``) returns under dynamo: known for torch's and libraries'
    predicates; a predicate defined in the run is read from what it returns."""
    qualified = qualify(project.files[path], name) or name
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
    functions: dict[Key, FunctionInfo],
    verdict: dict[Key, tuple[str, str]],
    callers: dict[Key, set[Key]],
    branch_callers: dict[Key, Key],
    escaped: set[Key],
) -> None:
    """Helpers that only never-compiled code (or a branch dynamo never takes) calls are never
    compiled either; not a method some code takes as a value (it runs where that is called)."""

    def one_round() -> bool:  # each round adds verdicts, or ends the walk
        changed = False
        for key in functions:
            who = callers.get(key, set())
            if key in verdict or key in escaped or not (who or key in branch_callers):
                continue
            if all(verdict.get(c, (None,))[0] == NEVER for c in who):
                if who:
                    why = f"called only from {sorted(who)[0][1]}"
                else:
                    why = f"called only in a tracing/scripting branch of {branch_callers[key][1]}"
                verdict[key] = (NEVER, why)
                changed = True
        return changed

    settle(one_round)


def _split_callers(
    project: Project,
    functions: dict[Key, FunctionInfo],
    callers: dict[Key, set[Key]],
    held: dict[str, list[str | None]],
) -> tuple[dict[Key, set[Key]], dict[Key, dict[Key, str]]]:
    """``callers`` split in two: the callers with a call (or a reference) of the function off
    the paths the default configuration never takes (``held``: per file, per candidate path,
    its reason or None), and those whose every call of it lies on such a path, with the reason
    of the first. A callee name may resolve to several functions and a function be named two
    ways: a caller with any plain call of it is plain."""
    plain = callers
    optional: dict[Key, dict[Key, str]] = {}
    for key, function in functions.items():
        if not function.option_calls:
            continue
        reasons = held[key[0]]
        on_paths: dict[str, str] = {}  # callee name -> the reason of the first path holding its calls
        for name, sites in function.option_calls.items():
            if name not in function.calls:
                continue  # in a branch dynamo never takes: no call of the compiled code
            first = [next((reasons[i] for i in site if reasons[i] is not None), None) for site in sites]
            if first and None not in first:
                on_paths[name] = first[0]  # type: ignore[assignment]
        if not on_paths:
            continue
        path = key[0]
        found = set(project.referenced(path, function))
        found.update(project.callees(path, function, [n for n in function.calls if n not in on_paths]))
        for name in sorted(on_paths):
            for callee in project.callees(path, function, [name]):
                if callee != key and callee not in found and key not in optional.get(callee, {}):
                    if plain is callers:
                        plain = {k: set(v) for k, v in callers.items()}  # the caller's stays whole
                    plain[callee].discard(key)
                    optional.setdefault(callee, {})[key] = on_paths[name]
    return plain, optional


def _option_classes(
    project: Project, functions: dict[Key, FunctionInfo], held: dict[str, list[str | None]],
    children: dict[Key, list[Key]],
) -> dict[Key, str]:
    """The classes that only default-off paths build or hand on (``DropBlock(...) if rate > 0
    else nn.Identity()``), or only the methods of such classes, nor any subclass otherwise: the
    default configuration never makes one, so their methods run only where a user turns the
    option on. A class the run names nowhere stays as it is (a user may build it)."""
    named: dict[Key, list[tuple[Key | None, list[int]]]] = {}
    for path, summary in project.files.items():
        for name in summary.class_refs:
            found = project.class_of(path, name)
            if found is not None:
                named.setdefault(found, []).append((None, []))
        for qual, function in summary.functions.items():
            for name, sites in function.class_refs.items():
                found = project.class_of(path, name)
                if found is not None:
                    named.setdefault(found, []).extend(((path, qual), site) for site in sites)
    out: dict[Key, str] = {}

    def one_round() -> bool:  # each round adds classes, or ends the walk
        changed = False
        for cls, where in named.items():
            if cls in out or any(child not in out for child in children.get(cls, ())):
                continue
            reasons = [_built_why(project, held, out, owner, sites) for owner, sites in where]
            if reasons and None not in reasons:
                out[cls] = f"only in {cls[1].rsplit('.', 1)[-1]}, which is built {reasons[0]}"
                changed = True
        return changed

    settle(one_round)
    return out


def _built_why(
    project: Project, held: dict[str, list[str | None]], option: dict[Key, str], owner: Key | None, sites: list[int]
) -> str | None:
    """Why a class reference in function ``owner`` (None: module level) is made only under a
    non-default configuration: a path it lies on, or the option class whose method holds it."""
    if owner is None:
        return None
    for index in sites:
        why = held[owner[0]][index]
        if why is not None:
            return f"{why}, in {owner[1]}"
    for path, cls in option:
        if path == owner[0] and owner[1].startswith(cls + "."):
            return f"{option[path, cls].split(', which is ', 1)[0]} ({owner[1]})"
    return None


def _propagate_option(
    functions: dict[Key, FunctionInfo],
    verdict: dict[Key, tuple[str, str]],
    plain_callers: dict[Key, set[Key]],
    option_callers: dict[Key, dict[Key, str]],
    kept: set[Key],
    built_only: dict[Key, str],
) -> None:
    """Helpers that only default-off paths call (``return self.tiled_decode(z)`` under
    ``if self.use_tiling:``), or only helpers of that kind, run only where a user turns the
    option on: ``option``. A call from never-compiled code compiles nothing, and leaves the
    helper to its other callers; any other caller keeps the helper as it is (and a helper no
    code calls, a ``forward``, a dunder or a function compiled or taken as a value in
    ``kept``). Never-compiled code stays never."""
    why: dict[Key, str] = dict(built_only)  # the option's own reason ("only when self.use_tiling is ...")
    plain_calls = _invert(plain_callers)
    work = sorted({*option_callers, *(c for k in built_only for c in plain_calls.get(k, ()))}, reverse=True)
    while work:
        key = work.pop()
        if verdict.get(key, (None,))[0] in (NEVER, OPTION) or not _by_its_callers(functions[key], key, kept):
            continue
        plain = plain_callers.get(key, set())
        if any(verdict.get(c, (None,))[0] not in (NEVER, OPTION) for c in plain):
            continue
        via = [(c, r) for c, r in option_callers.get(key, {}).items() if verdict.get(c, (None,))[0] != NEVER]
        via += [(c, why[c]) for c in plain if c in why]
        if not via:
            continue
        caller, reason = min(via)
        verdict[key] = (OPTION, f"called {reason}, from {caller[1]}")
        why[key] = reason
        work.extend(sorted(plain_calls.get(key, ()), reverse=True))  # their callers may all be option now


def _by_its_callers(function: FunctionInfo, key: Key, kept: set[Key]) -> bool:
    """Whether where ``function`` runs follows from its callers alone: not a ``forward`` or a
    dunder (called implicitly, from anywhere), nor a function in ``kept``."""
    return key not in kept and function.name != "forward" and not function.name.startswith("__")


def _invert(callers: dict[Key, set[Key]]) -> dict[Key, set[Key]]:
    calls: dict[Key, set[Key]] = {}
    for callee, who in callers.items():
        for caller in who:
            calls.setdefault(caller, set()).add(callee)
    return calls


def _compiled_by_default(
    functions: dict[Key, FunctionInfo],
    verdict: dict[Key, tuple[str, str]],
    plain_callers: dict[Key, set[Key]],
    roots: set[Key],
    escaped: set[Key],
    compiled_from: dict[Key, Key],
) -> None:
    """What compiled code reaches only through default-off paths and code no compiled caller
    reaches (a helper of ``tiled_decode``, under the option, and of a public ``tiled_encode``
    no code calls) has no compiled caller under the default configuration: ``unknown``. What
    it still reaches on default paths is compiled, called from a caller that is."""
    calls = _invert(plain_callers)
    kept = roots | escaped
    movable = {k for k in compiled_from if verdict[k][0] == COMPILED and _by_its_callers(functions[k], k, kept)}
    work = [k for k, (scope, _) in verdict.items() if scope == COMPILED and k not in movable]
    reached = set(reach(work, lambda key: (c for c in calls.get(key, ()) if verdict.get(c, (None,))[0] == COMPILED)))
    for key in movable - reached:
        del verdict[key]
    for key in movable & reached:  # reached through a plain call from a reached caller
        parent = compiled_from[key]
        if parent not in reached or key not in calls.get(parent, ()):
            verdict[key] = (COMPILED, f"called from {min(c for c in plain_callers[key] if c in reached)[1]}")


def _inherited(regions: list[tuple[int, int, str, str]], function: FunctionInfo) -> tuple[str, str] | None:
    """A nested function runs where its enclosing function runs."""
    for start, end, scope, reason in reversed(regions):
        if start <= function.start and function.end <= end and scope != UNKNOWN:
            return scope, reason
    return None


def _compiled_targets(project: Project, path: str, owner: str, name: str) -> list[Key]:
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
