"""ZL000: the flake8 plugin's way to say that zlint could not lint a file.

Never reported by the static rules (no visit methods, no trigger words). The ``zlint`` command
prints such files as ``zlint: error: PATH: reason`` and exits 2; inside flake8 a plugin can only
yield findings, so :mod:`zlint.adapters.flake8` yields this code at 1:1 with the reason. It is
registered so that the code has a doc and obeys flake8's ``--select``/``--extend-ignore``.
"""

from __future__ import annotations

from typing import ClassVar

from zlint.rules.base import Rule


class FileNotLinted(Rule):
    code = "ZL000"
    about_compiled_code = False  # about a call site or a comment, wherever it sits
    name = "file-not-linted"
    summary = "flake8 plugin: zlint could not lint this file (too large, too deeply nested, internal error)"
    #: yielded by the flake8 adapter only; its doc shows flake8 output, not a linted example
    adapter_only: ClassVar[bool] = True
    trigger_words: ClassVar[frozenset[str] | None] = frozenset()
    function_local: ClassVar[bool] = True
    METADATA_DEPENDENCIES = ()
