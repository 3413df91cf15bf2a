"""``zlint --verify``: compile flagged functions with torch.compile and report what dynamo does.

The only part of zlint that imports torch, and only when a verification actually runs: importing
this package (e.g. from an examples file, to call :func:`example`) stays torch-free.

Python API for tests::

    from zlint.verify import check
    report = check(pool, lambda n: (torch.randn(n, 8),), sizes=range(9))
    assert report.graphs("mark_unbacked") == 1 and not report.graph_breaks and not report.mismatches
"""

from __future__ import annotations

import ast
import inspect
import os
from collections.abc import Callable, Iterable
from typing import Any

from zlint.verify.evidence import MODES, FunctionReport

# the documented entry point of a conventional examples file (docs/verify.md: ``from zlint.verify
# import example``): the one name this package offers on behalf of another module
from zlint.verify.examples import example

DEFAULT_SIZES = (2, 3, 5, 1, 0, 8)

__all__ = ["DEFAULT_SIZES", "SourceUnavailableError", "check", "example", "torch_available"]


class SourceUnavailableError(OSError):
    """:func:`check` cannot read the source of the function it was given (typed into ``python -``,
    ``python -c`` or ``exec``), and needs it to synthesize inputs. An ``OSError``, like the error
    of :func:`inspect.getsource` it replaces, so code that caught that still catches this."""


def torch_available() -> bool:
    """True when torch can be imported (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def _last_line(code: Any) -> int:
    """The last line a code object or any function nested in it runs."""
    lines = [n for _, _, n in code.co_lines() if n is not None]
    nested = [_last_line(c) for c in code.co_consts if inspect.iscode(c)]
    return max([code.co_firstlineno, *lines, *nested])


def check(
    fn: Callable[..., Any],
    make_inputs: Callable[[int], Any] | None = None,
    *,
    sizes: Iterable[int] = DEFAULT_SIZES,
    modes: Iterable[str] = MODES,
    backend: str | None = None,
    device: str = "cpu",
    lines: Iterable[int] | None = None,
) -> FunctionReport:
    """Compile ``fn`` over ``sizes`` in each mode, in this process, and report what dynamo did.

    ``make_inputs(n)`` returns the call's arguments for size ``n`` (a tuple, a dict of keyword
    arguments, ``(tuple, dict)``, or one value); without it inputs are synthesized from ``fn``'s
    annotations and how it uses its parameters. ``fn`` may be a bound method (``model.forward``).
    ``lines`` (absolute file lines) narrows synthesized sweeps to the sizes those lines read.
    The report has ``graphs(mode)``, ``guards``, ``graph_breaks``, ``mismatches``, ``at(line)``.
    """
    import zlint.verify.sandbox.probe as probe
    from zlint.verify.sandbox.subjects import make_from_plan
    from zlint.verify.synth import find_function, plan_inputs
    from zlint.verify.thresholds import known_ints

    func = inspect.unwrap(getattr(fn, "__func__", fn))
    path = inspect.getsourcefile(func) or func.__code__.co_filename
    try:
        source_lines, first = inspect.getsourcelines(func)
        last = first + len(source_lines) - 1
    except OSError:
        if make_inputs is None:
            raise SourceUnavailableError(
                f"cannot read the source of {func.__qualname__} (defined in {func.__code__.co_filename}), which "
                "check() needs to synthesize inputs: define it in a file, or pass make_inputs"
            ) from None
        # given inputs, dynamo's logs name lines of the code object itself: its span is enough
        first, last = func.__code__.co_firstlineno, _last_line(func.__code__)
    device = probe.default_device(device)
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"unknown verify mode(s) {sorted(unknown)}; known: {', '.join(MODES)}")
    report = FunctionReport(getattr(func, "__qualname__", repr(fn)))
    if make_inputs is not None:
        make = lambda n: probe.normalize_call(make_inputs(n))  # noqa: E731
        report.inputs, report.input_detail = "given", "make_inputs"
    else:
        tree = ast.parse(open(path, encoding="utf-8").read()) if os.path.exists(path) else None
        node = find_function(tree, func.__qualname__) if tree else None
        if node is None:
            report.unverifiable = f"cannot find the source of {func.__qualname__} to synthesize inputs"
            return report
        plan = plan_inputs(node, list(lines or ()), hasattr(fn, "__self__"), known_ints(tree, node))
        if plan.problem:
            report.unverifiable = plan.problem
            return report
        make = make_from_plan(plan)
        report.inputs, report.input_detail = plan.source, plan.describe()
    subject = probe.Subject(fn, make, path, first, last, report.target)
    prober = probe.Prober(backend or probe.default_backend(device), device)
    return prober.run(subject, list(sizes), tuple(m for m in MODES if m in set(modes)), None, report)
