"""A registered example's inputs written back as the text of a ``make_inputs``.

An UNVERIFIABLE finding's ``register:`` stub (:mod:`zlint.verify.stubs`) starts from what the user
already registered for the function, or for the caller it was verified through, rather than from
placeholders. The example is user code and its lambda's source may not be readable, so its
*values* are read instead: the example is made at three sizes of the sweep and compared. A tensor
dim or an int that follows the size is written in ``n`` (``n``, ``16 * n``, ``n + 1``), one that
stays put as its value, a tensor as ``torch.randn``/``torch.randint``/``torch.rand(...) > 0.5`` of
that shape and dtype, and anything else the user builds (a config, a module, a value that moves
with the size in no straight line) as ``...``, to be filled in from their own example.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

#: what a value the text cannot rebuild reads as (the stubs' own placeholder)
UNKNOWN = "..."


def in_n(values: list[int], sizes: list[int]) -> str:
    """``[2, 3, 5]`` at sizes ``[2, 3, 5]`` -> ``n``; ``[32, 48, 80]`` -> ``16 * n``; ``[7, 7, 7]``
    -> ``7``; ``...`` when the values are no straight line in the size."""
    if len(set(values)) == 1:
        return str(values[0])
    if len(sizes) < 2 or sizes[1] == sizes[0]:
        return UNKNOWN
    slope, rest = divmod(values[1] - values[0], sizes[1] - sizes[0])
    offset = values[0] - slope * sizes[0]
    if rest or any(v != slope * n + offset for v, n in zip(values, sizes)):
        return UNKNOWN
    term = "n" if slope == 1 else f"{slope} * n"
    return term if offset == 0 else f"{term} + {offset}" if offset > 0 else f"{term} - {-offset}"


def _tensor(values: list[torch.Tensor], sizes: list[int]) -> str:
    first = values[0]
    if any(v.dim() != first.dim() or v.dtype != first.dtype for v in values):
        return UNKNOWN
    dims = [in_n([v.shape[i] for v in values], sizes) for i in range(first.dim())]
    shape = f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"
    listed = ", ".join(dims) if dims else "()"
    if first.dtype == torch.bool:
        return f"torch.rand({listed}) > 0.5"
    if first.dtype.is_floating_point or first.dtype.is_complex:
        dtype = "" if first.dtype == torch.get_default_dtype() else f", dtype={first.dtype}"
        return f"torch.randn({listed}{dtype})"
    # integer tensors are usually indices: keep them below what the user's ever reached
    high = max([int(v.max()) + 1 for v in values if v.numel()] or [1])
    dtype = "" if first.dtype == torch.int64 else f", dtype={first.dtype}"
    return f"torch.randint(0, {max(high, 1)}, {shape}{dtype})"


def value_text(values: list[Any], sizes: list[int]) -> str:
    """One argument of the example, made at each of ``sizes``, as text in ``n``."""
    first = values[0]
    kinds = {type(v) for v in values}
    if len(kinds) != 1 and not all(isinstance(v, torch.Tensor) for v in values):
        return UNKNOWN
    if isinstance(first, torch.Tensor):
        return _tensor(values, sizes)
    if isinstance(first, bool) or first is None or isinstance(first, (str, float)):
        return repr(first) if all(v == first for v in values) else UNKNOWN
    if isinstance(first, int):
        return in_n(values, sizes)
    if isinstance(first, (list, tuple)):
        return _sequence(values, sizes)
    if isinstance(first, dict):
        if any(v.keys() != first.keys() for v in values):
            return UNKNOWN
        return "{" + ", ".join(f"{k!r}: {value_text([v[k] for v in values], sizes)}" for k in first) + "}"
    return UNKNOWN


def _sequence(values: list[Any], sizes: list[int]) -> str:
    first = values[0]
    lengths = [len(v) for v in values]
    if len(set(lengths)) == 1:
        items = [value_text([v[i] for v in values], sizes) for i in range(len(first))]
        if isinstance(first, tuple):
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        return f"[{', '.join(items)}]"
    # one item per unit of size (a request per box): written as a comprehension over n
    if in_n(lengths, sizes) == "n" and all(lengths):
        item = value_text([v[0] for v in values], sizes)
        rows = f"[{item} for _ in range(n)]"
        return f"tuple({rows})" if isinstance(first, tuple) else rows
    return UNKNOWN


def describe(
    call: Callable[..., Any], make_inputs: Callable[[int], tuple[tuple, dict]], sizes: list[int],
) -> dict[str, Any]:
    """``{"call": "lambda n: (torch.randn(n, 16),)", "params": {"likes": "torch.randn(n, 16)"}}``
    for a registered example (``make_inputs`` as normalized to ``(args, kwargs)``); ``params`` by
    the name of the parameter of ``call`` each value binds to. Empty when it cannot be made."""
    chosen = [n for n in dict.fromkeys(sizes) if n >= 2][:3]
    if len(chosen) < 2:  # sizes 0 and 1 are too easily a constant: they cannot tell n from 1
        chosen = [2, 3, 5]
    made = [make_inputs(n) for n in chosen]
    counts = {len(args) for args, _ in made}
    keys = {tuple(kwargs) for _, kwargs in made}
    if len(counts) != 1 or len(keys) != 1:
        return {}
    args = [value_text([m[0][i] for m in made], chosen) for i in range(counts.pop())]
    kwargs = {k: value_text([m[1][k] for m in made], chosen) for k in made[0][1]}
    positional = f"({', '.join(args)}{',' if len(args) == 1 else ''})"
    text = f"lambda n: ({positional}, dict({', '.join(f'{k}={v}' for k, v in kwargs.items())}))" if kwargs else (
        f"lambda n: {positional}")
    params: dict[str, str] = {}
    try:
        bound = inspect.signature(call).bind_partial(*range(len(args)), **dict.fromkeys(kwargs))
    except (TypeError, ValueError):  # no signature, or the example does not fit it
        bound = None
    if bound is not None:
        for name, slot in bound.arguments.items():
            if isinstance(slot, int) and not isinstance(slot, bool):
                params[name] = args[slot]
            elif name in kwargs:
                params[name] = kwargs[name]
    return {"call": text, "params": params}
