"""``zlint.core.atomic.atomic_write``: every write zlint makes (``--fix``, ``--add-noqa``, cache,
baseline, ``--output-file``) goes through it, so it must leave a file old or new, never half."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zlint.core.atomic import ChangedOnDisk, atomic_write


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".zlint-tmp"))


def test_replaces_content_and_cleans_up(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    atomic_write(path, b"new\n")
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("mode", [0o644, 0o755, 0o600, 0o640])
def test_mode_is_preserved(tmp_path, mode):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    path.chmod(mode)
    atomic_write(path, b"new\n")
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_new_file_gets_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "baseline.json", b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "baseline.json").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    "data", [b"a\r\nb\r\n", b"a\rb\r", b"a\nb\r\nc\r", b"\xef\xbb\xbfx = 1\r\n", b"", b"\x00\xff" * 1000]
)
def test_bytes_are_written_exactly(tmp_path, data):
    path = tmp_path / "m.py"
    path.write_bytes(b"x\n")
    atomic_write(path, data)
    assert path.read_bytes() == data


def test_changed_on_disk_is_not_overwritten(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"what zlint read\n")
    path.write_bytes(b"what the user saved since\n")
    with pytest.raises(ChangedOnDisk):
        atomic_write(path, b"zlint's fix\n", expected=b"what zlint read\n")
    assert path.read_bytes() == b"what the user saved since\n"
    assert leftovers(tmp_path) == []


def test_deleted_since_read_is_not_recreated(tmp_path):
    path = tmp_path / "m.py"
    with pytest.raises(ChangedOnDisk):
        atomic_write(path, b"fix\n", expected=b"original\n")
    assert not path.exists()


def test_expected_content_allows_the_write(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"read\n")
    atomic_write(path, b"fixed\n", expected=b"read\n")
    assert path.read_bytes() == b"fixed\n"


def test_failed_replace_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        atomic_write(path, b"new\n")
    assert path.read_bytes() == b"old\n"
    assert leftovers(tmp_path) == []


def test_interrupted_write_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, b"new\n")
    assert path.read_bytes() == b"old\n"
    assert leftovers(tmp_path) == []


def test_unwritable_directory_raises_oserror_and_keeps_the_file(tmp_path):
    missing = tmp_path / "no-such-dir" / "m.py"
    with pytest.raises(OSError):
        atomic_write(missing, b"x")


WRITER = """
import sys
from zlint.core.atomic import atomic_write
path, size = sys.argv[1], int(sys.argv[2])
versions = [bytes([65 + i]) * size for i in range(4)]
print("ready", flush=True)
i = 0
while True:
    atomic_write(path, versions[i % 4])
    i += 1
"""


def test_killed_writer_leaves_old_or_new_never_half(tmp_path):
    """SIGKILL a process that keeps rewriting one 2 MB file, many times, at varying moments:
    the file always holds one whole version."""
    path = tmp_path / "big.py"
    size = 2 * 2**20
    original = b"O" * size
    path.write_bytes(original)
    whole = {original, *(bytes([65 + i]) * size for i in range(4))}
    kills = 0
    for attempt in range(25):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(size)], stdout=subprocess.PIPE)
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(0.01 + (attempt % 7) * 0.013)  # land at different points of a write
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        data = path.read_bytes()
        assert data in whole, f"half-written file after kill {attempt}: {len(data)} bytes, starts {data[:8]!r}"
    assert kills == 25
    # a SIGKILL cannot clean up; what it leaves are temp files, never the target's name
    for name in leftovers(tmp_path):
        assert name.startswith(".big.py.")


def test_symlinked_file_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to("real.py")
    atomic_write(link, b"new\n", expected=b"old\n")
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"
