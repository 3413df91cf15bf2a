"""zlint as a flake8 plugin: ``flake8`` reports the ZL codes next to everything else.

A thin adapter over :func:`zlint.engine.lint_source`: the same findings as ``zlint`` on the same
lines, and 0-based columns (flake8 adds 1, so the printed columns agree with the CLI). flake8
owns selection (``--select``, ``--extend-ignore``, ``per-file-ignores``), so the engine runs every
rule and opt-in codes are hidden through flake8's default ignore list. zlint's behaviour settings
(every :class:`~zlint.settings.Settings` field that is not about selection) become flake8
options named ``--zlint-<setting>``, read from the command line or flake8's config, so a new
setting needs no change here.
"""

from __future__ import annotations

import ast
import dataclasses
import types
import typing
from collections.abc import Iterator
from typing import Any, ClassVar

from zlint import __version__, registry
from zlint.engine import lint_source
from zlint.settings import ConfigError, Settings, settings_from_table

#: Settings fields flake8 replaces with its own machinery, or that only describe a config file
NOT_OPTIONS = frozenset(
    {"select", "extend_select", "ignore", "exclude", "per_file_ignores", "root", "config_path"}
)
OPTION_PREFIX = "zlint-"
#: the meta rule this adapter reports for a file zlint cannot lint (zlint/rules/zl000_file_not_linted.py)
FILE_NOT_LINTED = "ZL000"


@dataclasses.dataclass(frozen=True)
class SettingOption:
    """One Settings field exposed as a flake8 option."""

    field: str
    kind: str  # "bool", "list", "str" or "int"
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
        else:  # a setting flake8 cannot express yet: leave it at its default
            continue
        key = f.name.replace("_", "-")
        options.append(SettingOption(f.name, kind, f"zlint setting `{key}` (see [tool.zlint] in zlint's README)"))
    return options


class ZlintChecker:
    """The flake8 checker. flake8 passes ``tree``, ``filename`` and ``lines`` by name; the tree
    is unused (zlint parses with LibCST) but makes this a once-per-file tree plugin."""

    name = "zlint"
    version = __version__
    settings: ClassVar[Settings] = Settings(select=("ALL",))

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

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
        cls.settings = settings.with_overrides(select=("ALL",))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        result = lint_source("".join(self.lines), self.filename, self.settings)
        if result.error is not None:
            # flake8 reports files it cannot parse itself (E999, E902); anything else is ours
            if not result.error.reason.startswith(("syntax error", "cannot decode", "not valid")):
                yield 1, 0, f"{FILE_NOT_LINTED} zlint could not lint this file: {result.error.reason}", type(self)
            return
        for d in result.diagnostics:
            yield d.line, d.column, f"{d.code} {d.message}", type(self)
