"""The torch side of ``--verify``: compile one callable over a size sweep in each mode and record
what dynamo did, attributed to lines of the verified file. Imported only in a worker or by
:func:`zlint.verify.check`. Every private torch name and every dynamo text it reads goes through
:mod:`zlint.verify.sandbox.torch_hooks`; a failure there makes the report UNVERIFIABLE, never evidence.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

import zlint.verify.sandbox.torch_hooks as hooks
from zlint.verify.evidence import (
    COMPILE_ERROR,
    CONSTRAINT,
    DATA_DEPENDENT,
    GRAPH_BREAK,
    GUARD,
    MISMATCH,
    MODES,
    RECOMPILE,
    SPECIALIZATION,
    Evidence,
    FunctionReport,
    ModeRun,
    costly,
    eager_failures,
    is_mode_caveat,
    plain_guard,
)

_SPECIALIZED = re.compile(r"^Eq\((?:s\w+|u\w+), -?\d+\)$|^Eq\(-?\d+, (?:s\w+|u\w+)\)$")
_SPECIALIZED_PARTS = re.compile(r"^Eq\((-?\w+), (-?\w+)\)$")
_CONSTANT = re.compile(r"-?\d+")


@dataclass
class Subject:
    """What to verify: ``call(*args, **kwargs)`` with ``make_inputs(n) -> (args, kwargs)``."""

    call: Callable[..., Any]
    make_inputs: Callable[[int], tuple[tuple, dict]]
    path: str  # the file whose lines evidence is attributed to
    first_line: int
    last_line: int
    name: str = ""
    #: flagged lines whose size comparison the synthesized sweep may never flip, and why
    open_thresholds: dict[int, str] = field(default_factory=dict)
    #: effects go to the innermost frame in ``path`` (a helper the function calls included); False:
    #: only to lines ``first_line..last_line`` (a caller run, whose call sites are its own lines)
    whole_file: bool = True
    #: run in training mode (stochastic depth, random masks): outputs differ from eager by design,
    #: so they are not compared
    random_outputs: bool = False
    #: int arguments the sweep drives (``depths``): dynamo's first graph holds them constant, as it
    #: does a tensor's sizes, so the recompile when they first change is no cost of the code
    swept_values: tuple[str, ...] = ()


@dataclass
class Observer:
    """Collects evidence for one mode run through a capturing backend, dynamo's graph-break log
    and its recompile reasons."""

    subject: Subject
    mode: str
    size: int = 0
    graphs: int = 0
    shape_envs: list = field(default_factory=list)  # (shape env, compile id) not yet read
    #: per compile id, the specialization guards (line, expr) that pinned a size in that graph
    pinned: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    evidence: dict[tuple, Evidence] = field(default_factory=dict)
    #: what went wrong inside zlint's own hooks: any entry makes the whole report UNVERIFIABLE
    hook_failures: list[str] = field(default_factory=list)
    graph_sizes: list[int] = field(default_factory=list)  # the swept size at which each graph compiled
    names: dict[str, str] = field(default_factory=dict)  # size symbol -> user-level name
    torch_op_guards: set[str] = field(default_factory=set)  # guards asked for by torch's own ops
    arg_names: list[str] = field(default_factory=list)

    def failed(self, where: str, exc: BaseException) -> None:
        """Record a failure of zlint's own hook (never evidence about the user's code)."""
        text = str(exc).strip().splitlines()
        self.hook_failures.append(f"{where}: {type(exc).__name__}: {text[0][:160] if text else ''}".rstrip(": "))

    def add(self, kind: str, line: int | None, detail: str, inside_torch: bool = False) -> None:
        key = (kind, line, detail)
        found = self.evidence.get(key)
        if found is None:
            self.evidence[key] = Evidence(kind, self.mode, line, [self.size], detail, inside_torch)
        elif self.size not in found.sizes:
            found.sizes.append(self.size)

    # -- attribution ------------------------------------------------------------------------
    def ours(self, shown: str) -> bool:
        """True when a (possibly shortened) path dynamo printed names the verified file."""
        shown = shown.strip()
        target = os.path.realpath(self.subject.path)
        if os.path.isabs(shown):
            return os.path.realpath(shown) == target
        tail = shown.split("/", 1)[-1] if "/" in shown else shown
        return target.endswith(tail) and os.path.basename(shown) == os.path.basename(target)

    def in_span(self, line: int) -> bool:
        """Whether an effect at ``line`` of the verified file is attributed there: any line when
        the subject takes the whole file (dynamo inlines the file's helpers: their guards, breaks
        and recompiles belong to their own lines), else only the verified function's."""
        return self.subject.whole_file or self.subject.first_line <= line <= self.subject.last_line

    def line_from_loc(self, loc: str) -> int | None:
        for path, line, _ in reversed(hooks.USER_LOC.findall(loc or "")):
            if self.ours(path) and self.in_span(int(line)):
                return int(line)
        return None

    def line_from_text(self, text: str) -> int | None:
        """The innermost frame of the verified function named in an error or log text."""
        best = None
        for path, line in hooks.FRAME.findall(text):
            if self.ours(path) and self.in_span(int(line)):
                best = int(line)
        return best if best is not None else self.line_from_loc(text)

    # -- hooks ------------------------------------------------------------------------------
    def backend(self, inner: Callable, name: str = "") -> Callable:
        def capture(gm, example_inputs):
            try:
                self.graphs += 1
                self.graph_sizes.append(self.size)
                env = hooks.shape_env(example_inputs)
                if env is not None and all(known is not env for known, _ in self.shape_envs):
                    self.shape_envs.append((env, hooks.current_compile_id()))
            except Exception as exc:  # zlint's bookkeeping, not the user's graph
                self.failed("the capturing backend", exc)
            return inner(gm, example_inputs)

        # dynamo names the backend in its messages: the user's backend, not zlint's wrapper
        capture.__name__ = capture.__qualname__ = name or getattr(inner, "__name__", "backend")
        return capture

    def collect_guards(self) -> None:
        """Read the guards of every graph compiled so far (inner backends add some late)."""
        try:
            for env, compile_id in self.shape_envs:
                self.names.update(hooks.symbol_names(env))
                for guard in hooks.shape_guards(env):
                    self._guard(guard, compile_id)
        except Exception as exc:
            self.failed("reading shape guards", exc)
        self.shape_envs.clear()

    def _guard(self, guard: hooks.ShapeGuard, compile_id: str | None) -> None:
        if hooks.FRAMEWORK_SPECIALIZATION in guard.user_loc or guard.expr == "True":
            return  # the framework's own 0/1 specialization, present in the baseline too
        kind = SPECIALIZATION if _SPECIALIZED.match(guard.expr) else GUARD
        line = self.line_from_loc(guard.user_loc)
        in_op = hooks.guard_from_torch_op(guard.framework_loc) and _set_aside(guard.expr, self.mode)
        if in_op:
            self.torch_op_guards.add(guard.expr)
        self.add(kind, line, plain_guard(guard.expr, self.names), in_op)
        if kind == SPECIALIZATION and line is not None and compile_id is not None and not in_op:
            self.pinned.setdefault(compile_id, []).append((line, guard.expr))

    def on_log(self, record: logging.LogRecord) -> None:
        try:
            if record.name == hooks.GRAPH_BREAK_LOG:
                self._graph_break(record.getMessage())
        except Exception as exc:
            self.failed("reading dynamo's graph-break log", exc)

    def _graph_break(self, message: str) -> None:
        line = None
        site = hooks.graph_break_site(message)
        if site and self.ours(site[0]) and self.in_span(site[1]):
            line = site[1]
        if line is None:
            line = self.line_from_text(message)
        reason = hooks.plain_stack_names(hooks.graph_break_reason(message), self.arg_names)[:400]
        if line is None:
            # dynamo names the user line of a break once: a repeat (``user stack suppressed``) is
            # the same break, at the line already seen for it
            line = next((e.line for e in self.evidence.values()
                         if e.kind == GRAPH_BREAK and e.detail == reason and e.line is not None), None)
        self.add(GRAPH_BREAK, line, reason, hooks.inside_torch(message))

    def on_reasons(self, reasons: list[str], resumed: bool = False) -> None:
        """Dynamo is about to compile again at ``self.size``: each reason is why one cache entry
        failed. Record the failures a line of the verified function caused."""
        try:
            self._reasons(reasons, resumed)
        except Exception as exc:
            self.failed("reading recompile reasons", exc)

    def _reasons(self, reasons: list[str], resumed: bool) -> None:
        if self.mode == "default" and self.size in (0, 1):
            return  # by default sizes 0 and 1 get graphs of their own: what any function costs
        for compile_id, text in map(hooks.split_reason, reasons):
            failure = text.split("\n", 1)[0]
            user_part = hooks.without_framework_specialization(failure)
            if not user_part:
                continue  # only the framework's own 0/1 guard, present in the baseline too
            mismatch = hooks.SIZE_MISMATCH.search(failure)
            if mismatch:
                self._pinned_recompile(compile_id, mismatch)
                continue
            held = hooks.plain_stack_names(user_part.split("  #", 1)[0].strip(), self.arg_names)
            constant = _INT_CONSTANT.match(held)
            if constant and constant.group(1) in self.subject.swept_values:
                continue  # the first graph held a swept int constant: what any int argument costs
            if resumed and "size()" not in failure:
                continue  # a size the graph break made a Python int: the break is the evidence
            line = self.line_from_loc(user_part)
            if line is not None:
                detail = hooks.plain_stack_names(failure.split("  #", 1)[0].strip()[:160], self.arg_names)
                self.add(RECOMPILE, line, f"guard {detail} failed",
                         hooks.reason_from_torch_op(user_part) and (self.mode != "default" or self.size in (0, 1)))

    def _pinned_recompile(self, compile_id: str, mismatch: re.Match) -> None:
        """A size check failed on an entry compiled with that size static. Dynamo's first graph is
        static anyway (baseline); it is this function's doing when a guard at one of its lines
        pinned the size in that entry's graph (``Eq(s0, 3)``)."""
        tensor, index, expected = mismatch.group(1), mismatch.group(2), int(mismatch.group(3))
        tensor = hooks.plain_stack_names(tensor, self.arg_names)
        for line, expr in self.pinned.get(compile_id, ()):
            symbol, value = _pin(expr)
            if value == expected:
                self.add(
                    RECOMPILE, line,
                    f"{tensor}.size({index}) is pinned to one value here: each new size compiles again",
                )


