"""The torch side of ``--verify``: compile one callable over a size sweep in each mode and record
what dynamo did, attributed to lines of the verified file. Imported only in a worker or by
:func:`zlint.verify.check`; this module and :mod:`zlint.verify.inputs` are where torch is imported.
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
import torch._dynamo
from torch._guards import detect_fake_mode

from zlint.verify import recompiles
from zlint.verify.evidence import (
    COMPILE_ERROR, CONSTRAINT, DATA_DEPENDENT, GRAPH_BREAK, GUARD, MISMATCH, MODES, RECOMPILE, SPECIALIZATION,
    Evidence, FunctionReport, ModeRun,
)

_GRAPH_BREAK_LOG = "torch._dynamo.symbolic_convert.__graph_breaks"
_SPECIALIZED = re.compile(r"^Eq\((?:s\w+|u\w+), -?\d+\)$|^Eq\(-?\d+, (?:s\w+|u\w+)\)$")
_SPECIALIZED_PARTS = re.compile(r"^Eq\((-?\w+), (-?\w+)\)$")
_CONSTANT = re.compile(r"-?\d+")
_USER_LOC = re.compile(r"(\S+):(\d+) in (\S+)")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_BREAK_AT = re.compile(r"in user code at (.+):(\d+)\n")


@dataclass
class Subject:
    """What to verify: ``call(*args, **kwargs)`` with ``make_inputs(n) -> (args, kwargs)``."""

    call: Callable[..., Any]
    make_inputs: Callable[[int], tuple[tuple, dict]]
    path: str  # the file whose lines evidence is attributed to
    first_line: int
    last_line: int
    name: str = ""


@dataclass
class _Observer:
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

    def add(self, kind: str, line: int | None, detail: str, inside_torch: bool = False) -> None:
        key = (kind, line, detail)
        found = self.evidence.get(key)
        if found is None:
            self.evidence[key] = Evidence(kind, self.mode, line, [self.size], detail, inside_torch)
        elif self.size not in found.sizes:
            found.sizes.append(self.size)

    # -- attribution ------------------------------------------------------------------------
    def _ours(self, shown: str) -> bool:
        """True when a (possibly shortened) path dynamo printed names the verified file."""
        shown = shown.strip()
        target = os.path.realpath(self.subject.path)
        if os.path.isabs(shown):
            return os.path.realpath(shown) == target
        tail = shown.split("/", 1)[-1] if "/" in shown else shown
        return target.endswith(tail) and os.path.basename(shown) == os.path.basename(target)

    def _in_span(self, line: int) -> bool:
        return self.subject.first_line <= line <= self.subject.last_line

    def line_from_loc(self, loc: str) -> int | None:
        for path, line, _ in reversed(_USER_LOC.findall(loc or "")):
            if self._ours(path) and self._in_span(int(line)):
                return int(line)
        return None

    def line_from_text(self, text: str) -> int | None:
        """The innermost frame of the verified function named in an error or log text."""
        best = None
        for path, line in _FRAME.findall(text):
            if self._ours(path) and self._in_span(int(line)):
                best = int(line)
        return best if best is not None else self.line_from_loc(text)

    # -- hooks ------------------------------------------------------------------------------
    def backend(self, inner: Callable) -> Callable:
        def capture(gm, example_inputs):
            self.graphs += 1
            fake_mode = detect_fake_mode(example_inputs)
            shape_env = getattr(fake_mode, "shape_env", None)
            if shape_env is not None and all(env is not shape_env for env, _ in self.shape_envs):
                self.shape_envs.append((shape_env, recompiles.current_compile_id()))
            return inner(gm, example_inputs)

        return capture

    def collect_guards(self) -> None:
        """Read the guards of every graph compiled so far (inner backends add some late)."""
        for env, compile_id in self.shape_envs:
            for guard in list(getattr(env, "guards", ())):
                sloc = guard.sloc
                loc = str(getattr(sloc, "maybe_user_loc", "") or sloc)
                if "first use of this value" in loc:
                    continue  # the framework's own 0/1 specialization, present in the baseline too
                expr = str(guard.expr)
                if expr in ("True",):
                    continue
                kind = SPECIALIZATION if _SPECIALIZED.match(expr) else GUARD
                line = self.line_from_loc(loc)
                self.add(kind, line, expr)
                if kind == SPECIALIZATION and line is not None and compile_id is not None:
                    self.pinned.setdefault(compile_id, []).append((line, expr))
        self.shape_envs.clear()

    def on_log(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            return
        if record.name == _GRAPH_BREAK_LOG:
            self._graph_break(message)

    def _graph_break(self, message: str) -> None:
        line = None
        at = _BREAK_AT.search(message)
        if at and self._ours(at.group(1)) and self._in_span(int(at.group(2))):
            line = int(at.group(2))
        if line is None:
            line = self.line_from_text(message)
        reason = message.split("Graph Break Reason:", 1)[-1].split("Explanation:", 1)[0]
        lines = [s.strip() for s in reason.splitlines() if s.strip() and not s.strip().startswith("Encountered graph break")]
        self.add(GRAPH_BREAK, line, (lines[0] if lines else "graph break")[:160], inside_torch(message))

    def on_reasons(self, reasons: list[str], resumed: bool = False) -> None:
        """Dynamo is about to compile again at ``self.size``: each reason is why one cache entry
        failed. Record the failures a line of the verified function caused."""
        if self.mode == "default" and self.size in (0, 1):
            return  # by default sizes 0 and 1 get graphs of their own: what any function costs
        for compile_id, text in map(recompiles.split, reasons):
            failure = text.split("\n", 1)[0]
            if "first use of this value" in failure:
                continue  # the framework's own 0/1 guard, present in the baseline too
            mismatch = recompiles.SIZE_MISMATCH.search(failure)
            if mismatch:
                self._pinned_recompile(compile_id, mismatch)
                continue
            if resumed and "size()" not in failure:
                continue  # a size the graph break made a Python int: the break is the evidence
            line = self.line_from_loc(failure) or self.line_from_loc(text)
            if line is not None:
                self.add(RECOMPILE, line, failure.split("  #", 1)[0].strip()[:160])

    def _pinned_recompile(self, compile_id: str, mismatch: re.Match) -> None:
        """A size check failed on an entry compiled with that size static. Dynamo's first graph is
        static anyway (baseline); it is this function's doing when a guard at one of its lines
        pinned the size in that entry's graph (``Eq(s0, 3)``)."""
        tensor, index, expected = mismatch.group(1), mismatch.group(2), int(mismatch.group(3))
        for line, expr in self.pinned.get(compile_id, ()):
            symbol, value = _pin(expr)
            if value == expected:
                self.add(
                    RECOMPILE, line,
                    f"tensor '{tensor}' size mismatch at index {index}: pinned here by Eq({symbol}, n)",
                )


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
        self.observer.on_log(record)


