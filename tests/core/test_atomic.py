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

from other_user import owner_names
from zlint.core.atomic import ChangedOnDisk, WriteRefused, atomic_write, read_snapshot


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
    read = read_snapshot(path)
    path.write_bytes(b"what the user saved since\n")
    with pytest.raises(ChangedOnDisk, match="^changed on disk since it was read$"):
        atomic_write(path, b"zlint's fix\n", expected=read)
    assert path.read_bytes() == b"what the user saved since\n"
    assert leftovers(tmp_path) == []


def test_deleted_since_read_is_not_recreated(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"original\n")
    read = read_snapshot(path)
    path.unlink()
    with pytest.raises(ChangedOnDisk, match="^deleted since it was read$"):
        atomic_write(path, b"fix\n", expected=read)
    assert not path.exists()


def test_expected_content_allows_the_write(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"read\n")
    atomic_write(path, b"fixed\n", expected=read_snapshot(path))
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
    atomic_write(link, b"new\n", expected=read_snapshot(link))
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


def test_another_file_put_in_its_place_is_not_overwritten(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"same\n")
    read = read_snapshot(path)
    other = tmp_path / "other.py"
    other.write_bytes(b"same\n")  # the bytes zlint read: only the file's identity tells them apart
    os.replace(other, path)
    with pytest.raises(ChangedOnDisk, match="^replaced by another file since it was read$"):
        atomic_write(path, b"fix\n", expected=read)
    assert path.read_bytes() == b"same\n"
    assert leftovers(tmp_path) == []


def test_file_swapped_for_a_symlink_since_read_is_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"same\n")
    path = tmp_path / "m.py"
    path.write_bytes(b"same\n")
    read = read_snapshot(path)
    path.unlink()
    path.symlink_to(victim)
    with pytest.raises(ChangedOnDisk, match="^replaced by another file since it was read$"):
        atomic_write(path, b"fix\n", expected=read)
    assert victim.read_bytes() == b"same\n"
    assert path.is_symlink()


def test_symlink_put_at_the_resolved_name_is_not_followed(tmp_path, monkeypatch):
    """A link that appears after the links were resolved (a write without ``expected``, as the
    cache's and the baseline's) is neither followed nor replaced."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"victim\n")
    path = tmp_path / "baseline.json"
    path.write_bytes(b"{}\n")
    resolve = os.path.realpath

    def resolve_then_swap(name, *args, **kwargs):
        resolved = resolve(name, *args, **kwargs)
        path.unlink()
        path.symlink_to(victim)
        return resolved

    monkeypatch.setattr(os.path, "realpath", resolve_then_swap)
    with pytest.raises(ChangedOnDisk, match="^became a symbolic link before zlint could write it$"):
        atomic_write(path, b"new\n")
    assert victim.read_bytes() == b"victim\n"
    assert path.is_symlink()
    assert leftovers(tmp_path) == []


def _during_the_write(monkeypatch, action) -> None:
    """Run ``action`` while the temporary file is flushed: after every check on the target, just
    before the replace."""
    flush = os.fsync

    def act_then_flush(fd):
        action()
        flush(fd)

    monkeypatch.setattr(os, "fsync", act_then_flush)


def test_file_swapped_while_writing_is_not_overwritten(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    other = tmp_path / "theirs.py"
    other.write_bytes(b"theirs\n")
    _during_the_write(monkeypatch, lambda: os.replace(other, path))
    with pytest.raises(ChangedOnDisk, match="^replaced by another file before zlint could write it$"):
        atomic_write(path, b"new\n")
    assert path.read_bytes() == b"theirs\n"
    assert leftovers(tmp_path) == []


def test_file_edited_in_place_while_writing_is_not_overwritten(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"read\n")
    read = read_snapshot(path)
    _during_the_write(monkeypatch, lambda: path.write_bytes(b"saved by the editor\n"))  # the same inode
    with pytest.raises(ChangedOnDisk, match="^changed on disk since it was read$"):
        atomic_write(path, b"fixed\n", expected=read)
    assert path.read_bytes() == b"saved by the editor\n"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_is_refused_without_blocking(tmp_path):
    path = tmp_path / "report.txt"
    os.mkfifo(path)
    with pytest.raises(WriteRefused, match="^not a regular file$"):
        atomic_write(path, b"x")
    assert stat.S_ISFIFO(path.lstat().st_mode)
    assert leftovers(tmp_path) == []


# set-user-ID: a chown clears it, so the mode must be set after the owner
@pytest.mark.parametrize("mode", [0o640, 0o4755])
def test_root_keeps_another_users_owner_group_and_mode(tmp_path, nobody, mode):
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    os.chown(path, nobody.uid, nobody.gid)
    path.chmod(mode)
    atomic_write(path, b"new\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (nobody.uid, nobody.gid, mode)
    assert path.read_bytes() == b"new\n"


# atomic_write as the other user; prints the refusal as the CLI's callers see it
WRITE_AS_USER = """
import sys
from zlint.core.atomic import atomic_write
try:
    atomic_write(sys.argv[1], b"rewritten\\n")
