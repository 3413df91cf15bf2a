"""pytest plugin (entry point ``pytest11``): the ``zlint_check`` fixture for users' own tests.

``zlint_check`` is :func:`zlint.verify.check` (compile a function over a size sweep in this
process and return its report); the test is skipped when torch is missing, and dynamo's caches are
reset after it so the next test compiles from scratch::

    def test_pool_compiles_once(zlint_check):
        report = zlint_check(pool, lambda n: (torch.randn(n, 8),), sizes=range(9), modes=["mark_unbacked"])
        assert report.graphs("mark_unbacked") == 1 and not report.mismatches

Importing this module imports no torch: the plugin loads in every pytest run once zlint is installed.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def zlint_check():
    """:func:`zlint.verify.check`; skips the test without torch."""
    pytest.importorskip("torch", reason="zlint_check needs torch: pip install torch")
    from zlint.verify import check

    yield check
    import zlint.verify.sandbox.torch_hooks as torch_hooks

    torch_hooks.reset()
