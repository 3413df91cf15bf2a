"""The torch side of call-site verification: run a *caller* (``serve(requests, model)``,
``export_ranker(model)``) and record what its ``torch.compile`` / ``torch.export`` call sites do.

While the caller runs, ``torch.compile`` (and the module's own ``@torch.compile`` functions) hand
out compiled objects that use the verify backend and keep the call site's own settings
(``dynamic=``, ``fullgraph=``, ...). Each call of such an object is attributed to the caller's line
that made it; graphs, static-size recompiles, the recompile limit and compile errors are recorded
there, and each compiled output is compared with the eager output. A compile error is recorded and
the call then runs eagerly, so one failing call site does not hide the others. ``torch.export``
is recorded at its call line: an export error, and the exported program's output at each swept size
its ``Dim`` range allows compared with eager (the 0/1 question).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

import zlint.verify.sandbox.probe as probe
import zlint.verify.sandbox.torch_hooks as hooks
from zlint.verify.evidence import (
    COMPILE_ERROR,
    MISMATCH,
    RECOMPILE,
    SPECIALIZATION,
    Evidence,
    FunctionReport,
    ModeRun,
)

#: ``torch.compile`` keywords that change what dynamo does at the call site (backend/mode/options
#: are replaced by the verify backend)
_KEPT = (
    "fullgraph", "dynamic", "disable", "recompile_limit", "isolate_recompiles", "shapes_spec", "dynamic_shapes", "name",
)


@dataclass
class _Compiled:
    """One compiled object: where ``torch.compile`` made it and what its calls cost."""

    origin: int | None  # line of the torch.compile call (or decorator) in the verified file
    label: str
    options: dict
    graphs: int = 0
    graph_sizes: list = field(default_factory=list)  # the call's size at each graph
    calls: list = field(default_factory=list)  # (line, shapes) per call
    compile_ids: set = field(default_factory=set)  # dynamo's "frame/compile" ids of its graphs


class _Tracker:
    """Records evidence for one caller run."""

    def __init__(self, subject_path: str, first: int, last: int, backend: str) -> None:
        # a caller's effects belong to its own lines (the calls it makes), not to what it calls
        self.subject = probe.Subject(lambda: None, lambda n: ((), {}), subject_path, first, last, whole_file=False)
        self.observer = probe.Observer(self.subject, "default")
        self.backend = backend
        self.objects: list[_Compiled] = []
        self.current: tuple[_Compiled, int | None, int] | None = None  # object, call line, size
        self.evidence: dict[tuple, Evidence] = {}
        self.raised: set[int] = set()  # ids of exceptions already recorded as evidence
        self.sizes: list[int] = []
        self.hook_failures: list[str] = []  # zlint's own hooks that failed: the report is UNVERIFIABLE

    # -- where in the verified caller are we? ---------------------------------------------------
    def caller_line(self) -> int | None:
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if self.observer.ours(code.co_filename) and self.observer.in_span(frame.f_lineno):
                return frame.f_lineno
            frame = frame.f_back
        return None

    def add(self, kind: str, line: int | None, detail: str, size: int | None, origin: int | None = None) -> None:
        key = (kind, line, detail, origin)
        found = self.evidence.get(key)
        if found is None:
            found = self.evidence[key] = Evidence(kind, "default", line, [], detail, origin=origin)
        if size is not None and size not in found.sizes:
            found.sizes.append(size)

    def describe(self, exc: BaseException) -> str:
        """An error's first line; for a constraint violation, what was specialized and where."""
        text = str(exc)
        out = probe.first_line(exc)
        marked = hooks.constraint_summary(text)
        if marked:
            out = f"{type(exc).__name__}: {hooks.plain_stack_names(marked)}"
        where = [n for path, n in hooks.user_stack_lines(text) if self.observer.ours(path)]
        if where:
            out += f" (specialized at line {where[-1]})"
        return out[:300]

    # -- compiled objects ---------------------------------------------------------------------
    def backend_for(self, compiled: _Compiled) -> Callable:
        inner = probe.backend(self.backend)

        def capture(gm, example_inputs):
            compiled.graphs += 1
            size = self.current[2] if self.current else None
            compiled.graph_sizes.append(size)
            try:
                compile_id = hooks.current_compile_id()
            except Exception as exc:  # zlint's hook, not the call site: never evidence
                self.hook_failures.append(f"{type(exc).__name__}: {exc}")
                compile_id = None
            if compile_id is not None:
                compiled.compile_ids.add(compile_id)
            return inner(gm, example_inputs)

        capture.__name__ = capture.__qualname__ = getattr(inner, "__name__", self.backend) or self.backend

        return capture

    def compile(self, real_compile: Callable, target: Any, origin: int | None, options: dict, label: str) -> Any:
        compiled = _Compiled(origin, label, {k: v for k, v in options.items() if k in _KEPT})
        self.objects.append(compiled)
        made = real_compile(target, backend=self.backend_for(compiled), **compiled.options)
        if isinstance(made, torch.nn.Module) and hasattr(made, "_orig_mod"):
            made.forward = self._tracked(compiled, made.forward, made._orig_mod)
            return made
        return functools.wraps(target)(self._tracked(compiled, made, target))

    def _tracked(self, compiled: _Compiled, call: Callable, eager: Callable) -> Callable:
        def tracked(*args, **kwargs):
            line = self.caller_line()
            shapes = [tuple(t.shape) for t in probe.tensors((args, kwargs))]
            compiled.calls.append((line, shapes))
            size = _size_of(compiled, shapes)
            saved, self.current = self.current, (compiled, line, size)
            try:
                out = call(*args, **kwargs)
            except Exception as exc:  # a compile error at this call site: record it, go on eagerly
                detail = hooks.without_constant(self.describe(exc))  # the sizes say which
                self.add(probe.classify(exc), line, f"{compiled.label}: {detail}", size, compiled.origin)
                return eager(*args, **kwargs)
            finally:
                self.current = saved
            with torch.no_grad():
                try:
                    expected = eager(*args, **kwargs)
                except Exception:
                    return out
            diff = probe.compare(expected, out)
            if diff:
                detail = f"{compiled.label}: compiled output differs from eager: {diff}"
                self.add(MISMATCH, line, detail, size, compiled.origin)
            return out

        return tracked

    # -- dynamo's recompile reasons and logs ---------------------------------------------------
    def on_reasons(self, reasons: list[str], resumed: bool = False) -> None:
        """Guard failures that made dynamo compile again: ``"0/3: tensor 'x' size mismatch ..."``."""
        try:
            self._reasons(reasons)
        except Exception as exc:  # zlint's reading of dynamo's text: never evidence
            self.hook_failures.append(f"reading recompile reasons: {type(exc).__name__}: {exc}")

    def _reasons(self, reasons: list[str]) -> None:
        if self.current is None:
            return
        compiled, line, size = self.current
        # only this object's own cache entries (objects compiled from one function share its
        # cache); a static-size recompile is one where every entry failed on a size mismatch
        own = [text for cid, text in map(hooks.split_reason, reasons) if cid in compiled.compile_ids]
        found = [hooks.SIZE_MISMATCH.search(text) for text in own]
        if own and all(found) and any(int(m.group(3)) >= 2 for m in found if m):
            tensor, index, _, actual = found[0].groups()
            self.add(
                RECOMPILE, line,
                f"{compiled.label}: graphs specialized to one size of {tensor} dim {index} "
                "recompile for every new size",
                int(actual), compiled.origin,
            )

    def on_log(self, record: logging.LogRecord) -> None:
        if self.current is None:
            return
        try:
            message = record.getMessage()
        except Exception:
            return
        compiled, line, size = self.current
        limit = hooks.recompile_limit_hit(record.name, message)
        if limit is not None:
            self.add(
                RECOMPILE, line,
                f"{compiled.label}: hit the recompile limit ({limit}): "
                "from here on this call runs eagerly",
                size, compiled.origin,
            )

    # -- torch.export -------------------------------------------------------------------------
    def export(self, real_export: Callable, mod: Any, args: tuple, kwargs: Any = None, **options: Any) -> Any:
        line = self.caller_line()
        label = f"torch.export at line {line}" if line else "torch.export"
        try:
            program = real_export(mod, args, kwargs, **options)
        except Exception as exc:
            sizes = _declared_sizes(mod, tuple(args), dict(kwargs or {}), options.get("dynamic_shapes"))
            for n in sizes or [None]:
                self.add(probe.classify(exc), line, f"{label}: {self.describe(exc)}", n)
            self.raised.add(id(exc))
            raise
        dynamic_shapes = options.get("dynamic_shapes")
        for detail, n in _made_static(program, mod, tuple(args), dict(kwargs or {}), dynamic_shapes):
            self.add(SPECIALIZATION, line, f"{label}: {detail}", n)
        with torch.no_grad():
            for n in self.sizes:
                try:
                    sized = _resize(mod, tuple(args), dict(kwargs or {}), dynamic_shapes, n)
                except _OutOfRange:
                    continue
                if sized is None:
                    break  # nothing declared dynamic: one shape only
                a, k = sized
                try:
                    expected = mod(*a, **k)
                except Exception:
                    continue  # eager fails too: not the export's fault
                try:
                    got = program.module()(*a, **k)
                except Exception as exc:
                    self.add(COMPILE_ERROR, line, f"{label}: the exported program fails where eager runs: "
                             f"{probe.first_line(exc)}", n)
                    continue
                diff = probe.compare(expected, got)
                if diff:
                    self.add(MISMATCH, line, f"{label}: the exported program differs from eager: {diff}", n)
        return program


