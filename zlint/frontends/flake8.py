"""zlint as a flake8 plugin: ``flake8`` reports the ZL codes next to everything else.

A thin adapter over :func:`zlint.engine.lint.lint_source`: the same findings as ``zlint`` on the same
lines, and 0-based columns (flake8 adds 1, so the printed columns agree with the CLI). flake8
owns selection (``--select``, ``--extend-ignore``, ``per-file-ignores``; opt-in codes are hidden
through flake8's default ignore list, and shown only when ``--select``/``--extend-select`` name
their whole code, as for ``zlint``), and the engine runs the codes it selects. zlint's behaviour settings
(every :class:`~zlint.core.settings.Settings` field that is not about selection) become flake8
options named ``--zlint-<setting>``, read from the command line or flake8's config, so a new
setting needs no change here.

What it costs: flake8 imports every installed plugin on every run, so this module imports
neither LibCST nor a rule. After flake8 has parsed its options, its own decision engine says
which ZL codes the run can show; the engine runs only those rules (the same findings: flake8
would hide the others), and when none is left (``--extend-ignore ZL``, ``--select E``) the
checker returns at once and LibCST is never loaded. Files are looked up in zlint's result cache
under the key the ``zlint`` command uses (same bytes, displayed path and effective settings),
so a file either front end has linted is not linted again; the cache holds findings before
placement, and each is placed here with the file's scope as a one-file project (the ``zlint``
command places them with its run's project index). Each flake8 process saves the cache when
it exits.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from zlint import __version__
from zlint.core import registry
from zlint.core.settings import ConfigError, Settings, settings_from_table

if TYPE_CHECKING:  # the rest loads when a file is checked: every flake8 run imports this module
    from zlint.core.diagnostics import Diagnostic, FileError
    from zlint.engine.cache import Cache

#: Settings fields flake8 replaces with its own machinery, or that only describe a config file
NOT_OPTIONS = frozenset(
    {"select", "extend_select", "ignore", "exclude", "per_file_ignores", "root", "config_path", "docs_url"}
)
OPTION_PREFIX = "zlint-"
#: the meta rule this adapter reports for a file zlint cannot lint (zlint/rules/zl000_file_not_linted.py)
FILE_NOT_LINTED = "ZL000"
#: errors flake8 reports itself (E999, E902)
FLAKE8_REPORTS = ("syntax error", "cannot decode", "not valid")


@dataclasses.dataclass(frozen=True)
class SettingOption:
    """One Settings field exposed as a flake8 option."""

    field: str
    kind: str  # "bool", "list", "str", "int" or "float"
    help: str

    @property
    def flag(self) -> str:
        return f"--{OPTION_PREFIX}{self.field.replace('_', '-')}"

    @property
    def dest(self) -> str:
        return f"{OPTION_PREFIX}{self.field}".replace("-", "_")


def setting_options() -> list[SettingOption]:
    """The Settings fields that become flake8 options, derived from the dataclass itself."""
    hints = typing.get_type_hints(Settings)
    options = []
    for f in dataclasses.fields(Settings):
        if f.name in NOT_OPTIONS or f.name.startswith("_"):
            continue
        hint = hints[f.name]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType) and type(None) in args:  # X | None
            hint = next(a for a in args if a is not type(None))
            origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is bool:
            kind = "bool"
        elif origin is tuple and args[:1] == (str,):
            kind = "list"
        elif hint is str:
            kind = "str"
        elif hint is int:
            kind = "int"
        elif hint is float:  # given as flake8 read it (a string): the [tool.zlint] reader checks it
            kind = "float"
        else:  # a setting flake8 cannot express yet: leave it at its default
            continue
        key = f.name.replace("_", "-")
        options.append(SettingOption(f.name, kind, f"zlint setting `{key}` (see [tool.zlint] in zlint's README)"))
    return options


def codes_flake8_shows(options: Any) -> frozenset[str] | None:
    """The ZL codes flake8's decision engine selects under ``options`` (select, ignore, their
    ``extend-`` forms, config files and the default ignore list with zlint's opt-in codes), less
    the opt-in codes that ``--select``/``--extend-select`` do not name whole: ``--select ZL``
    leaves them off, as ``zlint --select ZL`` does (flake8 alone would let an explicit
    ``--select`` prefix override its default ignore list); ``None`` when this flake8 has no
    decision engine to ask (then every code runs, as before)."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        decide = DecisionEngine(options)
        named = {
            str(code).strip().upper()
            for code in (*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ()))
        }
        return frozenset(
            record.code
            for record in registry.records()
            if decide.decision_for(record.code) is Decision.Selected
            and (record.default_enabled or record.code in named)
        )
    except (ImportError, AttributeError, TypeError):
        return None


_CACHE: list[Cache] = []  # this process's cache (flake8 may lint in several processes)


def process_cache() -> Cache:
    """This process's view of zlint's cache, saved when the process exits (flake8's worker
    processes exit through multiprocessing, which runs the finalizer; so does the main one)."""
    if not _CACHE:
        import multiprocessing.util

        from zlint.core.source import full_path_default
        from zlint.engine.cache import Cache, default_directory

        cache = Cache(default_directory(), full_path_default())
        multiprocessing.util.Finalize(cache, cache.save, exitpriority=10)
        _CACHE.append(cache)
    return _CACHE[0]