#: a guard holding an int argument (or an int of a list argument) constant: ``depths == 2``
_INT_CONSTANT = re.compile(r"^(\w+)(?:\[\d+\])? == -?\d+$")
_ZERO_ONE_OR_SYMBOLS = re.compile(r"^(?:Eq|Ne)\((?:[su]\d+|[01]), (?:[su]\d+|[01])\)$")


def _set_aside(expr: str, mode: str) -> bool:
    """Whether an op's guard is the op's own business: a 0/1 pin (``Eq(s0, 1)``) in a
    single-graph mode, or an equality between two sizes the op needs (bmm's batch dims). A pin
    to another value (``unbind``: ``Eq(s0, 3)``) costs a graph per size and stays evidence."""
    if not _ZERO_ONE_OR_SYMBOLS.match(expr):
        return False
    return mode != "default" or not re.search(r"\b[01]\)", expr)


def _pin(expr: str) -> tuple[str, int | None]:
    """``Eq(s0, 3)`` or ``Eq(3, s0)`` -> ``("s0", 3)``."""
    found = _SPECIALIZED_PARTS.match(expr)
    if not found:
        return "", None
    a, b = found.groups()
    return (a, int(b)) if _CONSTANT.fullmatch(b) else (b, int(a))


class LogTap(logging.Handler):
    """Hands every dynamo log record to ``observer.on_log`` (the probe's and the call-site
    tracker's)."""

    def __init__(self, observer: Any) -> None:
        super().__init__(logging.DEBUG)
        self.observer = observer

    def emit(self, record: logging.LogRecord) -> None:
        self.observer.on_log(record)  # the observer records its own failures