def _bound(mod: Any, args: tuple, kwargs: dict, dynamic_shapes: Any) -> list[tuple[Any, Any]]:
    """``(tensor, spec)`` for each export input that ``dynamic_shapes`` gives a spec."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
        values = dict(bound.arguments)
        names = list(values)
    except (TypeError, ValueError, AttributeError):
        names = [str(i) for i in range(len(args))]
        values = dict(zip(names, args))
    if not dynamic_shapes:
        return []
    specs = dynamic_shapes if isinstance(dynamic_shapes, dict) else dict(zip(names, dynamic_shapes))
    return [(values.get(name), spec) for name, spec in specs.items()]


def _declared_sizes(mod: Any, args: tuple, kwargs: dict, dynamic_shapes: Any) -> list[int]:
    """The example's sizes on the dims ``dynamic_shapes`` declares dynamic."""
    out = []
    for tensor, spec in _bound(mod, args, kwargs, dynamic_shapes):
        if isinstance(tensor, torch.Tensor):
            out += [tensor.shape[d] for d, dim in _dims(spec).items() if not isinstance(dim, int) and d < tensor.dim()]
    return list(dict.fromkeys(out))


def _made_static(program: Any, mod: Any, args: tuple, kwargs: dict, dynamic_shapes: Any) -> list[tuple[str, int]]:
    """Dims declared dynamic that the exported program takes as a fixed size (``Dim.AUTO`` on a
    size-1 example does that silently)."""
    try:
        inputs = [
            node.meta["val"] for node in program.graph.nodes
            if node.op == "placeholder" and node.name in set(program.graph_signature.user_inputs)
        ]
        tensors = [t for t in probe.tensors((args, kwargs))]
        out = []
        for tensor, spec in _bound(mod, args, kwargs, dynamic_shapes):
            if not isinstance(tensor, torch.Tensor) or not any(tensor is t for t in tensors):
                continue
            fake = inputs[next(i for i, t in enumerate(tensors) if t is tensor)]
            for d, dim in _dims(spec).items():
                if not isinstance(dim, int) and d < fake.dim() and isinstance(fake.shape[d], int):
                    out.append((f"dim {d} declared dynamic ({dim}) was exported as the fixed size {fake.shape[d]}",
                                int(fake.shape[d])))
        return out
    except Exception:  # private structures: fail soft
        return []