class _Mute(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextlib.contextmanager
def _tapped(observer: _Observer) -> Iterator[None]:
    """Route dynamo's graph-break log and recompile reasons to ``observer`` (and nowhere else)."""
    tap = LogTap(observer)
    mute = _Mute()
    torch_handlers = [
        handler
        for name, log in list(logging.root.manager.loggerDict.items())
        if name.startswith("torch") and isinstance(log, logging.Logger)
        for handler in log.handlers
        if isinstance(handler, logging.StreamHandler)
    ]
    for handler in torch_handlers:  # dynamo's own error logs would repeat what we report
        handler.addFilter(mute)
    log = logging.getLogger(_GRAPH_BREAK_LOG)
    saved = [(log, log.level, log.propagate)]
    log.setLevel(logging.DEBUG)
    log.propagate = False
    log.addHandler(tap)
    try:
        # recompile reasons come from dynamo itself: its recompiles log is written only when the
        # user enables it (TORCH_LOGS=recompiles); without the hook, graph counts still show
        with recompiles.listening(observer.on_reasons):
            yield
    finally:
        for handler in torch_handlers:
            handler.removeFilter(mute)
        for log, level, propagate in saved:
            log.removeHandler(tap)
            log.setLevel(level)
            log.propagate = propagate


def _backend(name: str) -> Callable:
    if name == "eager":
        return lambda gm, example_inputs: gm.forward
    from torch._dynamo.backends.registry import lookup_backend

    return lookup_backend(name)


# -- inputs -----------------------------------------------------------------------------------


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _swept_dims(make_inputs: Callable[[int], tuple[tuple, dict]]) -> list[list[int]]:
    """Per input tensor (in flattening order), the dims whose size follows ``n``."""
    a = [t.shape for t in _tensors(make_inputs(2))]
    b = [t.shape for t in _tensors(make_inputs(3))]
    dims = []
    for sa, sb in zip(a, b):
        dims.append([d for d in range(min(len(sa), len(sb))) if sa[d] != sb[d]] if len(sa) == len(sb) else [])
    return dims


def _mark(args: tuple, kwargs: dict, dims: list[list[int]], mode: str) -> None:
    for tensor, tensor_dims in zip(_tensors((args, kwargs)), dims):
        for d in tensor_dims:
            if mode == "mark_unbacked":
                torch._dynamo.decorators.mark_unbacked(tensor, d)
            elif mode == "backed_size_oblivious":
                torch._dynamo.maybe_mark_dynamic(tensor, d)


@contextlib.contextmanager
def _mode_config(mode: str) -> Iterator[None]:
    if mode == "backed_size_oblivious":
        import torch.fx.experimental._config as fx_config

        with fx_config.patch(backed_size_oblivious=True):
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
                    return f"output {i}: values differ (max abs diff {(x - y).abs().max().item():.3g})"
            elif not torch.equal(x, y):
                return f"output {i}: values differ"
        elif x != y:
            return f"output {i}: {x!r} eagerly, {y!r} compiled"
    return ""


# -- the sweep --------------------------------------------------------------------------------


_CAUSED_BY = re.compile(r"Caused by: .*\((\S+):\d+ in (\w+)\)")


def inside_torch(text: str) -> bool:
    """True when a data-dependent guard or failure came from inside a torch op, not from the
    user's own branch."""
    if "when making fake tensor call" in text:
        return True
    caused = _CAUSED_BY.search(text)
    # a user ``if`` on a size is evaluated by dynamo itself (symbolic_convert, variables/tensor.py);
    # an op runs through dynamo's run_node, and anything outside _dynamo/ is torch's own code
    if not caused:
        return False
    path, function = caused.groups()
    return function == "run_node" or not path.startswith("_dynamo/")


def _classify(exc: BaseException) -> str:
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc)
    if "ConstraintViolationError" in names or "Constraints violated" in text:
        return CONSTRAINT
    if "GuardOnDataDependentSymNode" in names or "data-dependent" in text or "DataDependent" in text:
        return DATA_DEPENDENT
    return COMPILE_ERROR


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160] if text else ''}"