class Mute(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextlib.contextmanager
def _tapped(observer: Observer) -> Iterator[None]:
    """Route dynamo's graph-break log and recompile reasons to ``observer`` (and nowhere else)."""
    tap = LogTap(observer)
    mute = Mute()
    torch_handlers = [
        handler
        for name, log in list(logging.root.manager.loggerDict.items())
        if name.startswith("torch") and isinstance(log, logging.Logger)
        for handler in log.handlers
        if isinstance(handler, logging.StreamHandler)
    ]
    for handler in torch_handlers:  # dynamo's own error logs would repeat what we report
        handler.addFilter(mute)
    log = logging.getLogger(hooks.GRAPH_BREAK_LOG)
    saved = [(log, log.level, log.propagate)]
    log.setLevel(logging.DEBUG)
    log.propagate = False
    log.addHandler(tap)
    try:
        # recompile reasons come from dynamo itself: its recompiles log is written only when the
        # user enables it (TORCH_LOGS=recompiles); without the hook, graph counts still show
        with hooks.recompile_reasons(observer.on_reasons):
            yield
    finally:
        for handler in torch_handlers:
            handler.removeFilter(mute)
        for log, level, propagate in saved:
            log.removeHandler(tap)
            log.setLevel(level)
            log.propagate = propagate


def backend(name: str) -> Callable:
    """The compiler behind a backend name."""
    return hooks.backend(name)


# -- inputs -----------------------------------------------------------------------------------


def tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors(item)


def _swept_dims(make_inputs: Callable[[int], tuple[tuple, dict]]) -> list[list[int]]:
    """Per input tensor (in flattening order), the dims whose size follows ``n``."""
    a = [t.shape for t in tensors(make_inputs(2))]
    b = [t.shape for t in tensors(make_inputs(3))]
    dims = []
    for sa, sb in zip(a, b):
        dims.append([d for d in range(min(len(sa), len(sb))) if sa[d] != sb[d]] if len(sa) == len(sb) else [])
    return dims


def _units(make_inputs: Callable[[int], tuple[tuple, dict]], dims: list[list[int]]) -> tuple:
    """Per input tensor, ``(dim, unit)`` for swept dims that take sizes in a unit (``16 * n``)."""
    a = [t.shape for t in tensors(make_inputs(2))]
    b = [t.shape for t in tensors(make_inputs(3))]
    out = []
    for i, tensor_dims in enumerate(dims):
        out.append(tuple((d, b[i][d] - a[i][d]) for d in tensor_dims if b[i][d] - a[i][d] > 1))
    return tuple(out)


def _trivial_in_units(units: tuple) -> Callable:
    """A trivial function that also reads each swept size in its unit (``H // 16``): dynamo gives
    that count its own 0/1 graphs, what any code that counts patches pays."""

    def trivial_units(*args, **kwargs):
        out = trivial(*args, **kwargs)
        for t, pairs in zip(tensors((args, kwargs)), units):
            for d, unit in pairs:
                out.append(t.new_ones(t.shape[d] // unit))
        return out

    return trivial_units


def _mark(args: tuple, kwargs: dict, dims: list[list[int]], mode: str) -> None:
    for tensor, tensor_dims in zip(tensors((args, kwargs)), dims):
        for d in tensor_dims:
            if mode == "mark_unbacked":
                hooks.mark_unbacked(tensor, d)
            elif mode == "backed_size_oblivious":
                hooks.maybe_mark_dynamic(tensor, d)


@contextlib.contextmanager
def _mode_config(mode: str) -> Iterator[None]:
    if mode == "backed_size_oblivious":
        with hooks.backed_size_oblivious():
            yield
    else:
        yield


# -- comparing outputs ------------------------------------------------------------------------


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value, key=str) for leaf in _flatten(value[key])]
    return [value]


_COMPARABLE = (torch.Tensor, int, float, complex, bool, str, bytes, type(None), torch.Size, torch.dtype)


def compare(eager: Any, compiled: Any) -> str:
    """Empty when the outputs agree, else what differs. Outputs that are not tensors, numbers or
    containers of them (generators, arbitrary objects) are not compared."""
    a, b = _flatten(eager), _flatten(compiled)
    if not all(isinstance(v, _COMPARABLE) for v in (*a, *b)):
        return ""
    if len(a) != len(b):
        return f"{len(a)} outputs eagerly, {len(b)} compiled"
    for i, (x, y) in enumerate(zip(a, b)):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return f"output {i}: {type(x).__name__} eagerly, {type(y).__name__} compiled"
        if isinstance(x, torch.Tensor):
            if tuple(x.shape) != tuple(y.shape):
                return f"output {i}: shape {tuple(x.shape)} eagerly, {tuple(y.shape)} compiled"
            if x.dtype != y.dtype:
                return f"output {i}: dtype {x.dtype} eagerly, {y.dtype} compiled"
            x, y = x.detach().cpu(), y.detach().cpu()
            if x.is_floating_point() or x.is_complex():
                if not torch.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True):
                    nan_x, nan_y = torch.isnan(x), torch.isnan(y)
                    if not torch.equal(nan_x, nan_y):  # a difference NaN would hide
                        where = "compiled" if (nan_y & ~nan_x).any() else "eager"
                        other = "eager" if where == "compiled" else "compiled"
                        count = int((nan_x ^ nan_y).sum())
                        return f"output {i}: NaN in the {where} output where {other} has numbers ({count} values)"
                    diff = (x - y).abs().nan_to_num(0.0).max().item()
                    return f"output {i}: values differ (max abs diff {diff:.3g})"
            elif not torch.equal(x, y):
                return f"output {i}: values differ"
        elif x != y:
            return f"output {i}: {x!r} eagerly, {y!r} compiled"
    return ""


