"""End to end: ``--fix`` and ``--add-noqa`` leave every file parseable, a second run changes
nothing, and file modes and line endings survive (the writes themselves: test_atomic.py)."""

from __future__ import annotations

import ast
import stat
from pathlib import Path

import pytest

from conftest import FIXABLE
from inprocess import zlint
from other_user import owner_names

ROOT = Path(__file__).resolve().parents[2]
SLICE = sorted((ROOT / "tests" / "data" / "fuzz").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))


def _copy_slice(dest: Path, newline: bytes = b"\n") -> dict[Path, bytes]:
    files = {}
    for i, source in enumerate(SLICE):
        target = dest / f"{i:02d}_{source.name}"
        target.write_bytes(source.read_bytes().replace(b"\n", newline))
        target.chmod(0o755 if i % 2 else 0o640)
        files[target] = target.read_bytes()
    return files


def _snapshot(files) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in files}


@pytest.mark.parametrize(
    "flags", [("--fix",), ("--fix", "--unsafe-fixes"), ("--add-noqa",)], ids=["fix", "unsafe", "add-noqa"]
)
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_writes_parse_keep_modes_and_line_ends_and_are_idempotent(tmp_path, flags, newline):
    if flags[0] == "--add-noqa" and newline == b"\r\n":
        pytest.skip("one line-ending variant is enough for --add-noqa")
    before = _copy_slice(tmp_path, newline)
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in before}
    first = zlint("--no-cache", "--select", "ALL", *flags, ".", cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr
    assert "Traceback" not in first.stderr
    after = _snapshot(before)
    assert any(data != before[p] for p, (data, _) in after.items()), "nothing was written"
    for path, (data, mode) in after.items():
        ast.parse(data)  # still Python
        assert mode == modes[path]
        if newline == b"\r\n":
            assert data.count(b"\n") == data.count(b"\r\n"), path  # no LF slipped in
    second = zlint("--no-cache", "--select", "ALL", *flags, ".", cwd=tmp_path)
    assert "Traceback" not in second.stderr
    assert _snapshot(before) == after  # idempotent
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".zlint-tmp")] == []


def test_add_noqa_silences_every_finding(tmp_path):
    _copy_slice(tmp_path)
    # ZL901 (unused noqa) is left out: a seed holds a noqa comment for ZL206 that is unused on
    # purpose, which --add-noqa does not rewrite
    zlint("--no-cache", "--select", "ALL", "--ignore", "ZL901", "--add-noqa", ".", cwd=tmp_path)
    after = zlint("--no-cache", "--select", "ALL", "--ignore", "ZL901", ".", cwd=tmp_path)
    assert after.returncode == 0, after.stdout


def test_fix_refuses_a_file_whose_owner_it_cannot_keep(shared_dir, nobody):
    """Root's writable file in a world-writable folder: ``--fix`` as another user must not make
    it that user's; one error line, exit 2, the file as it was."""
    project = shared_dir / "project"
    project.mkdir()
    project.chmod(0o777)
    path = project / "m.py"
    path.write_text(FIXABLE, encoding="utf-8")
    path.chmod(0o666)
    result = nobody.python("-m", "zlint", "--no-cache", "--fix", ".", cwd=project)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    root = owner_names(0, 0)
    errors = [line for line in result.stderr.splitlines() if line.startswith("zlint: error:")]
    assert errors == [
        f"zlint: error: m.py: cannot write fixes: owner {root}, mode 0666: "
        "the new file could not keep that owner and group, so it was not replaced"
    ]
    info = path.stat()
    assert (path.read_text(encoding="utf-8"), info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (
        FIXABLE, 0, 0, 0o666
    )
    assert [p.name for p in project.iterdir()] == ["m.py"]