_BASELINES: dict[tuple, int] = {}


def _trivial(*args, **kwargs):
    return [t + 1 for t in _tensors((args, kwargs))]


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

    def baseline(self, subject: Subject, sizes: list[int], dims: list[list[int]], mode: str) -> int:
        shapes = []
        for n in sizes:
            args, kwargs = self._inputs(subject, n)
            shapes.append(tuple(tuple(t.shape) for t in _tensors((args, kwargs))))
        key = (mode, self.backend, self.device, tuple(shapes), tuple(map(tuple, dims)))
        if key not in self._baselines:
            observer = _Observer(subject, mode)
            torch._dynamo.reset()
            compiled = torch.compile(_trivial, backend=observer.backend(_backend(self.backend)))
            for n in sizes:
                args, kwargs = self._inputs(subject, n)
                _mark(args, kwargs, dims, mode)
                with contextlib.suppress(Exception), _mode_config(mode), torch.no_grad():
                    compiled(*args, **kwargs)
            self._baselines[key] = observer.graphs
        return self._baselines[key]

    def run(
        self,
        subject: Subject,
        sizes: list[int],
        modes: tuple[str, ...] = MODES,
        focus_lines: list[int] | None = None,
        report: FunctionReport | None = None,
    ) -> FunctionReport:
        """Sweep ``sizes`` in each mode; with ``focus_lines``, stop once all of them show effects."""
        started = time.perf_counter()
        report = report or FunctionReport(subject.name)
        report.path, report.first_line, report.last_line = subject.path, subject.first_line, subject.last_line
        report.sizes, report.backend, report.device = list(sizes), self.backend, self.device

        # eager first, once per size: sizes where the function itself fails are not compiled
        eager: dict[int, Any] = {}
        for n in sizes:
            try:
                args, kwargs = self._inputs(subject, n)
                with torch.no_grad():
                    eager[n] = subject.call(*args, **kwargs)
            except Exception as exc:  # user code: any failure is a fact about that size
                report.eager_errors[n] = _first_line(exc)
        good = [n for n in sizes if n in eager]
        if not good:
            first = next(iter(report.eager_errors.values()), "no sizes")
            report.unverifiable = f"fails eagerly at every size ({first})"
            report.seconds = time.perf_counter() - started
            return report
        try:
            dims = _swept_dims(lambda n: self._inputs(subject, n))
        except Exception:
            dims = []

        for mode in modes:
            if focus_lines and all(report.at(line) for line in focus_lines):
                report.runs.append(ModeRun(mode, skipped="every flagged line already confirmed in a weaker mode"))
                continue
            run = ModeRun(mode, baseline=self.baseline(subject, good, dims, mode))
            observer = _Observer(subject, mode)
            torch._dynamo.reset()
            compiled = torch.compile(subject.call, backend=observer.backend(_backend(self.backend)))
            with _tapped(observer):
                for n in good:
                    observer.size = n
                    args, kwargs = self._inputs(subject, n)
                    _mark(args, kwargs, dims, mode)
                    try:
                        with _mode_config(mode), torch.no_grad():
                            out = compiled(*args, **kwargs)
                    except Exception as exc:  # compile-time failure in user code or in dynamo
                        text = "".join(traceback.format_exception(exc))
                        observer.add(
                            _classify(exc), observer.line_from_text(text), _first_line(exc), inside_torch(text)
                        )
                        observer.collect_guards()
                        continue
                    observer.collect_guards()
                    run.sizes_run.append(n)
                    diff = compare(eager[n], out)
                    if diff:
                        observer.add(MISMATCH, None, diff)
            run.graphs = observer.graphs
            if run.extra_graphs and not any(e.line is not None for e in observer.evidence.values()):
                observer.size = good[-1]
                observer.add(RECOMPILE, None, f"{run.graphs} graphs over the sweep, a trivial function needs {run.baseline}")
            report.runs.append(run)
            report.evidence.extend(observer.evidence.values())
        torch._dynamo.reset()
        report.seconds = time.perf_counter() - started
        return report


def _significant(report: FunctionReport) -> list[Evidence]:
    """Keep plain guards only where they cost something: in a mode that compiled extra graphs."""
    extra = {r.mode for r in report.runs if not r.skipped and r.extra_graphs}
    return [e for e in report.evidence if e.kind != GUARD or e.mode in extra]


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