# -- the sweep --------------------------------------------------------------------------------


inside_torch = hooks.inside_torch
_KINDS = {"constraint": CONSTRAINT, "data-dependent": DATA_DEPENDENT, "error": COMPILE_ERROR}


def classify(exc: BaseException) -> str:
    """The evidence kind of an exception a compiled call raised."""
    return _KINDS[hooks.classify_error(exc)]


def hook_error(exc: BaseException) -> hooks.HookError | None:
    """The :class:`~zlint.verify.sandbox.torch_hooks.HookError` behind ``exc`` (its cause chain), if any."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, hooks.HookError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def first_line(exc: BaseException) -> str:
    """``TypeName: first line of the message``."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160] if text else ''}"


_BASELINES: dict[tuple, tuple[int, list[int]]] = {}


def _shape_pattern(shapes: list[tuple[int, ...]], dims: list[list[int]]) -> tuple:
    """What a trivial function's graph count depends on: each input's rank and swept sizes, and
    whether a fixed dim is 0, 1 or larger (fixed dims of 4 and 16 cost the same graphs), so one
    baseline serves every function with the same pattern."""
    out = []
    for i, shape in enumerate(shapes):
        swept = set(dims[i]) if i < len(dims) else set()
        out.append(tuple(size if d in swept else min(size, 2) for d, size in enumerate(shape)))
    return tuple(out)


