"""``[tool.zlint]`` in the nearest pyproject.toml, plus CLI overrides, as one frozen Settings.

No rule logic lives here: settings only say which codes are enabled for which path.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from zlint.core import registry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__", "build",
    "dist", "node_modules", ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".zlint_cache", "site-packages", "__pypackages__", ".ipynb_checkpoints",
)


#: seconds; the slowest file of the benchmarks' corpora takes a small fraction of it (benchmarks/README.md)
DEFAULT_FILE_TIME_BUDGET = 60.0


class ConfigError(Exception):
    """Bad configuration; ``str()`` is the one-line message, ``path`` where it came from."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None  # None: every default-enabled rule
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()  # added to DEFAULT_EXCLUDE
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the directory patterns are relative to (the config file's), None for the cwd
    root: Path | None = None
    #: the pyproject.toml the settings came from, if any
    config_path: Path | None = None
    #: report only findings in compiled code (zlint.facts.compiled_scope)
    compiled_only: bool = False
    #: dim names (jaxtyping-style annotations) declared dynamic / static by the user
    dynamic_dims: tuple[str, ...] = ()
    static_dims: tuple[str, ...] = ()
    #: the torch version rules target ("2.13.0"); None: the installed torch (zlint.core.torch_versions)
    torch_version: str | None = None
    #: "default": findings in compiled and unknown code; "all": also never-compiled code
    scope: str = "default"
    #: "default": what costs with plain torch.compile; "single-graph": also what costs only once
    #: sizes are made one graph (mark_unbacked, backed_size_oblivious). Both by default: the 0/1
    #: branches are what stands between a model and one graph for every size, and each finding
    #: says its tier
    target: str = "single-graph"
    #: ``[tool.zlint.verify] examples``: registered-examples files for --verify, absolute paths
    verify_examples: tuple[str, ...] = ()
    #: ``docs-url``: the docs site the reports link each rule's page on (``ZLINT_DOCS_URL`` wins)
    docs_url: str | None = None
    #: ``workload``: a workload file (``zlint record``), absolute; findings are decided by what it
    #: recorded (:mod:`zlint.workload.decide`)
    workload: str | None = None
    #: ``file-time-budget``: seconds the analysis of one file may take before it is reported as not
    #: linted and the run goes on (:mod:`zlint.core.budget`); 0 turns the budget off
    file_time_budget: float = DEFAULT_FILE_TIME_BUDGET
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        # fail on unknown codes up front, not on the first file
        registry.expand_all(self.select or ())
        registry.expand_all(self.extend_select)
        registry.expand_all(self.ignore)
        for _, codes in self.per_file_ignores:
            registry.expand_all(codes)

    def base_codes(self) -> frozenset[str]:
        """The enabled codes before per-file-ignores. An opt-in rule is enabled only when
        ``select``/``extend-select`` name its whole code (or ``ALL``): a prefix (``ZL``, ``ZL2``)
        enables the rules it covers that are on by default, as ``flake8 --select`` does."""
        selected = registry.default_codes() if self.select is None else registry.selected(self.select)
        return (selected | registry.selected(self.extend_select)) - registry.expand_all(self.ignore)

    def enabled_codes(self, path: str | Path) -> frozenset[str]:
        """Codes that apply to ``path`` after per-file-ignores."""
        codes = self._cache.get("base")
        if codes is None:
            codes = self._cache["base"] = self.base_codes()
        if not self.per_file_ignores:
            return codes
        rel = self.relative(path)
        for pattern, ignored in self.per_file_ignores:
            if _matches(rel, pattern):
                codes = codes - registry.expand_all(ignored)
        return codes

    def relative(self, path: str | Path) -> PurePosixPath:
        p = Path(path).absolute()
        root = (self.root or Path.cwd()).absolute()
        try:
            return PurePosixPath(p.relative_to(root).as_posix())
        except ValueError:
            return PurePosixPath(p.as_posix())

    def is_excluded(self, path: str | Path) -> bool:
        """True when a discovered file or directory matches an exclude pattern."""
        return _matcher((*DEFAULT_EXCLUDE, *self.exclude)).matches(self.relative(path))

    def with_overrides(self, **overrides: Any) -> Settings:
        """CLI flags win over the file; None means 'not given'. ``extend_exclude`` (the flag
        ``--extend-exclude``) adds to the file's ``exclude``, which ``exclude`` replaces."""
        given = {k: v for k, v in overrides.items() if v is not None}
        extend = given.pop("extend_exclude", ())
        if extend:
            given["exclude"] = (*given.get("exclude", self.exclude), *extend)
        return replace(self, _cache={}, **given) if given else self


@lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> _Matcher:
    return _Matcher(patterns)


class _Matcher:
    """:func:`_matches` for many patterns at once: two compiled expressions instead of a loop over
    patterns (discovery asks this of every file and directory it meets)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        stripped = [p.rstrip("/") for p in patterns]
        whole = [fnmatch.translate(p) for p in stripped] + [fnmatch.translate(p + "/*") for p in stripped]
        parts = [fnmatch.translate(p) for p in stripped if "/" not in p]
        self._whole = re.compile("|".join(whole)) if whole else None
        self._part = re.compile("|".join(parts)) if parts else None

    def matches(self, rel: PurePosixPath) -> bool:
        if self._whole is not None and self._whole.match(rel.as_posix()):
            return True
        return self._part is not None and any(self._part.match(part) for part in rel.parts)


def _matches(rel: PurePosixPath, pattern: str) -> bool:
    """A pattern matches the relative path, any suffix of it, or any single component."""
    pattern = pattern.rstrip("/")
    text = rel.as_posix()
    if fnmatch.fnmatchcase(text, pattern) or fnmatch.fnmatchcase(text, pattern + "/*"):
        return True
    if "/" not in pattern:
        return any(fnmatch.fnmatchcase(part, pattern) for part in rel.parts)
    return False


# -- pyproject.toml ---------------------------------------------------------------------------

_LIST_KEYS = {
    "select": "select",
    "extend-select": "extend_select",
    "ignore": "ignore",
    "exclude": "exclude",
    "dynamic-dims": "dynamic_dims",
    "static-dims": "static_dims",
}

#: keys whose value is one of a few strings: the setting's name -> its choices
_CHOICE_KEYS = {"scope": ("default", "all"), "target": ("default", "single-graph")}


#: the keys whose strings are rule selectors
_CODE_KEYS = frozenset({"select", "extend-select", "ignore"})


def _str_list(path: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, f"[tool.zlint] {key} must be a list of strings")
    return tuple(value)


def _selectors(path: str, key: str, value: Any) -> tuple[str, ...]:
    """Rule selectors, checked as the user wrote them (an error quotes their spelling), kept as
    the registry spells them: ``zl101`` and ``ZL101`` give equal settings and share the cache."""
    selectors = _str_list(path, key, value)
    try:
        registry.expand_all(selectors)
    except registry.UnknownSelector as exc:
        raise ConfigError(path, f"[tool.zlint]: {exc}") from None
    return registry.canonical(selectors)


def _examples(path: str, value: Any) -> tuple[str, ...]:
    """``[tool.zlint.verify] examples``: absolute paths of files that exist (relative ones are
    relative to the config file), checked now rather than when ``--verify`` first needs them."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, "[tool.zlint.verify] examples must be a list of file paths")
    base = Path(path).parent if path else Path.cwd()
    found = []
    for name in value:
        full = (base / name).resolve()
        if not full.is_file():
            what = "not a file" if full.exists() else "no such file"
            raise ConfigError(path, f"[tool.zlint.verify] examples: {what}: {name!r} ({full})")
        found.append(str(full))
    return tuple(found)


def time_budget_value(value: Any) -> float:
    """A ``file-time-budget`` as given (seconds: a number >= 0, 0 for none; a string of one from a
    command line), checked; ValueError with a one-line message when it is none."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            pass
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 <= number < float("inf"):
        raise ValueError(f"file-time-budget must be a number of seconds >= 0 (0: no budget), got {value!r}")
    return float(number)


def settings_from_table(table: dict[str, Any], path: str, root: Path | None) -> Settings:
    """Build Settings from a ``[tool.zlint]`` table; unknown keys and codes are errors."""
    kwargs: dict[str, Any] = {"root": root, "config_path": Path(path) if path else None}
    for key, value in table.items():
        if key in _LIST_KEYS:
            read = _selectors if key in _CODE_KEYS else _str_list
            kwargs[_LIST_KEYS[key]] = read(path, key, value)
        elif key == "docs-url":
            if not isinstance(value, str) or not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$", value):
                raise ConfigError(path, "[tool.zlint] docs-url must be a URL such as 'https://example.org/zlint/'")
            kwargs["docs_url"] = value
        elif key == "workload":
            if not isinstance(value, str) or not value:
                raise ConfigError(path, "[tool.zlint] workload must be the path of a workload file (zlint record)")
            base = Path(path).parent if path else Path.cwd()
            kwargs["workload"] = str((base / value).resolve())
        elif key == "file-time-budget":
            try:
                kwargs["file_time_budget"] = time_budget_value(value)
            except ValueError as exc:
                raise ConfigError(path, f"[tool.zlint] {exc}") from None
        elif key == "compiled-only":
            if not isinstance(value, bool):
                raise ConfigError(path, "[tool.zlint] compiled-only must be true or false")
            kwargs["compiled_only"] = value
        elif key in _CHOICE_KEYS:
            if value not in _CHOICE_KEYS[key]:
                choices = " or ".join(repr(c) for c in _CHOICE_KEYS[key])
                raise ConfigError(path, f"[tool.zlint] {key} must be {choices}")
            kwargs[key] = value
        elif key == "torch-version":  # the torch data loads only for this key
            from zlint.core.torch_versions import TorchVersionError, validate_torch_version

            try:
                kwargs["torch_version"] = validate_torch_version(value)
            except TorchVersionError as exc:
                raise ConfigError(path, f"[tool.zlint] {exc}") from None
        elif key == "verify":  # [tool.zlint.verify]: the examples files --verify imports
            if not isinstance(value, dict) or set(value) - {"examples"}:
                raise ConfigError(path, "[tool.zlint.verify] is a table whose only key is examples")
            kwargs["verify_examples"] = _examples(path, value.get("examples", []))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(path, "[tool.zlint] per-file-ignores must be a table of pattern = [codes]")
            kwargs["per_file_ignores"] = tuple(
                (pattern, _selectors(path, f"per-file-ignores.{pattern!r}", codes))
                for pattern, codes in value.items()
            )
        else:
            names = [
                *_LIST_KEYS, *_CHOICE_KEYS, "per-file-ignores", "compiled-only", "torch-version", "verify", "docs-url",
                "workload", "file-time-budget",
            ]
            known = ", ".join(sorted(names))
            raise ConfigError(path, f"unknown key {key!r} in [tool.zlint] (known: {known})")
    return Settings(**kwargs)


#: pyproject.toml path -> (its text, its settings): each directory of a run looks its config up,
#: and in a tree of one package per directory they all find the same file (reading it is cheap,
#: parsing the TOML is not)
_LOADED: dict[str, tuple[str, Settings | None]] = {}


def load_pyproject(path: Path) -> Settings | None:
    """Settings from one pyproject.toml, or None when it has no ``[tool.zlint]`` table."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), f"cannot read: {exc}") from None
    known = _LOADED.get(str(path))
    if known is not None and known[0] == text:
        return known[1]
    found = _settings_from_text(path, text)
    _LOADED[str(path)] = (text, found)
    return found


def _settings_from_text(path: Path, text: str) -> Settings | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), f"invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("zlint")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(str(path), "[tool.zlint] must be a table")
    return settings_from_table(table, str(path), path.parent.absolute())


def load_config(path: str | Path) -> Settings:
    """``--config PATH``: the ``[tool.zlint]`` table of one TOML file (a pyproject.toml or any
    other), for every file of the run; patterns are relative to the file's directory. A missing
    or unreadable file, bad TOML or no ``[tool.zlint]`` table is a :class:`ConfigError`."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(str(path), "no such file" if not path.exists() else "not a file")
    found = load_pyproject(path)
    if found is None:
        raise ConfigError(str(path), "has no [tool.zlint] table")
    return found


def find_settings(start: Path) -> Settings:
    """The settings of the nearest pyproject.toml with ``[tool.zlint]``, walking up from start."""
    start = start.absolute()
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            found = load_pyproject(pyproject)
            if found is not None:
                return found
    return Settings()