class _OutOfRange(Exception):
    """The size is outside the range the export's ``Dim`` declares."""


def _size_of(compiled: _Compiled, shapes: list) -> int | None:
    """A call's size: the first dim that differs from the object's first call (dim 0 at first)."""
    first = compiled.calls[0][1]
    for a, b in zip(first, shapes):
        if len(a) == len(b):
            for _d, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return y
    return shapes[0][0] if shapes and shapes[0] else None


def _dims(spec: Any) -> dict[int, Any]:
    if isinstance(spec, dict):
        return {int(k): v for k, v in spec.items() if v is not None}
    if isinstance(spec, (list, tuple)):
        return {i: v for i, v in enumerate(spec) if v is not None}
    return {}


def _range(dim: Any) -> tuple[int, float]:
    low = getattr(dim, "min", 0)
    high = getattr(dim, "max", float("inf"))
    try:
        return int(low), float(high)
    except (TypeError, ValueError, OverflowError):
        return int(low) if isinstance(low, int) else 0, float("inf")


def _resize(mod: Any, args: tuple, kwargs: dict, dynamic_shapes: Any, n: int):
    """The export's example inputs with every dim ``dynamic_shapes`` declares dynamic set to ``n``;
    None when nothing is declared dynamic; :class:`_OutOfRange` when ``n`` is outside a range."""
    if not dynamic_shapes:
        return None
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    except (TypeError, ValueError, AttributeError):
        return None  # inputs zlint cannot map to the spec: the sweep is skipped
    values = dict(bound.arguments)
    names = list(values)
    specs = dynamic_shapes if isinstance(dynamic_shapes, dict) else dict(zip(names, dynamic_shapes))
    changed = False
    for name, spec in specs.items():
        tensor = values.get(name)
        if not isinstance(tensor, torch.Tensor):
            continue
        shape = list(tensor.shape)
        for d, dim in _dims(spec).items():
            if isinstance(dim, int) or d >= len(shape):
                continue  # a static dim
            low, high = _range(dim)
            if not low <= n <= high:
                raise _OutOfRange
            shape[d] = n
            changed = True
        if tensor.is_floating_point():
            values[name] = torch.randn(shape, dtype=tensor.dtype, device=tensor.device)
        else:
            values[name] = torch.zeros(shape, dtype=tensor.dtype, device=tensor.device)
    if not changed:
        return None
    return _rebind(bound, values)


