"""Registered examples: how a user tells ``--verify`` which inputs a function takes.

No torch here: an examples file imports this module (through :mod:`zlint.verify`) and registers
``make_inputs(n)`` callables; only calling them needs torch, and that happens in a worker.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: File name ``--verify`` imports, when present, from each linted directory and its parents up to
#: the project root (the directory holding ``pyproject.toml``).
CONVENTIONAL_FILE = "zlint_examples.py"


@dataclass(frozen=True)
class Example:
    """Inputs for one function: ``make_inputs(n)`` gives the call's arguments for size ``n``.

    ``make_inputs`` may return a tuple/list (positional arguments), a dict (keyword arguments),
    a pair ``(tuple, dict)`` or a single value (one positional argument). For a method,
    ``factory()`` builds the object (usually an ``nn.Module``) whose method is verified. With
    ``sweep=True``, ``make_inputs(sizes)`` gets the whole list of sizes and the target is called
    once (a serving loop that consumes one request per size).
    """

    key: tuple[str, str]  # (real path of the source file, qualified name)
    make_inputs: Callable[[int], Any]
    factory: Callable[[], Any] | None = None
    sizes: tuple[int, ...] | None = None
    sweep: bool = False


_REGISTRY: dict[tuple[str, str], Example] = {}


def _key_of(target: Any) -> tuple[str, str]:
    if isinstance(target, str):
        module, sep, qualname = target.partition(":")
        if not sep or not module or not qualname:
            raise ValueError(f"example target {target!r} must look like 'package.module:Qual.name'")
        if module.endswith(".py") or os.sep in module:
            return os.path.realpath(module), qualname
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.origin:
            raise ValueError(f"example target {target!r}: module {module!r} not found")
        return os.path.realpath(spec.origin), qualname
    func = inspect.unwrap(getattr(target, "__func__", target))
    source = inspect.getsourcefile(func)
    if source is None:
        raise ValueError(f"example target {target!r} has no source file")
    return os.path.realpath(source), func.__qualname__


def example(
    target: Any = None,
    make_inputs: Callable[[int], Any] | None = None,
    *,
    factory: Callable[[], Any] | None = None,
    sizes: tuple[int, ...] | None = None,
    sweep: bool = False,
):
    """Register inputs for ``target`` (a function, a method, or ``'pkg.mod:Qual.name'``).

    ``example(pool, lambda n: (torch.randn(n, 8),))`` registers and returns the example;
    ``@example(make_inputs=lambda n: ...)`` used as a decorator registers the decorated function
    and returns it unchanged. ``factory`` builds the object for a method; ``sizes`` overrides the
    sweep for this function. ``sweep=True`` passes the whole list of sizes to ``make_inputs`` and
    calls the target once: for a caller (``serve(requests, model)``) whose call sites
    ``--verify`` checks, where recompiles show across the calls one run makes.
    """
    if make_inputs is None:
        raise TypeError("example() needs make_inputs(n)")
    if target is None:

        def register(func):
            example(func, make_inputs, factory=factory, sizes=sizes, sweep=sweep)
            return func

        return register
    registered = Example(_key_of(target), make_inputs, factory, tuple(sizes) if sizes else None, sweep)
    _REGISTRY[registered.key] = registered
    return registered


def lookup(path: str, qualname: str) -> Example | None:
    """The example registered for ``qualname`` in the file ``path``, if any."""
    return _REGISTRY.get((os.path.realpath(path), qualname))


def registered() -> list[Example]:
    return list(_REGISTRY.values())


def clear() -> None:
    """Forget every registration (tests)."""
    _REGISTRY.clear()
