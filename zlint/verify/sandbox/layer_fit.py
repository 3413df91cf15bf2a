"""Fit synthesized tensors to the layers a method feeds them to, on the built module.

A conv built with ``in_channels=3`` fails eagerly on an input with 4 channels, and one whose
channel dim is swept fails at every size but 3: the dims a layer's fixed width reads are held at
the module's own value, and only the other dims are swept.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from zlint.verify.synth import Plan, rank_of_layer


def first_layers(module: Any) -> list[Any]:
    """``module`` and its first children down to a leaf (a Sequential's first layer)."""
    out = []
    for _ in range(6):
        if module is None:
            break
        out.append(module)
        children = getattr(module, "children", None)
        module = next(iter(children()), None) if callable(children) else None
    return out


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def fixed_widths(layer: Any) -> dict[int, int]:
    """Dims of its input whose size a layer fixes (dim -> size): the channel dim of convs and
    batch/group norms, the last dim of linears, the normalized dims of a layer norm."""
    widths: dict[int, int] = {}
    for attr in ("in_channels", "num_features", "num_channels"):
        width = _int(getattr(layer, attr, None))
        if width is not None:
            return {1: width}
    width = _int(getattr(layer, "in_features", None))
    if width is not None:
        return {-1: width}
    shape = getattr(layer, "normalized_shape", None)
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(shape, (tuple, list)) and shape and all(_int(s) for s in shape):
        for i, size in enumerate(reversed(shape)):
            widths[-1 - i] = size
    return widths


def fit_layers(plan: Plan, obj: Any) -> None:
    """Give each tensor parameter passed to ``self.<layer>(param)`` that layer's rank (when the
    source fixed none) and its fixed widths; the sweep then drives only the other dims."""
    if obj is None:
        return
    for param in plan.params:
        if param.kind != "tensor":
            continue
        for attr in plan.submodules.get(param.name, []):
            layers = first_layers(getattr(obj, attr, None))
            if not layers:
                continue
            rank = rank_of_layer([type(layer).__name__ for layer in layers])
            if rank is not None and (param.name in plan.rank_open or param.name in plan.named_ranks):
                if param.name in plan.grow_front and rank > len(param.labels):
                    # dims read from the end (``x.shape[-2:]``) stay the last ones
                    more = [f"{param.name}.{i}" for i in range(len(param.labels), rank)]
                    param.labels = more + param.labels
                else:
                    param.labels = param.labels[:1] + [f"{param.name}.{i}" for i in range(1, rank)]
            widths = next((w for w in map(fixed_widths, layers) if w), {})
            if (param.name in plan.rank_guessed and set(widths) == {-1}
                    and param.labels[-1] in plan.swept):  # ``h.size(1)`` on a linear's input: [b, n, width]
                param.labels.append(f"{param.name}.{len(param.labels)}")
            for dim, size in widths.items():
                if -len(param.labels) <= dim < len(param.labels):
                    param.labels[dim] = str(size)
            break
    labels = {lab for p in plan.params if p.kind == "tensor" for lab in p.labels}
    plan.swept = [lab for lab in plan.swept if lab in labels]
    if not plan.swept:  # every flagged dim is a fixed width: drive the leading dims instead
        plan.swept = list(dict.fromkeys(
            p.labels[0] for p in plan.params if p.kind == "tensor" and p.labels and not p.labels[0].isdigit()
        ))


def _first_conv_width(obj: Any, rank: int) -> int | None:
    """``in_channels`` of the first conv of that input rank the module holds (registration order
    is, for nearly every model, the order its forward applies them)."""
    modules = getattr(obj, "modules", None)
    if not callable(modules):
        return None
    for layer in modules():
        if rank_of_layer([type(layer).__name__]) == rank and "conv" in type(layer).__name__.lower():
            return _int(getattr(layer, "in_channels", None))
    return None


def _variants(plan: Plan, obj: Any) -> list[Plan]:
    """The plan, then the same with more dims on tensors whose rank only their indexing bounds
    (``posemb[:, :k]`` may well be rank 3), each also with its channel dim at the module's first
    conv's ``in_channels``."""
    out: list[Plan] = []
    base = 0  # how many variants keep the plan's own rank
    for extra in (0, 1, 2):
        if extra and not plan.rank_guessed:
            break
        ranked = copy.deepcopy(plan)
        for p in ranked.params:
            if p.name in plan.rank_guessed and p.kind == "tensor" and len(p.labels) + extra <= 5:
                more = [f"{p.name}.{i}" for i in range(len(p.labels), len(p.labels) + extra)]
                # dims read from the end (``x.shape[-2:]``) stay the last ones
                p.labels = more + p.labels if p.name in plan.grow_front else p.labels + more
        out.append(ranked)
        fitted = copy.deepcopy(ranked)
        changed = False
        for p in fitted.params:
            width = _first_conv_width(obj, len(p.labels)) if p.kind == "tensor" and len(p.labels) >= 3 else None
            if width is not None and not p.labels[1].isdigit():
                p.labels[1] = str(width)
                changed = True
        last = copy.deepcopy(ranked)  # a sequence model's [batch, time, width]: the width is the last dim
        moved = False
        for p in last.params:
            if p.kind == "tensor" and len(p.labels) >= 3 and p.labels[1].isdigit() and not p.labels[-1].isdigit():
                p.labels[1], p.labels[-1] = p.labels[-1], p.labels[1]
                moved = True
        if moved:
            out.append(last)
        if changed:
            fitted.swept = [lab for lab in fitted.swept if any(lab in p.labels for p in fitted.params)] or [
                p.labels[0] for p in fitted.params if p.kind == "tensor" and not p.labels[0].isdigit()
            ]
            out.append(fitted)
        if not extra:
            base = len(out)
    # a kernel or window larger than the fixed dims (the 400-sample window of an audio front
    # end): the same variants with those dims larger
    first = out[:base]
    for scale in SCALES:
        out.extend(scaled(variant, scale) for variant in first)
    return out


#: sizes tried for the dims after the batch dim when the layers need more than FIXED
SCALES = (16, 64, 512)


def scaled(plan: Plan, scale: int) -> Plan:
    """``plan`` with every dim after the batch dim that is neither swept nor a layer's fixed width
    at ``scale`` (``x[n,1024]``: audio for a front end with a 400-sample window)."""
    out = copy.deepcopy(plan)
    for p in out.params:
        if p.kind != "tensor":
            continue
        for i, label in enumerate(p.labels):
            if i and not label.isdigit() and label not in out.swept:
                p.labels[i] = str(scale)
    return out


def first_that_runs(
    plan: Plan, call: Callable, make_from_plan: Callable, sizes: tuple[int, ...] = (3, 2),
    unfitted: Plan | None = None,
) -> Plan:
    """The first variant of ``plan`` (:func:`_variants`) on which ``call`` runs eagerly at one of
    ``sizes``, then of ``unfitted`` (the plan before :func:`fit_layers`: a layer deep inside may
    not see the input as it is given, ``[batch, samples]`` audio unsqueezed before its conv);
    the plan itself when none does (the sweep then reports the eager failure). ``plan.tried``
    lists what was tried before it."""
    import torch

    tried = []
    obj = getattr(call, "__self__", None)
    variants = _variants(plan, obj)
    if unfitted is not None:
        seen = {v.describe() for v in variants}
        variants += [v for v in _variants(unfitted, obj) if v.describe() not in seen]
    for variant in variants:
        make = make_from_plan(variant)
        for n in sizes:
            try:
                torch.manual_seed(n)
                args, kwargs = make(n)
                with torch.no_grad():
                    call(*args, **kwargs)
            except SystemExit:  # user code exits: the sweep reports that, not a variant
                plan.tried = tried
                return plan
            except Exception as exc:  # user code: this variant does not fit it
                text = str(exc).splitlines()[0][:120] if str(exc) else ""
                failure = f"{type(exc).__name__}: {text}".rstrip(": ")
                continue
            variant.tried = tried
            return variant
        tried.append(f"{variant.describe()} ({failure})")
    plan.tried, plan.fits = tried, False
    return plan
