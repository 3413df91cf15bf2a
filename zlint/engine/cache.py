"""The on-disk result cache: a file whose content, settings and linter are unchanged is not linted again.

One JSON file per linter fingerprint (zlint's own source and data, LibCST's and Python's version,
the targeted torch version, fast or full path) maps a per-file key to that file's findings or
error. The key hashes the file's bytes, its displayed path and its effective settings, so an entry
can only ever be found for exactly the input it was computed from. The findings are stored before
placement (:func:`zlint.engine.lint.lint_parsed`): where the file's code runs depends on the other
files of a run, so each run places them with its own scopes and no key needs to say them. A missing, corrupt or foreign
cache file is ignored and rebuilt; concurrent runs each replace it atomically (``atomic_write``)
after merging what is on disk, so the worst case is a lost entry, never a wrong one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from zlint.core.atomic import atomic_write
from zlint.core.budget import BUDGET_REASON_START
from zlint.core.diagnostics import Applicability, Diagnostic, Edit, FileError, Fix

SCHEMA = 1
DEFAULT_DIR = ".zlint_cache"
#: entries kept besides those used by the current run (old contents of files, other paths)
MAX_EXTRA_ENTRIES = 20_000
#: errors that depend on more than the file's bytes (stack depth, a rule's bug): never cached
_UNCACHED_ERRORS = ("internal error", "too deeply nested", BUDGET_REASON_START)
#: Settings fields already folded into the enabled codes, about discovery only, or read after the
#: cache (a workload decides the findings of the whole run, not what a file holds)
_FOLDED = frozenset(
    {"select", "extend_select", "ignore", "per_file_ignores", "exclude", "config_path", "docs_url", "workload",
     "file_time_budget", "_cache"}
)

_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is zlint's cache; `zlint clean` removes it.\n"


class Uncacheable(Exception):
    """A result holding something the cache cannot store faithfully."""


@lru_cache(maxsize=None)
def linter_fingerprint(full_path: bool) -> str:
    """Everything besides the file and its settings that decides zlint's output. Reads LibCST's
    and torch's versions from their version files, importing neither and without a package
    metadata scan (~40 ms), so a run whose files all hit the cache stays cheap."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]  # zlint/
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json", ".md") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    versions = (
        sys.version,
        libcst_version(),
        # rules target the installed torch's version unless settings name one (settings are in
        # each file's key); its version file changes whenever the installed torch does
        version_file("torch", "version.py"),
        "full" if full_path else "fast",
        str(SCHEMA),
    )
    digest.update("\0".join(versions).encode())
    return digest.hexdigest()


def libcst_version() -> str:
    """The installed LibCST's version file (its ``__version__`` and commit), found without
    importing the package; ``"?"`` when it cannot be found."""
    return version_file("libcst", "_version.py")