def file_bytes(filename: str, text: str) -> bytes | None:
    """The file's bytes when they are exactly what flake8 read (``text``), so that zlint's cache
    key (which hashes bytes) describes this input; ``None`` for stdin, a file changed since,
    CRLF line ends (flake8 reads them as ``\\n``) or an encoding flake8 read differently."""
    from zlint.core.source import SourceError, decode_source, read_regular_file

    try:
        data = read_regular_file(filename)
    except OSError:  # unreadable, or not a regular file (UnreadableFile)
        return None
    if b"\r" in data:
        return None
    try:
        return data if decode_source(data) == text else None
    except SourceError:
        return None


class ZlintChecker:
    """The flake8 checker. flake8 passes ``tree``, ``filename`` and ``lines`` by name; the tree
    gives the file's compiled scope on its own (as ``zlint FILE`` sees it) and makes this a
    once-per-file tree plugin."""

    name = "zlint"
    version = __version__
    settings: ClassVar[Settings] = Settings(select=("ALL",))
    #: whether any ZL code can be shown in this run (flake8's selection): when not, no work at all
    active: ClassVar[bool] = True

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines
        self.tree = tree

    @classmethod
    def add_options(cls, manager: Any) -> None:
        for option in setting_options():
            kwargs: dict[str, Any] = {"parse_from_config": True, "help": option.help, "dest": option.dest}
            if option.kind == "bool":
                kwargs["action"] = "store_true"
            elif option.kind == "list":
                kwargs["comma_separated_list"] = True
                kwargs["default"] = []
            elif option.kind == "int":
                kwargs["type"] = int
            manager.add_option(option.flag, **kwargs)
        opt_in = sorted(rule.code for rule in registry.records() if not rule.default_enabled)
        manager.extend_default_ignore(opt_in)

    @classmethod
    def parse_options(cls, options: Any) -> None:
        """Build the settings through the ``[tool.zlint]`` reader, so values are checked alike."""
        table: dict[str, Any] = {}
        for option in setting_options():
            value = getattr(options, option.dest, None)
            if value is None or value is False or (option.kind == "list" and not value):
                continue  # not given: keep zlint's default
            table[option.field.replace("_", "-")] = list(value) if option.kind == "list" else value
        try:
            settings = settings_from_table(table, "flake8 options", None)
        except ConfigError as exc:
            raise SystemExit(f"flake8: error: zlint: {str(exc).replace('[tool.zlint] ', '')}") from None
        if settings.workload is not None:  # read once now: a bad workload is one line, not a finding per file
            from zlint.scope.placement import workload_of
            from zlint.workload.model import WorkloadError

            try:
                workload_of(settings)
            except WorkloadError as exc:
                raise SystemExit(f"flake8: error: zlint: {exc}") from None
        shown = codes_flake8_shows(options)
        # runtime codes (``--verify``'s) are never reported by linting: they alone leave no work
        cls.active = shown is None or any(registry.kind_of(code) != "runtime" for code in shown)
        cls.settings = settings.with_overrides(select=tuple(sorted(shown)) if shown else ("ALL",))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if not self.active:
            return
        diagnostics, error = self.lint()
        if error is not None:
            if not error.reason.startswith(FLAKE8_REPORTS):
                yield 1, 0, f"{FILE_NOT_LINTED} zlint could not lint this file: {error.reason}", type(self)
            return
        for d in diagnostics:
            yield d.line, d.column, f"{d.code} {d.message}", type(self)

    def lint(self) -> tuple[list[Diagnostic], FileError | None]:
        """This file's findings: from zlint's cache when the ``zlint`` command or an earlier
        flake8 run linted the same bytes under the same path and settings, else from the engine;
        either way placed with the file's scope as a one-file project (as ``zlint FILE``)."""
        from zlint import pipeline
        from zlint.core.source import ParsedSource
        from zlint.engine.discovery import display_path

        text = "".join(self.lines)
        data = file_bytes(self.filename, text)
        if data is None or not isinstance(self.tree, ast.Module):
            # nothing on disk matches what flake8 read: lint the text, cache nothing
            return pipeline.lint_one(self.filename, text, self.settings)
        path = display_path(Path(self.filename))  # as the zlint command names it
        cache = process_cache()
        # flake8's tree is the ast of exactly these bytes (file_bytes): no parse
        return pipeline.lint_one(
            path, data, self.settings, cache, lambda: self._scope(path, data, cache), ParsedSource(text, self.tree)
        )

    def _scope(self, path: str, data: bytes, cache: Cache):
        """The file's compiled scope as a one-file project; kept in the cache as a note by the
        file's path and bytes, so a warm run walks no ``ast``."""
        from zlint.engine.cache import file_key
        from zlint.scope.index import decode_scope, encode_scope

        note = file_key(path, data, "\0one-file scope")
        stored = cache.get_note(note)
        try:
            scope = decode_scope(json.loads(stored)) if stored is not None else None
        except ValueError:  # a damaged note: walk the tree again and overwrite it
            scope = None
        if scope is None:
            from zlint.scope.classify import scope_for_file

            scope = scope_for_file(path, self.tree)
            cache.put_note(note, json.dumps(encode_scope(scope), separators=(",", ":")))
        return scope