def trivial(*args, **kwargs):
    # ints too: dynamo holds an int argument constant in its first graph, as it does sizes
    return [t + 1 for t in tensors((args, kwargs))] + [torch.ones(1) * i for i in _ints((args, kwargs))]


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _ints(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _ints(item)



def _settled(report: FunctionReport, line: int) -> bool:
    """Whether ``line`` already has the evidence that makes its finding CONFIRMED (a cost, not a
    guard that added no graph nor a pin inside a torch op): only then can stronger modes be
    skipped, else the finding would lose the modes that could decide it."""
    return any(costly(e, report) and not is_mode_caveat(e) for e in report.at(line))

class Prober:
    """Runs sweeps; caches the baseline (a trivial function's graph count) per input signature."""

    def __init__(self, backend: str = "aot_eager", device: str = "cpu") -> None:
        self.backend = backend
        self.device = device
        self._baselines = _BASELINES  # shared: the same shapes cost the same in every prober

    def _inputs(self, subject: Subject, n: int) -> tuple[tuple, dict]:
        torch.manual_seed(n)
        args, kwargs = subject.make_inputs(n)
        if self.device != "cpu":
            args, kwargs = _to_device((args, kwargs), self.device)
        return args, kwargs

    def baseline(self, subject: Subject, sizes: list[int], dims: list[list[int]], mode: str) -> tuple[int, list[int]]:
        """Graphs a trivial function costs over ``sizes`` in ``mode``, and the sizes at which even
        it failed to compile (then the graph count is no baseline to compare with)."""
        shapes = []
        for n in sizes:
            args, kwargs = self._inputs(subject, n)
            shapes.append((_shape_pattern([tuple(t.shape) for t in tensors((args, kwargs))], dims),
                           tuple(_ints((args, kwargs)))))
        units = _units(lambda n: self._inputs(subject, n), dims) if dims else ()
        key = (mode, self.backend, self.device, tuple(shapes), tuple(map(tuple, dims)), units)
        if key not in self._baselines:
            observer = Observer(subject, mode)
            hooks.reset()
            function = _trivial_in_units(units) if any(units) else trivial
            compiled = torch.compile(function, backend=observer.backend(backend(self.backend), self.backend))
            failed = []
            for n in sizes:
                args, kwargs = self._inputs(subject, n)
                _mark(args, kwargs, dims, mode)
                try:
                    with _mode_config(mode), torch.no_grad():
                        compiled(*args, **kwargs)
                except Exception as exc:
                    if hook_error(exc):
                        raise
                    failed.append(n)
            if observer.hook_failures:
                raise hooks.HookError(observer.hook_failures[0])
            self._baselines[key] = (observer.graphs, failed)
        return self._baselines[key]

    def run(
        self,
        subject: Subject,
        sizes: list[int],
        modes: tuple[str, ...] = MODES,
        focus_lines: list[int] | None = None,
        report: FunctionReport | None = None,
    ) -> FunctionReport:
        """Sweep ``sizes`` in each mode; with ``focus_lines``, stop once all of them show effects.
        A failure of zlint's own hooks makes the whole report UNVERIFIABLE (never evidence)."""
        started = time.perf_counter()
        report = report or FunctionReport(subject.name)
        report.path, report.first_line, report.last_line = subject.path, subject.first_line, subject.last_line
        report.sizes, report.backend, report.device = list(sizes), self.backend, self.device
        report.open_thresholds = dict(subject.open_thresholds)
        try:
            self._sweep(subject, sizes, modes, focus_lines, report)
        except hooks.HookError as exc:
            report.evidence, report.runs = [], []
            report.unverifiable = f"zlint's hook into torch {torch.__version__} failed: {exc}"
        finally:
            with contextlib.suppress(Exception):
                hooks.reset()
        report.seconds = time.perf_counter() - started
        return report

    def _sweep(
        self, subject: Subject, sizes: list[int], modes: tuple[str, ...], focus_lines: list[int] | None,
        report: FunctionReport,
    ) -> None:
        # eager first, once per size: sizes where the function itself fails are not compiled
        eager: dict[int, Any] = {}
        called: set = set()  # code objects of the verified file that ran: which helpers it reached
        executed: set = set()  # the lines of the verified file they ran
        with _calls_into(subject.path, called, executed):
            for n in sizes:
                try:
                    args, kwargs = self._inputs(subject, n)
                    with torch.no_grad():
                        eager[n] = subject.call(*args, **kwargs)
                except Exception as exc:  # user code: any failure is a fact about that size
                    report.eager_errors[n] = first_line(exc)
        report.unreached = unreached_lines(list(focus_lines or ()), called, executed)
        good = [n for n in sizes if n in eager]
        if not good:
            failures = eager_failures(report.eager_errors) if report.eager_errors else "no sizes"
            report.unverifiable = f"fails eagerly at every size: {failures}"
            return
        try:
            dims = _swept_dims(lambda n: self._inputs(subject, n))
        except Exception:
            dims = []

        for mode in modes:
            if focus_lines and all(_settled(report, line) for line in focus_lines):
                report.runs.append(ModeRun(mode, skipped="every flagged line already confirmed in a weaker mode"))
                continue
            baseline, baseline_failed = self.baseline(subject, good, dims, mode)
            run = ModeRun(mode, baseline=baseline, baseline_failed=baseline_failed)
            observer = Observer(subject, mode)
            hooks.reset()
            compiled = torch.compile(subject.call, backend=observer.backend(backend(self.backend), self.backend))
            with _tapped(observer):
                for n in good:
                    observer.size = n
                    args, kwargs = self._inputs(subject, n)
                    _mark(args, kwargs, dims, mode)
                    try:
                        with _mode_config(mode), torch.no_grad():
                            out = compiled(*args, **kwargs)
                    except Exception as exc:  # compile-time failure in user code or in dynamo
                        found = hook_error(exc)
                        if found is not None:
                            raise found from found.__cause__  # the hook's failure, with its own cause
                        text = "".join(traceback.format_exception(exc))
                        observer.add(
                            classify(exc), observer.line_from_text(text), first_line(exc), inside_torch(text)
                        )
                        observer.collect_guards()
                        continue
                    observer.collect_guards()
                    run.sizes_run.append(n)
                    diff = "" if subject.random_outputs else compare(eager[n], out)
                    if diff:
                        observer.add(MISMATCH, None, diff)
            if observer.hook_failures:
                raise hooks.HookError("; ".join(dict.fromkeys(observer.hook_failures)))
            run.graphs, run.graph_sizes = observer.graphs, list(observer.graph_sizes)
            run.names = dict(observer.names)
            # extra graphs nothing explains: the function's own cost (one a torch op explains is
            # the op's, set aside with it)
            if run.extra_graphs and not any(e.line is not None or e.inside_torch for e in observer.evidence.values()):
                observer.size = good[-1]
                observer.add(RECOMPILE, None, f"{run.graphs} graphs over the sweep (compiled at sizes "
                             f"{','.join(map(str, run.graph_sizes))}), a trivial function needs {run.baseline}")
            report.runs.append(run)
            report.evidence.extend(observer.evidence.values())


@contextlib.contextmanager
def _calls_into(path: str, called: set, executed: set | None = None) -> Iterator[None]:
    """Collect the code objects of ``path`` that start running while the block runs, and the lines
    of ``path`` they execute (a trace hook that follows only that file's frames), so that a flagged
    line is known to be reached."""
    import sys

    target = os.path.realpath(path)
    ours: dict[str, bool] = {}
    lines = executed if executed is not None else set()

    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def trace(frame, event, arg):
        if event != "call":
            return None
        name = frame.f_code.co_filename
        if ours.setdefault(name, os.path.realpath(name) == target):
            called.add(frame.f_code)
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield
    finally:
        sys.settrace(previous)


def unreached_lines(lines: list[int], called: set, executed: set) -> list[int]:
    """The ``lines`` no eager run executed: in no code object that ran, or holding code of one that
    ran that never reached them (a branch the inputs never take)."""
    out = []
    for line in lines:
        covering = [code for code in called if _covers(code, line)]
        has_code = any(line in {n for _, _, n in code.co_lines()} for code in covering)
        if not covering or (has_code and line not in executed):
            out.append(line)
    return out


def _covers(code: Any, line: int) -> bool:
    """Whether ``line`` lies within the lines of a code object (its def line to its last line)."""
    lines = [n for _, _, n in code.co_lines() if n is not None]
    return bool(lines) and code.co_firstlineno <= line <= max(lines)


def _to_device(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_to_device(v, device) for v in value)
    if isinstance(value, list):
        return [_to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def normalize_call(value: Any) -> tuple[tuple, dict]:
    """``make_inputs(n)``'s result as ``(args, kwargs)``: tuple/list, dict, (tuple, dict), or one value."""
    if (
        isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (tuple, list))
        and isinstance(value[1], dict)
    ):
        return tuple(value[0]), dict(value[1])
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    if isinstance(value, dict):
        return (), dict(value)
    return (value,), {}


def default_device(requested: str) -> str:
    """``auto`` -> cuda when a GPU is present, else cpu."""
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return requested


def default_backend(device: str) -> str:
    return "inductor" if device == "cuda" else "aot_eager"


# -- start-up self-test -----------------------------------------------------------------------


def _known(x):
    y = x * 2
    if x.size(0) > 4:  # a guard in the dynamic graph; size 8 fails it: a recompile at this line
        y = y + 1
    torch._dynamo.graph_break()  # a graph break at this line
    return y


def self_test() -> str:
    """Empty when every torch touchpoint works on this torch, else what is missing: the private
    names must exist, and a known function must show its guard, recompile and graph break at
    the lines where they are."""
    import inspect

    gone = hooks.missing()
    if gone:
        return "missing " + ", ".join(gone)
    lines, first = inspect.getsourcelines(_known)
    guard_line, break_line = first + 2, first + 4
    subject = Subject(_known, lambda n: ((torch.ones(n, 2),), {}), __file__, first, first + len(lines) - 1, "self-test")
    report = Prober("eager", "cpu").run(subject, [2, 3, 8], ("default",))
    if report.unverifiable:
        return report.unverifiable
    seen = {(e.kind, e.line) for e in report.evidence}
    wanted = {
        (GUARD, guard_line): "no shape guard read from the ShapeEnv",
        (RECOMPILE, guard_line): "no recompile reason heard",
        (GRAPH_BREAK, break_line): "no graph break read from dynamo's log",
    }
    return "; ".join(why for key, why in wanted.items() if key not in seen)
