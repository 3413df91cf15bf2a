"""A time budget for the analysis of one file: past it, the analysis stops with
:class:`BudgetExceeded` and the file is reported as not linted, and the run goes on.

Every walk over names, classes, calls and values ends by construction (:mod:`zlint.core.walks`);
the budget is what still holds when a file is merely huge, or when a walk this project has not
thought of loops. It stops the analysis in two ways:

- at the next step of a shared walk (:func:`tick`), in any thread: the language server, a test
  thread, a host without signals;
- on the main thread of a Unix process (the ``zlint`` command and its workers, flake8's workers),
  also from a timer signal, wherever the analysis is: in a plain ``ast`` walk, after LibCST's
  parser returns. The timer is used only when no one else has a handler for it (a host's own
  alarm is left alone). It fires once: a raise that Python could not propagate (inside a
  ``__del__``) is followed by the next :func:`tick`'s, which reads the same deadline.

:class:`BudgetExceeded` derives from ``BaseException``: the ``except Exception`` that keeps one
failing fact from taking a file down must not keep a file from ending.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: shared-walk steps between two looks at the clock (a look costs about as much as 50 steps)
_STEPS_PER_LOOK = 256


class BudgetExceeded(BaseException):
    """The analysis of a file ran past its time budget."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds

    def __str__(self) -> str:
        return budget_reason(self.seconds)


#: how the reason of a file past its budget starts (such a result is never cached: the next run may be faster)
BUDGET_REASON_START = "analysis took longer than its time budget"


def budget_reason(seconds: float) -> str:
    """What a file past its budget is reported with (one line, names the setting)."""
    return f"{BUDGET_REASON_START} ({seconds:g} s per file; the file-time-budget setting)"


class _Local(threading.local):
    def __init__(self) -> None:
        #: the budgets in force in this thread, innermost last: (deadline, seconds)
        self.stack: list[tuple[float, float]] = []
        self.steps = 0


_LOCAL = _Local()
_TIMER_LOCK = threading.Lock()


def tick() -> None:
    """One step of a walk: raises :class:`BudgetExceeded` when this thread's budget is spent.
    Cheap: the clock is read once every few hundred steps."""
    local = _LOCAL
    if not local.stack:
        return
    local.steps += 1
    if local.steps % _STEPS_PER_LOOK == 0:
        check()


def check() -> None:
    """Raises :class:`BudgetExceeded` when this thread's budget is spent (reads the clock)."""
    stack = _LOCAL.stack
    if stack and time.monotonic() >= stack[-1][0]:
        raise BudgetExceeded(stack[-1][1])


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Run the block under a budget of ``seconds`` (None, 0, a negative number or infinity: no
    budget of its own). An inner budget ends no later than the one around it, and reports the
    seconds of whichever ends first."""
    if seconds is None or seconds <= 0 or math.isinf(seconds) or math.isnan(seconds):
        yield
        return
    stack = _LOCAL.stack
    depth = len(stack)
    deadline = time.monotonic() + seconds
    if stack and stack[-1][0] <= deadline:
        deadline, seconds = stack[-1]
    stack.append((deadline, seconds))
    timer = False
    try:
        check()  # an outer budget already spent: nothing to start
        timer = _arm(deadline)
        yield
    finally:
        # by depth, not pop(): whatever happened inside, this thread's stack is as it was
        del stack[depth:]
        if timer:
            _disarm(stack[-1] if stack else None)


def _owns_timer() -> bool:
    """Whether this budget may use the timer signal: on the main thread of a process with one,
    where nobody else handles it (or an outer budget of ours does)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    try:
        handler = signal.getsignal(signal.SIGALRM)
    except ValueError:  # pragma: no cover - not the main interpreter
        return False
    return handler in (signal.SIG_DFL, _on_alarm) and (
        handler is _on_alarm or signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )


def _arm(deadline: float) -> bool:
    if not _owns_timer():
        return False
    with _TIMER_LOCK:
        try:
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1e-6))
        except (OSError, ValueError):  # pragma: no cover - no timer here: the ticks still stop it
            return False
    return True


def _disarm(outer: tuple[float, float] | None) -> None:
    """Stop the timer, or set it back to the budget around this one."""
    with _TIMER_LOCK:
        try:
            if outer is None:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
            else:
                signal.setitimer(signal.ITIMER_REAL, max(outer[0] - time.monotonic(), 1e-6))
        except (OSError, ValueError):  # pragma: no cover
            pass


def _on_alarm(signum: int, frame: object) -> None:
    stack = _LOCAL.stack  # the handler runs on the main thread: its stack
    if not stack:  # the budget ended as the timer fired
        return
    left = stack[-1][0] - time.monotonic()
    if left > 0:  # early by the clocks' difference: once more, for what is left
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6))
        return
    raise BudgetExceeded(stack[-1][1])
