"""Dynamo's recompile reasons, heard without ``TORCH_LOGS=recompiles``: kept names for the hooks
that now live in :mod:`zlint.verify.torch_hooks` (the one module that touches torch internals)."""

from __future__ import annotations

from zlint.verify.torch_hooks import SIZE_MISMATCH, current_compile_id
from zlint.verify.torch_hooks import recompile_reasons as listening
from zlint.verify.torch_hooks import split_reason as split

__all__ = ["SIZE_MISMATCH", "current_compile_id", "listening", "split"]
