"""Safe writes for everything zlint changes on disk (``--fix``, ``--add-noqa``, cache, baseline).

A write goes to a temporary file in the same directory, is flushed to disk, takes the old file's
mode, and replaces the target with one ``os.replace``: a killed run leaves the old file or the new
one, never half of each. ``expected`` guards against a file changed since zlint read it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class ChangedOnDisk(Exception):
    """The file no longer holds what zlint read; it was not overwritten."""


def atomic_write(path: str | Path, data: bytes, expected: bytes | None = None) -> None:
    """Replace ``path`` with ``data`` atomically; if ``expected`` is given, only when the file
    still holds exactly those bytes."""
    # through symlinks: replacing the link itself would turn it into a copy and leave the real
    # file unchanged
    target = Path(os.path.realpath(path))
    if expected is not None:
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = None
        if current != expected:
            raise ChangedOnDisk(f"{target}: changed on disk since it was read; not overwritten")
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:  # a new file gets the mode open() would give it, not mkstemp's 0600
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".zlint-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
