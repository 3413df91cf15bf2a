"""Turn the paths a user gave into the Python files to lint, each with its settings."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from zlint.core.settings import Settings, find_settings
from zlint.scope.compile_state import is_package

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Target:
    path: str  # as displayed: relative to the cwd when under it
    settings: Settings


@dataclass(frozen=True)
class PathProblem:
    path: str
    reason: str


def display_path(path: Path) -> str:
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


class SettingsResolver:
    """Nearest-config lookup, cached per directory; CLI overrides applied on top."""

    def __init__(self, overrides: dict | None = None, fixed: Settings | None = None) -> None:
        self._overrides = overrides or {}
        self._fixed = fixed.with_overrides(**self._overrides) if fixed is not None else None
        self._by_dir: dict[Path, Settings] = {}
        #: every directory looked up, those whose pyproject.toml was broken (not cached) too
        self._asked: set[Path] = set()
        #: those of ``_asked`` that :meth:`config_files` has yet to walk up from
        self._unwalked: list[Path] = []
        self._walked: set[Path] = set()
        self._config_files: frozenset[Path] = frozenset()

    def for_path(self, path: Path) -> Settings:
        if self._fixed is not None:
            return self._fixed
        directory = path.absolute() if path.is_dir() else path.absolute().parent
        found = self._by_dir.get(directory)
        if found is None:
            if directory not in self._asked:
                self._asked.add(directory)
                self._unwalked.append(directory)
            found = self._by_dir[directory] = find_settings(directory).with_overrides(**self._overrides)
        return found

    def config_files(self) -> frozenset[Path]:
        """The pyproject.toml paths, there or not, whose change can change settings this resolver
        has handed out: for each directory looked up, those from it up to the one its settings
        came from (one created nearer would take over), or up to the filesystem's root when none
        had a ``[tool.zlint]`` table or one was broken. A long-running front end (the language
        server) compares them to notice a configuration change that no one reports to it."""
        if not self._unwalked:  # the same set, the same object: a caller can tell nothing is new
            return self._config_files
        files = set(self._config_files)
        for directory in self._unwalked:
            settings = self._by_dir.get(directory)
            source = settings.config_path if settings is not None else None
            for candidate in (directory, *directory.parents):
                if candidate in self._walked:  # the walk up from a directory is the same from any start below it
                    break
                self._walked.add(candidate)
                files.add(candidate / "pyproject.toml")
                if source == candidate / "pyproject.toml":
                    break
        self._unwalked = []
        self._config_files = frozenset(files)
        return self._config_files


def discover(paths: list[str], resolver: SettingsResolver) -> Iterator[Target | PathProblem]:
    """Files to lint, in a deterministic order. Explicitly named files are always linted."""
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            yield PathProblem(raw, "no such file or directory")
            continue
        if path.is_dir():
            found = 0
            for file in _walk(path, resolver):
                key = os.path.realpath(file)
                if key not in seen:
                    seen.add(key)
                    found += 1
                    yield Target(display_path(file), resolver.for_path(file))
            if not found:
                yield PathProblem(raw, "no Python files found")
        elif path.is_file() or not path.exists():
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield Target(display_path(path), resolver.for_path(path))
        else:
            yield PathProblem(raw, "not a regular file")


def _walk(root: Path, resolver: SettingsResolver) -> Iterator[Path]:
    visited: set[str] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in visited:  # a symlink loop
            continue
        visited.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            child = Path(entry.path)
            try:
                is_dir = entry.is_dir()
                is_file = entry.is_file()
            except OSError:
                continue
            if is_dir:
                if not resolver.for_path(child).is_excluded(child):
                    subdirs.append(child)
            elif is_file and entry.name.endswith(PYTHON_SUFFIXES):
                if not resolver.for_path(child).is_excluded(child):
                    yield child
        stack.extend(reversed(subdirs))


def whole_packages(paths: list[str], files: list[str]) -> frozenset[str]:
    """Those of ``files`` whose whole package the run lints: a directory named on the command line
    holds the file's top package (the highest directory up from it with an ``__init__.py``, or its
    own directory when it is in none). Only there can "no code of the run calls it" mean no caller."""
    named = [os.path.realpath(p) for p in paths if os.path.isdir(p)]
    if not named:
        return frozenset()
    tops: dict[str, str] = {}
    out = set()
    for file in files:
        directory = os.path.dirname(os.path.realpath(file))
        if directory not in tops:
            top = directory
            while is_package(top) and os.path.dirname(top) != top and is_package(os.path.dirname(top)):
                top = os.path.dirname(top)
            tops[directory] = top
        top = tops[directory]
        if any(top == d or top.startswith(d.rstrip(os.sep) + os.sep) for d in named):
            out.add(file)
    return frozenset(out)

