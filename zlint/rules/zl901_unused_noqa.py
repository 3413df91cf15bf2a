"""ZL901 (opt-in): a ``# noqa: ZL...`` code that suppresses nothing.

No visitor reports it: the check needs every finding of the file before suppression, so the
engine runs it after the traversal (:func:`zlint.core.noqa.unused_noqa`). It is registered so that
selection, ``zlint rules`` and the docs treat it like any other rule.
"""

code = "ZL901"
name = "unused-noqa"
summary = "A `# noqa: ZL...` code that suppresses nothing on its line"
default_enabled = False
kind = "meta"
