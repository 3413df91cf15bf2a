"""The ``zlint`` command: a thin front end over :func:`zlint.engine.lint_file`.

Exit codes: 0 clean, 1 findings, 2 a usage/config error or a file that could not be linted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from zlint import __version__, registry
from zlint.diagnostics import Diagnostic, FileError
from zlint.discovery import PathProblem, SettingsResolver, discover
from zlint.docs import doc_text
from zlint.engine import lint_file
from zlint.report import FORMATS, write_report
from zlint.report.writers import statistics
from zlint.rules import ALL_RULES
from zlint.settings import ConfigError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other zlint error
        raise UsageError(message)


def _selectors(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="zlint",
        description="Find PyTorch code that makes torch.compile specialize, guard and recompile on sizes.",
        epilog="Also: `zlint rule CODE` prints a rule's doc; `zlint rules` lists the rules.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    parser.add_argument("--select", type=_selectors, help="codes or prefixes to enable (ZL1, ZL101, ALL)")
    parser.add_argument("--extend-select", type=_selectors, help="codes or prefixes to enable in addition")
    parser.add_argument("--ignore", type=_selectors, help="codes or prefixes to disable")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument("--statistics", action="store_true", help="print counts per rule instead of findings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (errors still exit 2)")
    parser.add_argument("--version", action="version", version=f"zlint {__version__}")
    return parser


def _print_rules() -> int:
    width = max(len(rule.name) for rule in ALL_RULES)
    for rule in ALL_RULES:
        opt_in = "" if rule.default_enabled else "  (opt-in)"
        print(f"{rule.code}  {rule.name:<{width}}  {rule.summary}{opt_in}")
    return EXIT_CLEAN


def _print_rule(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        return _error("usage: zlint rule CODE")
    code = argv[0].upper()
    text = doc_text(code) if code in registry.RULES_BY_CODE else None
    if text is None:
        return _error(f"unknown rule {argv[0]!r} (see `zlint rules`)")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_CLEAN


def _error(message: str) -> int:
    print(f"zlint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def check(args: argparse.Namespace) -> int:
    overrides = {"select": args.select, "extend_select": args.extend_select, "ignore": args.ignore}
    try:
        for value in overrides.values():
            registry.expand_all(value or ())
    except registry.UnknownSelector as exc:
        return _error(str(exc))
    resolver = SettingsResolver(overrides)

    diagnostics: list[Diagnostic] = []
    errors: list[FileError] = []
    files = 0
    try:
        for item in discover(args.paths or ["."], resolver):
            if isinstance(item, PathProblem):
                errors.append(FileError(item.path, item.reason))
                continue
            files += 1
            result = lint_file(item.path, item.settings)
            diagnostics.extend(result.diagnostics)
            if result.error is not None:
                errors.append(result.error)
    except ConfigError as exc:
        return _error(f"{exc.path}: {exc}")

    diagnostics.sort()
    out = statistics(diagnostics) if args.statistics else write_report(args.format, diagnostics)
    sys.stdout.write(out)
    for error in errors:
        print(f"zlint: error: {error}", file=sys.stderr)
    if args.format == "text" and not args.statistics:
        noun = "finding" if len(diagnostics) == 1 else "findings"
        print(f"Found {len(diagnostics)} {noun} in {files} file{'s' if files != 1 else ''}.", file=sys.stderr)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if diagnostics and not args.exit_zero else EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["rules"]:
            return _print_rules()
        if argv[:1] == ["rule"]:
            return _print_rule(argv[1:])
        if argv[:1] == ["check"]:
            argv = argv[1:]
        return check(build_parser().parse_args(argv))
    except UsageError as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