def _rebind(bound: inspect.BoundArguments, values: dict) -> tuple[tuple, dict]:
    bound.arguments.update(values)
    return tuple(bound.args), dict(bound.kwargs)


@contextlib.contextmanager
def _patched(tracker: _Tracker, module: Any, compiled_globals: dict[str, tuple[int | None, dict]]) -> Iterator[None]:
    """``torch.compile``/``torch.export.export`` (and the module's names bound to them or to
    compiled functions) replaced by tracking versions while the caller runs."""
    real_compile, real_export = torch.compile, torch.export.export

    def compile_(model=None, **options):
        origin = tracker.caller_line()
        if model is None:  # @torch.compile(...) with arguments
            return lambda m: compile_(m, **options)
        label = f"torch.compile at line {origin}" if origin else "torch.compile"
        return tracker.compile(real_compile, model, origin, options, label)

    def export_(mod, args, kwargs=None, **options):
        return tracker.export(real_export, mod, args, kwargs, **options)

    saved_globals = {}
    for name, value in list(vars(module).items()):
        if value is real_compile:
            saved_globals[name] = value
            module.__dict__[name] = compile_
        elif value is real_export:
            saved_globals[name] = value
            module.__dict__[name] = export_
        elif name in compiled_globals:
            origin, options = compiled_globals[name]
            target = getattr(value, "_torchdynamo_orig_callable", None) or getattr(value, "_orig_mod", None)
            if target is not None:
                saved_globals[name] = value
                label = f"{name} (torch.compile at line {origin})" if origin else name
                module.__dict__[name] = tracker.compile(real_compile, target, origin, options, label)
    tap = probe.LogTap(tracker)
    log = logging.getLogger(hooks.CONVERT_FRAME_LOG)  # "hit config.recompile_limit" is a warning here
    saved_log = (log.level, log.propagate)
    log.setLevel(logging.WARNING)
    log.propagate = False
    log.addHandler(tap)
    mute = probe.Mute()
    torch_handlers = [
        handler
        for name, logger in list(logging.root.manager.loggerDict.items())
        if name.startswith("torch") and isinstance(logger, logging.Logger)
        for handler in logger.handlers
        if isinstance(handler, logging.StreamHandler)
    ]
    for handler in torch_handlers:  # dynamo's own error logs repeat what is recorded
        handler.addFilter(mute)
    torch.compile, torch.export.export = compile_, export_
    try:
        # the recompile reasons (private API: without it, no per-size recompile evidence)
        with hooks.recompile_reasons(tracker.on_reasons):
            yield
    finally:
        torch.compile, torch.export.export = real_compile, real_export
        for handler in torch_handlers:
            handler.removeFilter(mute)
        log.removeHandler(tap)
        log.setLevel(saved_log[0])
        log.propagate = saved_log[1]
        module.__dict__.update(saved_globals)


