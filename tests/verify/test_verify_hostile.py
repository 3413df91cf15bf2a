"""``--verify`` end to end with user code that writes to the real stdout (``print``, ``os.write(1,
...)``, a spawned process) and moves the cwd: the JSON on zlint's stdout stays valid and every
finding gets a status. Exits, ``os._exit``, hangs, segfaults and import errors inside the worker
pool are covered by tests/verify/test_verify_isolation.py; not repeated here."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import run_zlint

pytest.importorskip("torch")

NOISY = textwrap.dedent(
    """\
    import os
    import subprocess
    import sys
    print("[printed at import]")
    os.write(1, b"[raw fd 1 at import]\\n")

    def f(x):
        print("[printed in f]")
        sys.stdout.write("[sys.stdout in f]\\n")
        os.write(1, b"[raw fd 1 in f]\\n")
        subprocess.run(["echo", "[spawned child]"])
        os.chdir("/")
        if x.size(0) == 1:
            return x * 2
        return x + 1
    """
)


def test_noisy_user_code_cannot_corrupt_json_output(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\n", encoding="utf-8")
    (tmp_path / "noisy.py").write_text(NOISY, encoding="utf-8")
    proc = run_zlint(
        "--verify", "--backend", "eager", "--sizes", "2,3,1", "--verify-timeout", "60",
        "--format", "json", "--select", "ZL101", "noisy.py", cwd=tmp_path, timeout=600,
    )
    assert "Traceback" not in proc.stderr
    findings = json.loads(proc.stdout)  # nothing the user code printed got in
    assert [(d["code"], d["location"]["row"]) for d in findings] == [("ZL101", 13)]
    assert findings[0]["verify"]["status"] in ("CONFIRMED", "NOT OBSERVED", "UNVERIFIABLE")
    assert "printed" not in proc.stdout and "spawned" not in proc.stdout
