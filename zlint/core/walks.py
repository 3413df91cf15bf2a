"""Walks that end: the analyses that follow names, aliases, imports, class bases and calls
across a run (:mod:`zlint.scope`: :class:`~zlint.scope.names.Project`, the classification, the
default-configuration reading) go through these few helpers, which keep what they have visited,
so that a name that resolves to itself (``class Cache(Cache)`` over an imported ``Cache``,
``a = a``, two modules that star-import each other, a class that is its own base through a chain)
ends the walk instead of looping. Each step also ticks the file's time budget
(:mod:`zlint.core.budget`), which stops what a walk of its own (inside one file's tree) may still
make too slow.

- :func:`reach`: everything reachable from some roots through a successor function, each once
  (class hierarchies, call graphs, who-calls-whom);
- :func:`follow`: a chain of single steps (an alias of an alias, a re-export of a re-export) up
  to its end or its first repeat;
- :func:`settle`: a fixed point computed by rounds, with a bound on the rounds;
- :func:`once_per_key`: a memoized recursive resolver whose re-entry on a key it is still
  resolving (a cycle) answers a default.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, TypeVar

from zlint.core.budget import tick

T = TypeVar("T", bound=Hashable)
F = TypeVar("F", bound=Callable[..., Any])

#: rounds a fixed point may take before it is taken as settled: each round of the analyses that
#: use :func:`settle` adds at least one fact about a finite set, so real code settles in a handful
DEFAULT_ROUNDS = 10_000


def reach(
    roots: Iterable[T], successors: Callable[[T], Iterable[T]], breadth_first: bool = False
) -> Iterator[T]:
    """The roots and everything reachable from them, each once, in the order ``successors``
    gives: depth first (the order a recursive walk would visit them in), or breadth first."""
    seen: set[T] = set()
    # a queue taken from its front, or a stack (its top: the first successor) from its back
    pending = deque(roots) if breadth_first else deque(reversed(list(roots)))
    while pending:
        node = pending.popleft() if breadth_first else pending.pop()
        if node in seen:
            continue
        tick()
        seen.add(node)
        yield node
        following = [n for n in successors(node) if n not in seen]
        pending.extend(following if breadth_first else reversed(following))


def follow(start: T | None, step: Callable[[T], T | None]) -> Iterator[T]:
    """``start`` and each node ``step`` leads to, up to the first None or the first node met
    before (the chain loops there)."""
    seen: set[T] = set()
    node = start
    while node is not None and node not in seen:
        tick()
        seen.add(node)
        yield node
        node = step(node)


def settle(update: Callable[[], bool], rounds: int = DEFAULT_ROUNDS) -> bool:
    """Call ``update`` (which says whether it changed anything) until a round changes nothing, at
    most ``rounds`` times; True when it settled."""
    for _ in range(rounds):
        tick()
        if not update():
            return True
    return False


_RESOLVING = object()


def once_per_key(default: Any) -> Callable[[F], F]:
    """Decorate a method that resolves something recursively: its answers are kept per instance
    and arguments, and a call that comes back to arguments still being resolved (a cycle) gets
    ``default`` instead of recursing forever. The arguments must be hashable."""

    def decorate(method: F) -> F:
        store = f"_once_{method.__name__}"

        @functools.wraps(method)
        def resolved(self: Any, *args: Any) -> Any:
            memo = self.__dict__.get(store)
            if memo is None:
                memo = self.__dict__[store] = {}
            found = memo.get(args, None)
            if found is _RESOLVING:
                return default
            if found is not None or args in memo:
                return found
            tick()
            memo[args] = _RESOLVING
            try:
                answer = method(self, *args)
            except BaseException:
                del memo[args]
                raise
            memo[args] = answer
            return answer

        return resolved  # type: ignore[return-value]

    return decorate
