"""The time budget (:mod:`zlint.core.budget`): it stops a loop that never ticks on the main
thread, a ticking walk in any thread, nests, leaves a host's own timer alone, and leaves nothing
behind; and the shared walks (:mod:`zlint.core.walks`) end on cycles."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from zlint.core.budget import BudgetExceeded, budget_reason, tick, time_budget
from zlint.core.walks import follow, once_per_key, reach, settle


def test_a_loop_that_never_ticks_is_stopped_on_the_main_thread():
    began = time.monotonic()
    with pytest.raises(BudgetExceeded) as caught:
        with time_budget(0.05):
            while True:
                pass
    assert 0.04 < time.monotonic() - began < 5
    assert caught.value.seconds == 0.05
    assert str(caught.value) == budget_reason(0.05)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # nothing left armed
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_a_ticking_walk_is_stopped_in_another_thread():
    outcome: list[object] = []

    def walk() -> None:
        try:
            with time_budget(0.05):
                while True:
                    tick()
        except BudgetExceeded as exc:
            outcome.append(exc.seconds)

    thread = threading.Thread(target=walk)
    thread.start()
    thread.join(10)
    assert not thread.is_alive() and outcome == [0.05]


def test_budgets_nest_and_the_first_to_end_is_reported():
    with pytest.raises(BudgetExceeded) as caught:
        with time_budget(0.05):
            with time_budget(30):
                while True:
                    pass
    assert caught.value.seconds == 0.05
    with time_budget(30):  # an inner budget that ends in time hands the timer back to the outer
        with time_budget(0.5):
            pass
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_an_outer_budget_already_spent_stops_the_inner_at_once():
    entered: list[str] = []

    def run() -> None:  # a thread: no signal, and sleeping does not tick
        try:
            with time_budget(0.01):
                time.sleep(0.05)
                entered.append("outer")
                with time_budget(30):
                    entered.append("inner")
        except BudgetExceeded as exc:
            entered.append(f"stopped after {exc.seconds:g} s")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert entered == ["outer", "stopped after 0.01 s"]


def test_no_budget_never_stops_anything():
    for seconds in (None, 0, -1, float("inf")):
        with time_budget(seconds):
            for _ in range(100_000):
                tick()
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_except_exception_does_not_swallow_it():
    with pytest.raises(BudgetExceeded):
        with time_budget(0.02):
            try:
                while True:
                    pass
            except Exception:  # noqa: BLE001 - what the analyses' guards do
                pytest.fail("BudgetExceeded was caught as an Exception")


def test_a_host_s_own_timer_is_left_alone():
    fired = []

    def host(signum: int, frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, host)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with time_budget(0.01):
            assert signal.getsignal(signal.SIGALRM) is host
            end = time.monotonic() + 0.3
            while time.monotonic() < end and not fired:
                pass
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- the walks ----------------------------------------------------------------------------------


def test_reach_visits_each_node_once_through_cycles():
    graph = {"a": ["b", "c"], "b": ["a", "d"], "c": ["c", "d"], "d": ["a"]}
    assert list(reach(["a"], graph.__getitem__)) == ["a", "b", "d", "c"]
    assert list(reach(["a"], graph.__getitem__, breadth_first=True)) == ["a", "b", "c", "d"]


def test_follow_ends_at_the_first_repeat_or_none():
    assert list(follow("a", {"a": "b", "b": "c", "c": "a"}.get)) == ["a", "b", "c"]
    assert list(follow("a", {"a": "b"}.get)) == ["a", "b"]
    assert list(follow("a", {"a": "a"}.get)) == ["a"]
    assert list(follow(None, {}.get)) == []


def test_settle_bounds_the_rounds():
    rounds = []
    assert settle(lambda: rounds.append(1) or len(rounds) < 3) is True and len(rounds) == 3
    assert settle(lambda: True, rounds=5) is False


def test_once_per_key_answers_the_default_on_a_cycle_and_remembers():
    class Names:
        def __init__(self, aliases: dict[str, str]) -> None:
            self.aliases = aliases
            self.calls = 0

        @once_per_key(default=None)
        def resolve(self, name: str) -> str | None:
            self.calls += 1
            target = self.aliases.get(name)
            return name if target is None else self.resolve(target)

    names = Names({"a": "b", "b": "a", "c": "d"})
    assert names.resolve("a") is None  # a = b, b = a: nothing
    assert names.resolve("c") == "d"
    calls = names.calls
    assert names.resolve("c") == "d" and names.calls == calls
