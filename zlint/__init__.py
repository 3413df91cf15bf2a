"""zlint: find the PyTorch code that makes torch.compile specialize and recompile on sizes.

The linter core never imports torch; only :mod:`zlint.verify` does, lazily. Importing this
package imports nothing else: ``lint_source``, ``lint_file`` and ``Diagnostic`` load the engine
(LibCST and the rules) on first use (PEP 562), so that ``zlint.verify.pytest_plugin``, which
pytest loads in every run once zlint is installed, costs next to nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_LAZY = {
    "Diagnostic": "zlint.core.diagnostics",
    "lint_file": "zlint.engine.lint",
    "lint_source": "zlint.engine.lint",
}

if TYPE_CHECKING:
    from zlint.core.diagnostics import Diagnostic
    from zlint.engine.lint import lint_file, lint_source


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'zlint' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["Diagnostic", "lint_file", "lint_source", "__version__"]
