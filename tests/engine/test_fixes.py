"""--fix / --unsafe-fixes / --diff: exact edits, idempotence, re-parse, line endings, safety."""

from __future__ import annotations

import pytest

from conftest import FIXABLE, run_zlint
from zlint.core.diagnostics import Applicability, Edit, Fix
from zlint.core.settings import Settings
from zlint.core.source import check_syntax
from zlint.engine import lint as engine
from zlint.engine.fixes import apply_fixes, fix_file

SOURCE = FIXABLE
SAFE = SOURCE.replace("torch._dynamo.mark_dynamic(batch, 0)", "torch._dynamo.maybe_mark_dynamic(batch, 0)")
UNSAFE = SAFE.replace(
    "        out = compiled(batch, mask)\n",
    "        torch._dynamo.maybe_mark_dynamic(mask, 0)\n        out = compiled(batch, mask)\n",
)
ZL4 = Settings(select=("ZL401", "ZL402", "ZL403", "ZL404", "ZL405", "ZL406"))


def write(tmp_path, text: str, newline: str = "\n", name: str = "m.py"):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode())
    return path


def test_fix_applies_safe_fixes_only(tmp_path):
    path = write(tmp_path, SOURCE)
    proc = run_zlint("--select", "ZL4", "--fix", "m.py", cwd=tmp_path)
    assert path.read_text() == SAFE
    assert proc.returncode == 1  # the unsafe ZL401 finding remains
    assert [line.split(" ")[0:2] for line in proc.stdout.splitlines()] == [["m.py:16:31:", "ZL401"]]
    # the unsafe ZL401 fix is counted, and the flag that applies it named (as Ruff does)
    assert proc.stderr.splitlines()[0] == "Fixed 1 finding (1 unsafe fix not applied: --unsafe-fixes applies it)."


