"""Dynamo's recompile reasons, heard without the user switching on ``TORCH_LOGS=recompiles``.

Dynamo writes its ``recompiles`` log only when that artifact is enabled in ``torch._logging``
(a logger level is not enough), so listening on the log misses every recompile under default
settings. The reasons themselves are always computed, by
``torch._dynamo.convert_frame.get_and_maybe_log_recompilation_reasons``, before each recompile:
:func:`listening` wraps that private function while a sweep or a caller runs. Where a torch
release lacks it, :func:`listening` yields ``False`` and no reasons arrive (callers degrade to
graph counts); it never raises.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator

import torch._guards

#: a failure of a cache entry whose size was static: ``tensor 'x' size mismatch at index 0.
#: expected 3, actual 5``
SIZE_MISMATCH = re.compile(r"tensor '([^']+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
_HOOK = "get_and_maybe_log_recompilation_reasons"
#: the name dynamo gives the function that resumes a frame after a graph break
_RESUME = "torch_dynamo_resume_in"


def split(reason: str) -> tuple[str, str]:
    """``"0/3: Ne(s0, 1)  # ..."`` -> ``("0/3", "Ne(s0, 1)  # ...")``: the failing cache entry's
    compile id and what failed (empty id when dynamo's text has none)."""
    head, sep, text = reason.partition(": ")
    if sep and re.fullmatch(r"[!\w/\[\]]+", head):
        return head, text
    return "", reason


def current_compile_id() -> str | None:
    """The ``frame/compile`` id dynamo is compiling now (inside a backend), as reasons name it."""
    compile_id = torch._guards.CompileContext.current_compile_id()
    if compile_id is None:
        return None
    return f"{compile_id.frame_id}/{compile_id.frame_compile_id}"


@contextlib.contextmanager
def listening(on_reasons: Callable[[list[str], bool], None]) -> Iterator[bool]:
    """Call ``on_reasons(reasons, resumed)`` with each recompile's guard failures (one string per
    cache entry, ``"<compile id>: <failure>"``) while the block runs; ``resumed`` is True when
    the frame recompiling is the resume function of a graph break (its locals are whatever the
    break left: sizes turned Python ints). Yields whether it could listen."""
    try:
        import torch._dynamo.convert_frame as convert_frame
    except Exception:
        yield False
        return
    real = getattr(convert_frame, _HOOK, None)
    if not callable(real):
        yield False
        return

    def reasons_(*args, **kwargs):
        reasons = real(*args, **kwargs)
        try:
            frame = args[1] if len(args) > 1 else kwargs.get("frame")
            resumed = _RESUME in getattr(getattr(frame, "f_code", None), "co_name", "")
            on_reasons([str(r) for r in reasons or ()], resumed)
        except Exception:  # recording must never break the user's run
            pass
        return reasons

    setattr(convert_frame, _HOOK, reasons_)
    try:
        yield True
    finally:
        setattr(convert_frame, _HOOK, real)
