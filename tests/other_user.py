"""Run Python as another user, for the tests of what zlint may write as whom.

Only root can become another user; elsewhere (or without a ``nobody`` account, or where that
user cannot read this checkout or the interpreter) the tests that need it skip with the reason.
Their files live in a folder outside pytest's temporary directory, which only its owner may enter.
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class OtherUser:
    """An unprivileged account (``nobody``) that a root test can run commands as."""

    name: str
    uid: int
    gid: int
    #: an interpreter this user may run, and the folders its imports come from
    python_executable: str = sys.executable
    python_path: tuple[str, ...] = (str(ROOT),)

    def python(self, *args: str, cwd: str | Path) -> subprocess.CompletedProcess[str]:
        """``python ARGS`` as this user, importing zlint from this checkout."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": os.pathsep.join(self.python_path),
            "HOME": str(cwd),  # nothing of root's home is read or written
            "LC_ALL": "C.UTF-8",
        }
        return subprocess.run(
            [self.python_executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
            user=self.uid, group=self.gid, extra_groups=[],
        )


def _interpreters() -> list[str]:
    """This interpreter, then the system's of the same version: a virtual environment may
    point into root's home, which no other user may enter."""
    found = [sys.executable]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    same_version = shutil.which(f"python{version}", path="/usr/local/bin:/usr/bin")
    if same_version and same_version not in found:
        found.append(same_version)
    return found


@functools.cache
def _find() -> OtherUser | str:
    """The other user, or why there is none."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root, to run a write as another user"
    import pwd

    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return "no user named nobody"
    # this environment's packages (LibCST), for the system interpreter of the same version
    path = (str(ROOT), *site.getsitepackages())
    why = "no interpreter"
    for executable in _interpreters():
        user = OtherUser(entry.pw_name, entry.pw_uid, entry.pw_gid, executable, path)
        try:
            probe = user.python("-c", "import libcst, zlint; print(zlint.__file__)", cwd="/")
        except OSError as exc:
            why = f"{executable}: {exc.strerror}"
            continue
        if probe.returncode == 0 and probe.stdout.strip() == str(ROOT / "zlint" / "__init__.py"):
            return user
        why = f"{executable}: {(probe.stderr.strip().splitlines() or [probe.stdout.strip()])[-1]}"
    return f"nobody cannot run this checkout's zlint ({why})"


def other_user() -> OtherUser:
    """The other user; skips the test when there is none."""
    found = _find()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def shared_directory() -> Iterator[Path]:
    """A fresh folder every user may enter (root's own, mode 0755), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="zlint-other-user-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def owner_names(uid: int, gid: int) -> str:
    """``user:group`` as zlint's refusals name a file's owner."""
    import grp
    import pwd

    return f"{pwd.getpwuid(uid).pw_name}:{grp.getgrgid(gid).gr_name}"
