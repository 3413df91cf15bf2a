"""zlint: find the PyTorch code that makes torch.compile specialize and recompile on sizes.

The linter core never imports torch; only :mod:`zlint.verify` does, lazily.
"""

__version__ = "0.1.0"

from zlint.diagnostics import Diagnostic  # noqa: E402
from zlint.engine import lint_file, lint_source  # noqa: E402

__all__ = ["Diagnostic", "lint_file", "lint_source", "__version__"]
