"""Safe writes for everything zlint changes on disk (``--fix``, ``--add-noqa``, cache, baseline).

A write goes to a temporary file in the same directory, is flushed to disk, takes the old file's
owner, group and mode, and replaces the target with one ``os.replace``: a killed run leaves the
old file or the new one, never half of each.

Replacing is not writing: ``os.replace`` asks only for the right to write the *directory*, so a
plain replace would rewrite a read-only file, or, in a world-writable folder, another user's file,
which would then belong to whoever ran zlint. A write here never grants what the permissions
deny:

- the target must open for writing: the kernel's own answer (mode bits, ACLs, read-only mounts,
  immutable files; root may write what root can open);
- its owner and group pass to the new file, or nothing is replaced;
- what is replaced is the file that was read: a :class:`Snapshot` (from :func:`read_snapshot`)
  holds its bytes, device and inode, and a file swapped for another one or for a symbolic link
  since then is left alone. A symlink that was a link when read is written through to its target.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

# POSIX only; where missing (Windows) the checks that need them are skipped, not faked
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# a FIFO put in the target's place must not block the open
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Windows: os.read in text mode would turn CRLF into LF and the bytes would never compare equal
_BINARY = getattr(os, "O_BINARY", 0)


class ChangedOnDisk(OSError):
    """The file is no longer what zlint read (or what was checked); it was not overwritten.
    ``str()`` says how, in a few words without the path (the caller names the file and what was
    not done). An ``OSError``, so that writers without ``expected`` (cache, baseline, report),
    which may meet a swap too, report or skip it as any failed write."""


class WriteRefused(OSError):
    """The user may not write the file (or could not keep its owner); it was not replaced.

    An ``OSError``, so that every caller's "cannot write" path reports it; ``str()`` is one line
    without the path.
    """


@dataclass(frozen=True)
class Snapshot:
    """What zlint read of a file it may rewrite: the bytes and which file held them."""

    data: bytes
    device: int
    inode: int


def read_snapshot(path: str | Path) -> Snapshot:
    """Read ``path`` (through a symlink, as :func:`atomic_write` writes) for a later rewrite."""
    with open(path, "rb") as handle:
        # the identity of the very descriptor read, not of a second lookup of the name
        info = os.fstat(handle.fileno())
        return Snapshot(handle.read(), info.st_dev, info.st_ino)


def _who(info: os.stat_result) -> str:
    """``owner root:root, mode 0644`` (numbers where a name is unknown)."""
    mode = f"mode {stat.S_IMODE(info.st_mode):04o}"
    try:
        import grp
        import pwd
    except ImportError:  # not POSIX: no owners to name
        return mode
    try:
        user = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        user = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    return f"owner {user}:{group}, {mode}"


def _open_target(target: Path, reading: bool) -> int | None:
    """The target opened for writing (and reading, to compare bytes), or None when there is none."""
    flags = (os.O_RDWR if reading else os.O_WRONLY) | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        return os.open(target, flags)
    except FileNotFoundError:
        return None
    except PermissionError:
        try:
            detail = f" ({_who(os.lstat(target))})"
        except OSError:
            detail = ""
        raise WriteRefused(f"permission denied: this user may not write it{detail}") from None
    except OSError as exc:
        # O_NOFOLLOW fails with ELOOP (EMLINK on FreeBSD) on a link: realpath resolved every link,
        # so one now is a swap since
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(target):
            raise ChangedOnDisk("became a symbolic link before zlint could write it") from None
        # a directory (EISDIR), a pipe nobody reads (ENXIO): replacing it would be no write
        try:
            regular = stat.S_ISREG(os.lstat(target).st_mode)
        except OSError:
            regular = True
        if not regular:
            raise WriteRefused("not a regular file") from None
        raise


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _take_owner(fd: int, old: os.stat_result) -> None:
    """Give the temporary file ``old``'s owner and group, or refuse the write."""
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) == (old.st_uid, old.st_gid) or not hasattr(os, "fchown"):
        return
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        raise WriteRefused(
            f"{_who(old)}: the new file could not keep that owner and group, so it was not replaced"
        ) from None


def _check_unchanged(target: Path, old: os.stat_result | None, compare_content: bool) -> None:
    """Just before the replace: the name still holds the file that was checked (and, when its
    bytes were compared, the file was not written since)."""
    try:
        now = os.lstat(target)
    except FileNotFoundError:
        if old is not None:
            raise ChangedOnDisk("deleted before zlint could write it") from None
        return
    if old is None:
        # a file that appeared meanwhile: replace only one of our own (a concurrent zlint's)
        if hasattr(os, "geteuid") and (not stat.S_ISREG(now.st_mode) or now.st_uid != os.geteuid()):
            raise ChangedOnDisk("created by another user while zlint wrote it")
        return
    if (now.st_dev, now.st_ino) != (old.st_dev, old.st_ino):
        raise ChangedOnDisk("replaced by another file before zlint could write it")
    # an edit in place since the bytes were compared (the same inode, written again)
    if compare_content and (now.st_size, now.st_mtime_ns) != (old.st_size, old.st_mtime_ns):
        raise ChangedOnDisk("changed on disk since it was read")


def atomic_write(path: str | Path, data: bytes, expected: Snapshot | None = None) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its owner, group and mode.

    With ``expected``, only when ``path`` is still the file read then, holding the same bytes
    (else :class:`ChangedOnDisk`). Raises :class:`WriteRefused` when the user may not write the
    file or its owner cannot be kept, and other ``OSError``s when the write fails; the file is
    left as it was in every case.
    """
    # through symlinks: replacing the link itself would turn it into a copy and leave the real
    # file unchanged
    target = Path(os.path.realpath(path))
    fd = _open_target(target, reading=expected is not None)
    if fd is None:
        if expected is not None:
            raise ChangedOnDisk("deleted since it was read")
        old = None
        # a new file gets the mode open() would give it, not mkstemp's 0600
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    else:
        # closed before the replace: Windows cannot replace a file held open
        try:
            old = os.fstat(fd)
            if not stat.S_ISREG(old.st_mode):
                raise WriteRefused("not a regular file")
            if expected is not None and (old.st_dev, old.st_ino) != (expected.device, expected.inode):
                raise ChangedOnDisk("replaced by another file since it was read")
            if expected is not None and _read_all(fd) != expected.data:
                raise ChangedOnDisk("changed on disk since it was read")
        finally:
            os.close(fd)
        mode = stat.S_IMODE(old.st_mode)
    _replace(target, data, mode, old, compare_content=expected is not None)


def _replace(target: Path, data: bytes, mode: int, old: os.stat_result | None, compare_content: bool) -> None:
    """Write ``data`` to a temporary file beside ``target`` with ``old``'s owner and ``mode``,
    then put it in ``target``'s place."""
    tmp_fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".zlint-tmp")
    try:
        with os.fdopen(tmp_fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if old is not None:
                _take_owner(handle.fileno(), old)
            # after the chown, which clears set-user-ID and set-group-ID bits
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
            else:
                os.chmod(tmp, mode)
            os.fsync(handle.fileno())
        _check_unchanged(target, old, compare_content)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
