"""``zlint --add-noqa``: every reported line gets ``# noqa: CODE``; existing noqa comments are
extended, never duplicated; bytes, line endings, BOM, encoding and mode are kept; a second run
changes nothing."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from inprocess import zlint
from other_user import owner_names

BEFORE = """\
import torch


def pool(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    if n == 1:  # noqa: E501
        return x
    if x.numel():  # the empty case
        return x.sum(0)
    if n == 0 or y.numel():
        return y
    if n > 1:  # noqa:ZL102
        return y
    return x
"""
AFTER = """\
import torch


def pool(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    if n == 1:  # noqa: E501, ZL101
        return x
    if x.numel():  # the empty case  # noqa: ZL102
        return x.sum(0)
    if n == 0 or y.numel():  # noqa: ZL101, ZL102
        return y
    if n > 1:  # noqa: ZL102, ZL101
        return y
    return x
"""


def _codes(project: Path, *args: str) -> list[tuple[int, str]]:
    result = zlint("--format", "json", *args, ".", cwd=project)
    return [(f["location"]["row"], f["code"]) for f in json.loads(result.stdout)]


def test_adds_and_extends_noqa_comments(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(BEFORE, encoding="utf-8")
    assert _codes(tmp_path) == [(6, "ZL101"), (8, "ZL102"), (10, "ZL101"), (10, "ZL102"), (12, "ZL101")]
    result = zlint("--add-noqa", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "zlint: added 5 noqa codes in 1 file" in result.stderr
    assert path.read_text(encoding="utf-8") == AFTER
    assert _codes(tmp_path) == []
    # the codes it wrote are all used: the opt-in unused-noqa rule agrees
    assert _codes(tmp_path, "--extend-select", "ZL901") == [(12, "ZL901")]  # only the user's own ZL102


def test_is_idempotent(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(BEFORE, encoding="utf-8")
    zlint("--add-noqa", ".", cwd=tmp_path)
    first = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    again = zlint("--add-noqa", ".", cwd=tmp_path)
    assert again.returncode == 0
    assert "zlint: added 0 noqa codes in 0 files" in again.stderr
    assert path.read_bytes() == first
    assert path.stat().st_mtime_ns == mtime  # not rewritten at all


def test_keeps_crlf_bom_encoding_and_mode(tmp_path):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(BEFORE.replace("\n", "\r\n").encode("utf-8"))
    os.chmod(crlf, 0o755)
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + BEFORE.encode("utf-8"))
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BEFORE).encode("latin-1"))
    old_mac = tmp_path / "cr.py"
    old_mac.write_bytes(BEFORE.replace("\n", "\r").encode("utf-8"))

    assert zlint("--add-noqa", ".", cwd=tmp_path).returncode == 0
    assert crlf.read_bytes() == AFTER.replace("\n", "\r\n").encode("utf-8")
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o755
    assert bom.read_bytes() == b"\xef\xbb\xbf" + AFTER.encode("utf-8")
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + AFTER).encode("latin-1")
    assert old_mac.read_bytes() == AFTER.replace("\n", "\r").encode("utf-8")
    assert _codes(tmp_path) == []
    assert not [p.name for p in tmp_path.iterdir() if "zlint-tmp" in p.name]  # no temp files left


def test_lines_that_cannot_take_a_comment_are_left_and_still_reported(tmp_path):
    source = (
        "import torch\n\n\n"
        "def f(x: torch.Tensor, log) -> torch.Tensor:\n"
        '    if x.size(0) == 1 and log("""\n'
        '    text"""):\n'
        "        return x\n"
        "    if x.size(0) == 0 and \\\n"
        "            log(1):\n"
        "        return x\n"
        "    return x\n"
    )
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    result = zlint("--add-noqa", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "zlint: m.py:5: no noqa added: the line ends inside a string or a backslash continuation" in result.stderr
    assert "zlint: m.py:8: no noqa added" in result.stderr
    found = [line.split(" ")[:2] for line in result.stdout.splitlines()]
    assert found == [["m.py:5:8:", "ZL101"], ["m.py:8:8:", "ZL101"]]
    assert path.read_text(encoding="utf-8") == source


def test_files_without_findings_are_not_touched(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text("import torch\n\nx = torch.ones(2)\n", encoding="utf-8")
    mtime = path.stat().st_mtime_ns
    assert zlint("--add-noqa", ".", cwd=tmp_path).returncode == 0
    assert path.stat().st_mtime_ns == mtime


def test_add_noqa_and_write_baseline_are_exclusive(tmp_path):
    (tmp_path / "model.py").write_text(BEFORE, encoding="utf-8")
    result = zlint("--add-noqa", "--write-baseline", "b.json", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("zlint: error: argument --write-baseline: not allowed with argument --add-noqa")
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == BEFORE


@pytest.mark.parametrize(
    "owned_by_user, folder_mode, file_mode",
    [(True, 0o755, 0o444), (False, 0o777, 0o644)],
    ids=["own-read-only-file", "roots-file-in-world-writable-folder"],
)
def test_a_file_the_user_may_not_write_is_refused_in_one_line(
    shared_dir, nobody, owned_by_user, folder_mode, file_mode
):
    """``os.replace`` needs only the folder's permission: without the checks a user rewrote
    their read-only file, and took over root's file in a world-writable folder."""
    owner = (nobody.uid, nobody.gid) if owned_by_user else (0, 0)
    project = shared_dir / "project"
    project.mkdir()
    os.chown(project, *owner)
    project.chmod(folder_mode)
    path = project / "model.py"
    path.write_text(BEFORE, encoding="utf-8")
    os.chown(path, *owner)
    path.chmod(file_mode)
    result = nobody.python("-m", "zlint", "--no-cache", "--add-noqa", ".", cwd=project)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    # the findings it could not suppress are still reported
    found = [(int(line.split(":")[1]), line.split(" ")[1]) for line in result.stdout.splitlines()]
    assert found == [(6, "ZL101"), (8, "ZL102"), (10, "ZL101"), (10, "ZL102"), (12, "ZL101")]
    errors = [line for line in result.stderr.splitlines() if line.startswith("zlint: error:")]
    assert errors == [
        "zlint: error: model.py: cannot add noqa: permission denied: this user may not write it "
        f"(owner {owner_names(*owner)}, mode {file_mode:04o})"
    ]
    info = path.stat()
    assert (path.read_text(encoding="utf-8"), info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (
        BEFORE, *owner, file_mode
    )
    assert [p.name for p in project.iterdir()] == ["model.py"]  # no temporary file left
