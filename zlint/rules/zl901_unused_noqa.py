"""ZL901 (opt-in): a ``# noqa: ZL...`` code that suppresses nothing.

The check needs every finding of the file before suppression, so the engine runs it after the
traversal (:func:`zlint.noqa.unused_noqa`); this class only registers the code, so that selection,
``zlint rules`` and the docs treat it like any other rule.
"""

from __future__ import annotations

from zlint.noqa import UNUSED_NOQA_CODE, UNUSED_NOQA_NAME
from zlint.rules.base import Rule


class UnusedNoqa(Rule):
    code = UNUSED_NOQA_CODE
    about_compiled_code = False  # about a call site or a comment, wherever it sits
    trigger_words = frozenset()  # checked after the traversal
    name = UNUSED_NOQA_NAME
    summary = "A `# noqa: ZL...` code that suppresses nothing on its line"
    default_enabled = False
    # no visit_* methods and no metadata: the traversal costs it nothing
    METADATA_DEPENDENCIES = ()