except OSError as exc:
    print(f"{type(exc).__name__}: {exc}")
    raise SystemExit(3)
"""


def _state(path: Path) -> tuple[bytes, int, int, int]:
    info = path.stat()
    return path.read_bytes(), info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def _folder(parent: Path, mode: int, owner: tuple[int, int] = (0, 0)) -> Path:
    folder = parent / "project"
    folder.mkdir()
    os.chown(folder, *owner)
    folder.chmod(mode)
    return folder


def test_users_own_read_only_file_is_refused(shared_dir, nobody):
    folder = _folder(shared_dir, 0o755, (nobody.uid, nobody.gid))
    path = folder / "m.py"
    path.write_bytes(b"old\n")
    os.chown(path, nobody.uid, nobody.gid)
    path.chmod(0o444)
    result = nobody.python("-c", WRITE_AS_USER, str(path), cwd=folder)
    assert result.returncode == 3, result.stderr
    assert result.stdout == (
        "WriteRefused: permission denied: this user may not write it "
        f"(owner {owner_names(nobody.uid, nobody.gid)}, mode 0444)\n"
    )
    assert _state(path) == (b"old\n", nobody.uid, nobody.gid, 0o444)
    assert leftovers(folder) == []


def test_root_file_in_a_world_writable_folder_is_refused(shared_dir, nobody):
    folder = _folder(shared_dir, 0o777)
    path = folder / "m.py"
    path.write_bytes(b"old\n")
    path.chmod(0o644)
    result = nobody.python("-c", WRITE_AS_USER, str(path), cwd=folder)
    assert result.returncode == 3, result.stderr
    assert result.stdout == (
        f"WriteRefused: permission denied: this user may not write it (owner {owner_names(0, 0)}, mode 0644)\n"
    )
    assert _state(path) == (b"old\n", 0, 0, 0o644)
    assert leftovers(folder) == []


def test_writable_file_whose_owner_cannot_be_kept_is_refused(shared_dir, nobody):
    """Anyone may write a 0666 file, but a replacing copy would belong to the writer."""
    folder = _folder(shared_dir, 0o777)
    path = folder / "m.py"
    path.write_bytes(b"old\n")
    path.chmod(0o666)
    result = nobody.python("-c", WRITE_AS_USER, str(path), cwd=folder)
    assert result.returncode == 3, result.stderr
    assert result.stdout == (
        f"WriteRefused: owner {owner_names(0, 0)}, mode 0666: "
        "the new file could not keep that owner and group, so it was not replaced\n"
    )
    assert _state(path) == (b"old\n", 0, 0, 0o666)
    assert leftovers(folder) == []


def test_users_own_file_is_written_as_that_user(shared_dir, nobody):
    folder = _folder(shared_dir, 0o755, (nobody.uid, nobody.gid))
    path = folder / "m.py"
    path.write_bytes(b"old\n")
    os.chown(path, nobody.uid, nobody.gid)
    path.chmod(0o640)
    result = nobody.python("-c", WRITE_AS_USER, str(path), cwd=folder)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert _state(path) == (b"rewritten\n", nobody.uid, nobody.gid, 0o640)