def version_file(package: str, name: str) -> str:
    """The text of an installed package's version file, found without importing the package;
    ``"?"`` when the package or the file cannot be found."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return "?"
    if spec is None or not spec.submodule_search_locations:
        return "?"
    for location in spec.submodule_search_locations:
        try:
            return (Path(location) / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return "?"


def settings_fingerprint(settings, codes: Iterable[str]) -> str:
    """The effective settings of one file: its enabled codes and every other setting."""
    rest = {
        f.name: repr(getattr(settings, f.name))
        for f in dataclasses.fields(settings)
        if f.name not in _FOLDED
    }
    return json.dumps([sorted(codes), rest], sort_keys=True)


def file_key(path: str, data: bytes, settings_print: str) -> str:
    digest = hashlib.sha256(data)
    digest.update(b"\0" + path.encode("utf-8", "surrogatepass") + b"\0" + settings_print.encode())
    return digest.hexdigest()


# -- (de)serialising results -------------------------------------------------------------------


def _encode_diagnostic(diag: Diagnostic) -> dict:
    out = {}
    for f in dataclasses.fields(diag):
        if f.name == "path":
            continue
        value = getattr(diag, f.name)
        if f.name == "fix" and value is not None:
            value = {
                "message": value.message,
                "applicability": value.applicability.value,
                "edits": [dataclasses.astuple(edit) for edit in value.edits],
            }
        elif value is not None and not isinstance(value, (str, int, float, bool)):
            raise Uncacheable(f.name)
        out[f.name] = value
    return out


def _decode_diagnostic(path: str, data: dict) -> Diagnostic:
    fix = data.get("fix")
    if fix is not None:
        data = dict(data)
        data["fix"] = Fix(
            fix["message"],
            tuple(Edit(*edit) for edit in fix["edits"]),
            Applicability(fix["applicability"]),
        )
    return Diagnostic(path=path, **data)


def encode_result(diagnostics: list[Diagnostic], error: FileError | None) -> dict:
    if error is not None and error.reason.startswith(_UNCACHED_ERRORS):
        raise Uncacheable("error")
    return {
        "diagnostics": [_encode_diagnostic(d) for d in diagnostics],
        "error": error.reason if error is not None else None,
    }


def decode_result(path: str, entry: object) -> tuple[list[Diagnostic], FileError | None]:
    """Raises (KeyError, TypeError, ValueError) on an entry of the wrong shape: a miss."""
    if not isinstance(entry, dict) or not isinstance(entry["diagnostics"], list):
        raise TypeError("entry")
    if not all(isinstance(d, dict) for d in entry["diagnostics"]):
        raise TypeError("diagnostic")
    diagnostics = [_decode_diagnostic(path, d) for d in entry["diagnostics"]]
    reason = entry["error"]
    if reason is not None and not isinstance(reason, str):
        raise TypeError("error")
    return diagnostics, (FileError(path, reason) if reason is not None else None)


# -- the store ----------------------------------------------------------------------------------


class Cache:
    """Results by file key, loaded once and saved once per run."""

    def __init__(self, directory: str | Path = DEFAULT_DIR, full_path: bool = False) -> None:
        self.directory = Path(directory)
        self.file = self.directory / f"v{SCHEMA}" / f"{linter_fingerprint(full_path)[:32]}.json"
        #: the project index's per-file summaries (zlint.scope.index), next to the results
        self.project_file = self.file.with_name(f"{linter_fingerprint(full_path)[:32]}-project.json")
        self._entries: dict[str, object] | None = None
        self._new: dict[str, object] = {}
        self._used: set[str] = set()
        self.hits = 0
        self.misses = 0

    def _load(self) -> dict[str, object]:
        try:
            data = json.loads(self.file.read_bytes())
        except (OSError, ValueError):
            return {}
        entries = data.get("entries") if isinstance(data, dict) else None
        return entries if isinstance(entries, dict) else {}

    def get(self, key: str, path: str) -> tuple[list[Diagnostic], FileError | None] | None:
        if self._entries is None:
            self._entries = self._load()
        entry = self._entries.get(key)
        if entry is not None:
            try:
                found = decode_result(path, entry)
            except (KeyError, TypeError, ValueError, AttributeError):
                found = None  # a damaged entry: lint again and overwrite it
            if found is not None:
                self._used.add(key)
                self.hits += 1
                return found
        self.misses += 1
        return None

    def get_note(self, key: str) -> str | None:
        """A string stored with :meth:`put_note` (something derived from a file that is dearer
        to compute than to look up), or None."""
        if self._entries is None:
            self._entries = self._load()
        value = self._entries.get(key)
        if not isinstance(value, str):
            return None
        self._used.add(key)
        return value

    def put_note(self, key: str, value: str) -> None:
        """Store a string under ``key`` (which must describe everything the string depends on)."""
        self._new[key] = value
        self._used.add(key)

    def put(self, key: str, diagnostics: list[Diagnostic], error: FileError | None) -> None:
        try:
            self._new[key] = encode_result(diagnostics, error)
        except Uncacheable:
            return
        self._used.add(key)

    def save(self) -> None:
        """Merge with what is on disk now and replace the cache file atomically; never raises."""
        if not self._new:
            return
        try:
            self._ensure_directory()
            with _exclusive(self.file.parent / "lock"):
                self._merge_and_write()
        except OSError:
            pass  # a read-only or full disk must not fail the lint

    def _merge_and_write(self) -> None:
        """Under the lock: runs that save at the same moment (flake8's workers all exit at the
        end) each add their entries to what the others wrote, instead of replacing it."""
        on_disk = self._load()
        merged = {k: v for k, v in on_disk.items() if k not in self._used}
        if len(merged) > MAX_EXTRA_ENTRIES:  # forget the oldest (dicts keep insertion order)
            merged = dict(list(merged.items())[-MAX_EXTRA_ENTRIES:])
        for key in self._used:
            value = self._new.get(key) or on_disk.get(key) or (self._entries or {}).get(key)
            if value is not None:
                merged[key] = value
        payload = json.dumps({"schema": SCHEMA, "entries": merged}, separators=(",", ":"))
        atomic_write(self.file, payload.encode("utf-8"))

    def _ensure_directory(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            atomic_write(tag, _TAG.encode())
            atomic_write(self.directory / ".gitignore", b"# created by zlint\n*\n")


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (POSIX ``flock``; elsewhere no lock, as before)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def clean(directory: str | Path = DEFAULT_DIR) -> str:
    """Remove a zlint cache directory; returns what was done, in words."""
    path = Path(directory)
    if not path.exists():
        return f"no cache at {path}"
    tag = path / "CACHEDIR.TAG"
    if not path.is_dir() or not tag.is_file() or "zlint" not in tag.read_text(errors="replace"):
        raise OSError(f"{path} does not look like a zlint cache (no zlint CACHEDIR.TAG); not removed")
    shutil.rmtree(path)
    return f"removed {path}"


def default_directory() -> str:
    return os.environ.get("ZLINT_CACHE_DIR") or DEFAULT_DIR