def test_unsafe_fixes_insert_the_mark_and_a_second_run_changes_nothing(tmp_path):
    path = write(tmp_path, SOURCE)
    proc = run_zlint("--select", "ZL4", "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert path.read_text() == UNSAFE
    assert proc.returncode == 0, proc.stdout
    assert "Fixed 2 findings." in proc.stderr
    check_syntax(path.read_text(), "m.py")  # re-parses
    before = path.read_bytes()
    again = run_zlint("--select", "ZL4", "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert path.read_bytes() == before
    assert again.returncode == 0 and again.stderr.splitlines()[0] == "Fixed 0 findings."  # none hidden


def test_fix_with_only_unsafe_fixes_says_how_many_it_left(tmp_path):
    """Nothing safe to apply: the summary still says that --unsafe-fixes would fix the rest, in
    --fix and in --diff alike; the file is not touched."""
    path = write(tmp_path, SAFE)  # the safe fix already applied: only ZL401's unsafe one is left
    proc = run_zlint("--no-cache", "--select", "ZL4", "--fix", "m.py", cwd=tmp_path)
    assert path.read_text() == SAFE
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "Fixed 0 findings (1 unsafe fix not applied: --unsafe-fixes applies it).",
        "Found 1 finding in 1 file (1 file checked).",
    ]
    diff = run_zlint("--no-cache", "--select", "ZL4", "--diff", "m.py", cwd=tmp_path)
    assert diff.stdout == ""
    assert diff.stderr == "Would fix 0 findings in 0 files (1 unsafe fix not applied: --unsafe-fixes applies it).\n"
    unsafe = run_zlint("--no-cache", "--select", "ZL4", "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (unsafe.returncode, unsafe.stderr.splitlines()[0]) == (0, "Fixed 1 finding.")
    assert path.read_text() == UNSAFE


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_endings_are_preserved(tmp_path, newline):
    path = write(tmp_path, SOURCE, newline)
    outcome = fix_file(path, ZL4, unsafe=True)
    assert outcome.error is None and outcome.fixed == 2
    assert path.read_bytes() == UNSAFE.replace("\n", newline).encode()


def test_bom_and_mode_are_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbf" + SOURCE.encode())
    path.chmod(0o640)
    fix_file(path, ZL4)
    assert path.read_bytes() == b"\xef\xbb\xbf" + SAFE.encode()
    assert path.stat().st_mode & 0o777 == 0o640


def test_diff_shows_without_writing(tmp_path):
    path = write(tmp_path, SOURCE)
    proc = run_zlint("--select", "ZL4", "--diff", "m.py", cwd=tmp_path)
    assert path.read_text() == SOURCE
    assert proc.returncode == 1
    assert proc.stdout == (
        "--- a/m.py\n+++ b/m.py\n@@ -11,7 +11,7 @@\n"
        " def serve(model, requests):\n"
        "     compiled = torch.compile(model)\n"
        "     for batch, mask in requests:\n"
        "-        torch._dynamo.mark_dynamic(batch, 0)\n"
        "+        torch._dynamo.maybe_mark_dynamic(batch, 0)\n"
        "         step(batch)\n"
        "         out = compiled(batch, mask)\n"
        "     return out\n"
    )
    assert proc.stderr == "Would fix 1 finding in 1 file (1 unsafe fix not applied: --unsafe-fixes applies it).\n"
    clean = write(tmp_path, SAFE, name="clean.py")
    proc = run_zlint("--select", "ZL403", "--diff", "clean.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and clean.read_text() == SAFE


def test_file_changed_on_disk_is_not_overwritten(tmp_path, monkeypatch):
    path = write(tmp_path, SOURCE)
    real = engine.lint_source
    calls = []

    def lint_then_edit(source, name, settings=None, **kwargs):
        result = real(source, name, settings, **kwargs)
        if not calls:  # someone saves the file while zlint works on it
            path.write_text(SOURCE + "# edited\n")
        calls.append(name)
        return result

    monkeypatch.setattr(engine, "lint_source", lint_then_edit)
    outcome = fix_file(path, ZL4)
    assert outcome.error is not None and "changed on disk" in outcome.error.reason
    assert outcome.fixed == 0
    assert path.read_text() == SOURCE + "# edited\n"


def test_fix_that_would_not_parse_is_not_written(tmp_path, monkeypatch):
    path = write(tmp_path, SOURCE)
    broken = Fix("break it", (Edit(1, 0, 1, 0, "def ("),), Applicability.SAFE)
    monkeypatch.setattr(
        "zlint.engine.fixes.selected_fixes", lambda diagnostics, unsafe: [broken] if diagnostics else []
    )
    outcome = fix_file(path, ZL4)
    assert outcome.error is not None and "fix would make invalid code" in outcome.error.reason
    assert path.read_text() == SOURCE


def test_overlapping_fixes_apply_one_per_pass():
    one = Fix("a", (Edit(1, 0, 1, 3, "xyz"),))
    two = Fix("b", (Edit(1, 1, 1, 2, "Q"),))
    assert apply_fixes("abcdef\n", [one, two]) == ("xyzdef\n", 1)


def test_json_carries_the_fix(tmp_path):
    import json

    write(tmp_path, SOURCE)
    rows = json.loads(run_zlint("--select", "ZL403", "--format", "json", "m.py", cwd=tmp_path).stdout)
    assert rows[0]["fix"] == {
        "applicability": "safe",
        "message": "use `maybe_mark_dynamic`",
        "edits": [
            {
                "content": "maybe_mark_dynamic",
                "location": {"row": 14, "column": 23},
                "end_location": {"row": 14, "column": 35},
            }
        ],
    }


def test_fixes_hold_on_real_torch_compile(tmp_path):
    """The ZL403 fix turns a ConstraintViolationError into a working compile (torch 2.13, CPU)."""
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    def run(source: str):
        namespace: dict = {}
        exec(compile(source.replace("@torch.compile", "@torch.compile(backend='eager')"), "m.py", "exec"), namespace)
        torch._dynamo.reset()
        batches = [(torch.ones(n, 2), torch.ones(n)) for n in (3, 5)]
        return list(namespace["serve"](lambda b, m: b, batches))

    with pytest.raises(ConstraintViolationError):
        run(SOURCE)
    path = write(tmp_path, SOURCE)
    fix_file(path, ZL4, unsafe=True)
    assert run(path.read_text())