def _consume(result: Any) -> None:
    if inspect.isgenerator(result) or (hasattr(result, "__next__") and hasattr(result, "__iter__")):
        for _ in result:
            pass


def run_caller(
    call: Callable[..., Any],
    calls: list[tuple[int | None, tuple, dict]],
    module: Any,
    compiled_globals: dict[str, tuple[int | None, dict]],
    report: FunctionReport,
    sizes: list[int],
    backend: str,
) -> FunctionReport:
    """Run ``call(*args, **kwargs)`` for each ``(size, args, kwargs)`` in ``calls`` (one call for a
    whole-sweep example) with tracking compile/export; fill ``report`` (mode ``default``)."""
    tracker = _Tracker(report.path, report.first_line, report.last_line, backend)
    tracker.sizes = list(sizes)
    failures: list[str] = []
    hooks.reset()
    try:
        with _patched(tracker, module, compiled_globals), torch.no_grad():
            for size, args, kwargs in calls:
                try:
                    _consume(call(*args, **kwargs))
                except Exception as exc:
                    if id(exc) not in tracker.raised:
                        where = f" at size {size}" if size is not None else ""
                        failures.append(f"{probe.first_line(exc)}{where}")
    finally:
        hooks.reset()
    failed = tracker.hook_failures + tracker.observer.hook_failures
    if failed:
        report.unverifiable = f"zlint's hook into torch {torch.__version__} failed: {failed[0]}"
        return report
    report.evidence.extend(tracker.evidence.values())
    run = ModeRun("default", graphs=sum(c.graphs for c in tracker.objects), sizes_run=list(sizes))
    run.baseline = _marked_baseline(tracker.objects, backend)
    report.runs.append(run)
    if failures and not report.evidence:
        report.unverifiable = f"calling {report.target.rsplit('::', 1)[-1]} failed: {failures[0]}"
    elif not tracker.objects and not report.evidence and not failures:
        report.input_detail += " (the caller compiled and exported nothing)"
    for c in tracker.objects:
        if not c.calls:
            continue
        sized = sorted({s for s in c.graph_sizes if s is not None})
        at_sizes = f" (sizes {','.join(map(str, sized))})" if sized else ""
        report.input_detail += f"; {c.label}: {c.graphs} graphs" + at_sizes
    return report


def _marked_baseline(objects: list[_Compiled], backend: str) -> int:
    """Graphs a trivial function compiled with default settings costs when called with the same
    shapes as each compiled object, the varying dims marked with maybe_mark_dynamic: what the
    call sites would cost done right."""
    total = 0
    for c in objects:
        shapes = [s for _, s in c.calls]
        if not shapes:
            continue
        varying = [
            [d for d in range(len(t)) if len({s[i][d] for s in shapes if i < len(s) and len(s[i]) == len(t)}) > 1]
            for i, t in enumerate(shapes[0])
        ]
        counter = [0]
        inner = probe.backend(backend)

        def capture(gm, example_inputs, counter=counter, inner=inner):
            counter[0] += 1
            return inner(gm, example_inputs)

        hooks.reset()
        trivial = torch.compile(probe.trivial, backend=capture)
        for call_shapes in shapes:
            tensors = [torch.zeros(s) for s in call_shapes]
            for t, dims in zip(tensors, varying):
                for d in dims:
                    if d < t.dim():
                        hooks.maybe_mark_dynamic(t, d)
            with contextlib.suppress(Exception):
                trivial(*tensors)
        total += counter[0]
    hooks.reset()
    return total
