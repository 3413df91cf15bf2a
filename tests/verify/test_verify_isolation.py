"""The verify worker pool: user code that crashes, hangs, exits, runs out of memory, prints or moves the cwd is
reported as UNVERIFIABLE with the reason, and the pool goes on (one pool for the module)."""

from __future__ import annotations

import os
import textwrap

import pytest

pytest.importorskip("torch")

from zlint.verify.evidence import FunctionReport  # noqa: E402
from zlint.verify.pool import Pool  # noqa: E402

MODULES = {
    "raises_at_import.py": "raise RuntimeError('broken at import')\n\ndef f(x):\n    return x\n",
    "hangs.py": "def f(x):\n    while True:\n        pass\n",
    "segfaults.py": "import ctypes\n\ndef f(x):\n    ctypes.string_at(0)\n",
    "exits.py": "import sys\n\ndef f(x):\n    sys.exit(3)\n",
    "hard_exits.py": "import os\n\ndef f(x):\n    os._exit(7)\n",
    # 3 GiB in one allocation, under the pool's 2 GiB limit
    "hogs.py": (
        "import torch\n\ndef f(x):\n    scratch = torch.ones(3 << 30, dtype=torch.uint8)\n    return x + scratch[0]\n"
    ),
    "noisy.py": textwrap.dedent(
        """\
        import os
        print("printed at import")

        def f(x):
            print("printed in f")
            os.chdir("/")
            if x.size(0) == 1:
                return x * 2
            return x + 1
        """
    ),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("isolation")
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    for name, text in MODULES.items():
        (root / name).write_text(text, encoding="utf-8")
    jobs = [
        {
            "path": str(root / name), "qualname": "f", "focus": [], "sizes": [2, 3, 1],
            "modes": ["default", "backed_size_oblivious"], "backend": "eager", "device": "cpu", "examples": [],
        }
        for name in MODULES
    ]
    cwd = os.getcwd()
    with Pool(jobs=1, timeout=15, memory_mib=2048) as pool:
        out = pool.run(jobs)
    assert os.getcwd() == cwd
    return {name: FunctionReport.from_dict(r) for name, r in zip(MODULES, out)}


def test_import_error_is_reported(results):
    assert results["raises_at_import.py"].unverifiable == (
        "importing raises_at_import.py failed: RuntimeError: broken at import"
    )


def test_hang_times_out(results):
    assert results["hangs.py"].unverifiable == "timed out after 15s (hang?)"


def test_segfault_is_reported(results):
    assert results["segfaults.py"].unverifiable.startswith(
        "worker killed by SIGSEGV (segmentation fault) while verifying f"
    )


def test_sys_exit_is_reported(results):
    assert results["exits.py"].unverifiable == "user code called sys.exit(3)"


def test_os_exit_is_reported(results):
    assert results["hard_exits.py"].unverifiable.startswith("worker exited with status 7")


def test_exceeding_the_memory_limit_is_reported_not_fatal(results):
    reason = results["hogs.py"].unverifiable
    assert reason.startswith(
        "out of memory (limit 2048 MiB, --verify-memory): fails eagerly at every size: eager failed at sizes"
    )
    assert "can't allocate memory" in reason


def test_printing_and_chdir_do_not_disturb_and_the_pool_recovers(results):
    # runs last, after three dead workers and one out of memory: a worker still verifies it
    report = results["noisy.py"]
    assert report.verified, report.unverifiable
    assert report.status_at(7) == "CONFIRMED"
    assert report.weakest_mode(7) == "backed_size_oblivious"
