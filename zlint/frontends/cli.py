"""The ``zlint`` command: a thin front end over :func:`zlint.engine.lint.lint_file`.

Exit codes: 0 clean, 1 findings, 2 a usage/config error or a file that could not be linted.

A run imports only what it uses: the engine (LibCST, the rules) when a file is linted, the
adoption steps, the fix loop and ``--verify`` when asked for, so a run whose files all hit the
cache starts in the time of the modules below (``tests/engine/test_startup_imports.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from zlint import __version__, pipeline
from zlint.core import registry
from zlint.core.atomic import atomic_write
from zlint.core.budget import BUDGET_REASON_START
from zlint.core.settings import time_budget_value
from zlint.core.source import full_path_default
from zlint.engine.cache import Cache, clean
from zlint.engine.cache import default_directory as default_cache_dir
from zlint.report.run import Run
from zlint.report.writers import FORMATS, statistics, write_report

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other zlint error
        raise UsageError(message)


def _selectors(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _sizes(value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes wants comma-separated integers, got {value!r}") from None
    if not sizes or any(n < 0 for n in sizes):
        raise argparse.ArgumentTypeError(f"--sizes wants non-negative integers, got {value!r}")
    return sizes


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return jobs


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--verify-timeout wants a number of seconds, got {value!r}") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"--verify-timeout wants a positive number of seconds, got {value!r}")
    return seconds


def _time_budget(value: str) -> float:
    try:
        return time_budget_value(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="zlint",
        description="Find PyTorch code that makes torch.compile specialize, guard and recompile on sizes.",
        epilog="Also: `zlint rule CODE` (or `zlint rule NAME`) prints a rule's doc; `zlint rules` lists the rules; "
        "`zlint server` runs the language server (docs/editors.md); "
        "`zlint record PROGRAM.py [ARGS]` records a workload (docs/workload.md); "
        "`zlint explain FILE:LINE [PATH ...]` says why each finding on a line is shown or hidden.",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: .); `-` reads the source from stdin"
    )
    parser.add_argument(
        "--stdin-filename", metavar="PATH",
        help="with `-`: lint stdin as the file PATH (its settings, exclusion, noqa; reported as PATH)",
    )
    parser.add_argument(
        "--config", metavar="FILE",
        help="use the [tool.zlint] table of FILE (a pyproject.toml or other TOML file) for every file",
    )
    parser.add_argument(
        "--select", type=_selectors,
        help="codes or prefixes to enable (ZL1, ZL101, ALL); an opt-in rule only by its whole code or ALL",
    )
    parser.add_argument("--extend-select", type=_selectors, help="codes or prefixes to enable in addition")
    parser.add_argument("--ignore", type=_selectors, help="codes or prefixes to disable")
    parser.add_argument(
        "--exclude", type=_selectors, metavar="PATTERNS",
        help="patterns to skip, replacing [tool.zlint] exclude (the built-in ones still apply)",
    )
    parser.add_argument(
        "--extend-exclude", type=_selectors, metavar="PATTERNS", help="patterns to skip in addition to exclude"
    )
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument("--statistics", action="store_true", help="print counts per rule instead of findings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (errors still exit 2)")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings and errors only: no summary lines on stderr"
    )
    parser.add_argument("--output-file", metavar="PATH", help="write the report to PATH instead of stdout")
    adoption = parser.add_mutually_exclusive_group()
    adoption.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` to every reported line")
    adoption.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE")
    parser.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    parser.add_argument(
        "--fix", action="store_true", help="apply safe fixes to the files (with `-`: print the fixed source)"
    )
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: also apply unsafe fixes")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a diff; write nothing")
    parser.add_argument(
        "--compiled-only", action="store_true", default=None, help="report only findings in compiled code"
    )
    parser.add_argument(
        "--scope", choices=("default", "all"), default=None,
        help="default: findings in compiled and unknown code; all: also in code never compiled "
        "(__init__, weight init, checkpoint conversion, preprocessing) and on paths only a non-default "
        "module option takes (if self.use_tiling: with use_tiling False by default)",
    )
    parser.add_argument(
        "--target", choices=("default", "single-graph"), default=None,
        help="default: only what costs with plain torch.compile; single-graph (the default): also "
        "what costs under mark_unbacked/backed_size_oblivious",
    )
    parser.add_argument(
        "--workload", metavar="FILE",
        help="decide findings by a recorded workload (zlint record): hide what it never ran and sizes it "
        "held constant, and say why each reported size varies",
    )
    parser.add_argument(
        "--show-hidden", action="store_true",
        help="also list the findings the scope, target and workload settings hid, each with why "
        "(they do not change the exit status)",
    )
    parser.add_argument(
        "--file-time-budget", type=_time_budget, default=None, metavar="SECONDS",
        help="seconds the analysis of one file may take; past it the file is reported as not linted "
        "and the run goes on (default 60; 0: no budget)",
    )
    parser.add_argument(
        "--jobs", type=_jobs, default=None, metavar="N",
        help="worker processes for linting (default: all cores) and for --verify (default 1)",
    )
    parser.add_argument("--no-cache", action="store_true", help="lint every file; neither read nor write the cache")
    parser.add_argument("--cache-dir", metavar="DIR", help="where results are cached (default: .zlint_cache)")
    verify = parser.add_argument_group("--verify (needs torch: pip install torch)")
    verify.add_argument("--verify", action="store_true", help="compile the flagged functions and confirm each finding")
    verify.add_argument(
        "--device", choices=("auto", "cpu", "cuda"), default="auto", help="where to compile (auto: cuda if present)"
    )
    verify.add_argument("--backend", help="torch.compile backend (default: inductor on cuda, aot_eager on cpu)")
    verify.add_argument(
        "--sizes", type=_sizes, default=None,
        help="sizes to sweep (default 2,3,5,1,0,8; under a workload, a recorded function's recorded sizes and 2,1,0)",
    )
    verify.add_argument(
        "--verify-timeout", type=_seconds, default=120.0, metavar="SECONDS", help="per-function limit (default 120)"
    )
    verify.add_argument(
        "--verify-fail-on", choices=("findings", "confirmed"), default="findings",
        help="findings (default): exit 1 on every finding left, whatever its verify status, as without "
        "--verify; confirmed: only on CONFIRMED ones",
    )
    verify.add_argument(
        "--verify-strict", action="store_true", help="with --verify-fail-on confirmed: also fail on UNVERIFIABLE"
    )
    verify.add_argument(
        "--verbose", action="store_true",
        help="with --verify: explain effects set aside as torch's own (size pins inside ops, mode caveats)",
    )
    verify.add_argument(
        "--verify-memory", type=int, default=4096, metavar="MiB",
        help="per-worker memory limit (default 4096; 0: none)",
    )
    if not any(a.dest == "jobs" for a in parser._actions):
        verify.add_argument("--jobs", type=int, default=1, help="verify worker processes (default 1)")
    parser.add_argument("--version", action="version", version=f"zlint {__version__}")
    return parser


def _verify_options(args: argparse.Namespace, linted: list):
    """The ``--verify`` flags, and the examples files the linted files' settings name, as the
    runner's plain options."""
    from zlint.verify.runner import VerifyOptions

    examples = tuple(dict.fromkeys(f for _, settings in linted for f in settings.verify_examples))
    # the sizes a recording saw stand in for the default sweep, never for sizes the user gave
    workload = None if args.sizes is not None else next((s.workload for _, s in linted if s.workload), None)

    return VerifyOptions(
        sizes=tuple(args.sizes) if args.sizes else VerifyOptions.sizes, device=args.device, backend=args.backend,
        timeout=args.verify_timeout, jobs=max(1, args.jobs or 1), memory=args.verify_memory,
        verbose=args.verbose, configured_examples=examples, workload=workload,
    )


def _print_rules() -> int:
    rules = registry.records()
    width = max(len(rule.name) for rule in rules)
    for rule in rules:
        # the marker is a column of its own, even where a summary also says it
        summary = rule.summary.removesuffix("(opt-in)").rstrip()
        opt_in = "" if rule.default_enabled else "  (opt-in)"
        print(f"{rule.code}  {rule.name:<{width}}  {summary}{opt_in}")
    return EXIT_CLEAN


def _print_rule(argv: Sequence[str]) -> int:
    """``zlint rule CODE`` or ``zlint rule NAME`` (``ZL102``, ``zl102``, ``size-truthiness``)."""
    if len(argv) != 1:
        return _error("usage: zlint rule CODE|NAME")
    from zlint.core.rule_docs import doc_text

    wanted = argv[0].strip()
    code = wanted.upper()
    if code not in registry.RULES_BY_CODE:
        by_name = [rule.code for rule in registry.records() if rule.name == wanted.lower()]
        code = by_name[0] if by_name else code
    text = doc_text(code) if code in registry.RULES_BY_CODE else None
    if text is None:
        return _error(f"unknown rule {argv[0]!r} (see `zlint rules`)")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_CLEAN


def _clean(argv: Sequence[str]) -> int:
    """``zlint clean [--cache-dir DIR]``: remove the result cache."""
    if argv[:1] == ["--cache-dir"] and len(argv) == 2:
        directory = argv[1]
    elif not argv:
        directory = default_cache_dir()
    else:
        return _error("usage: zlint clean [--cache-dir DIR]")
    try:
        print(f"zlint: {clean(directory)}", file=sys.stderr)
    except OSError as exc:
        return _error(str(exc))
    return EXIT_CLEAN


EXPLAIN_USAGE = "usage: zlint explain FILE:LINE [PATH ...] [OPTIONS]"


def _explain(argv: Sequence[str]) -> int:
    """``zlint explain FILE:LINE [PATH ...] [OPTIONS]``: every finding on that line, shown or hidden,
    with why: its tier, where its code runs, what hid it, and the sizes it reads with what the
    workload recorded of each. The PATHs (default: FILE) are the run, as in ``zlint PATH ...``:
    lint the package to place the file's code as a whole-package run does. Exit 0 (2 on errors)."""
    where, _, line = argv[0].rpartition(":") if argv else ("", "", "")
    if not where or not line.isdigit():
        return _error(EXPLAIN_USAGE)
    args = build_parser().parse_args(list(argv[1:]))
    if args.fix or args.diff or args.verify or args.add_noqa or args.write_baseline or "-" in args.paths:
        return _error(f"{EXPLAIN_USAGE} (no --fix, --diff, --verify, --add-noqa, --write-baseline or stdin)")
    if not os.path.isfile(where):
        return _error(f"{where}: no such file")
    if not any(os.path.samefile(where, p) or _inside(where, p) for p in args.paths if os.path.exists(p)):
        args.paths = [*args.paths, where]
    outcome = _run(args)
    if isinstance(outcome, int):
        return outcome
    number = int(line)
    found = sorted(
        d for d in (*outcome.diagnostics, *outcome.hidden_findings)
        if os.path.exists(d.path) and os.path.samefile(d.path, where) and d.line <= number <= max(d.line, d.end_line)
    )
    for error in outcome.errors:
        print(f"zlint: error: {error}", file=sys.stderr)
    if not found:
        print(f"{where}:{number}: no finding on this line")
        return EXIT_ERROR if outcome.errors else EXIT_CLEAN
    settings = next((s for p, s in outcome.linted if os.path.samefile(p, where)), None)
    for d in found:
        print(f"{d.path}:{d.line}:{d.column + 1}: {d.code} {d.message}")
        for label, text in _explanation(d, settings):
            print(f"  {label}: {text}")
    return EXIT_ERROR if outcome.errors else EXIT_CLEAN


def _inside(path: str, directory: str) -> bool:
    return os.path.isdir(directory) and os.path.commonpath([os.path.abspath(path), os.path.abspath(directory)]) == (
        os.path.abspath(directory)
    )


def _explanation(d, settings) -> list[tuple[str, str]]:
    """What ``zlint explain`` says of one finding: (label, text) lines."""
    from zlint.scope.placement import workload_of
    from zlint.workload.decide import sizes_of

    tier = {"default": "costs with plain torch.compile", "single-graph": "costs once sizes are made one graph: "
            "mark_unbacked, backed_size_oblivious"}.get(d.tier, d.tier)
    lines = [
        ("reported", "no, hidden: " + d.hidden if d.hidden else "yes"),
        ("tier", f"{d.tier} ({tier})"),
        ("runs", f"{d.scope}: {d.scope_reason}" if d.scope_reason else d.scope),
    ]
    if not d.reads:
        lines.append(("sizes read", "none that is a parameter's dim as called (a workload has no say on it)"))
        return lines
    workload = workload_of(settings) if settings is not None else None
    if workload is None:
        names = ", ".join(_origin_text(origin) for origin in d.reads.split())
        lines.append(("sizes read", f"{names} (a recorded workload, `zlint record`, would say whether they vary)"))
        return lines
    records, _ = sizes_of(d, workload)
    by_origin = {r.origin: r for r in records}
    for origin in d.reads.split():
        name, sep, dim = origin.partition(":")
        record = by_origin.get(name.partition("?")[0] + sep + dim)
        text = record.describe() if record is not None else f"{_origin_text(origin)}: not recorded"
        lines.append(("size", text))
    return lines


def _origin_text(origin: str) -> str:
    name, _, dim = origin.partition(":")
    name, conditional, lines = name.partition("?")
    where = f" (unless line {lines.replace(',', ' or ')} rebinds it)" if conditional else ""
    if not dim:
        return f"`{name}.shape`{where}"
    return (f"`{name}.numel()`" if dim == "*" else f"`{name}.size({dim})`") + where


def _error(message: str) -> int:
    print(f"zlint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _stdin_problem(args: argparse.Namespace) -> str | None:
    """Why ``-`` (or ``--stdin-filename``) cannot run with the other arguments, or None."""
    if "-" not in args.paths:
        return None if args.stdin_filename is None else "--stdin-filename needs `-` (stdin) as the path"
    if len(args.paths) > 1:
        return "`-` (stdin) cannot be combined with other paths"
    for flag, given in (("--add-noqa", args.add_noqa), ("--verify", args.verify)):
        if given:
            return f"{flag} cannot be used with `-` (stdin): it needs the file on disk"
    return None


def _files(n: int) -> str:
    return f"{n} file{'' if n == 1 else 's'}"


def found_summary(
    findings: int, with_findings: int, checked: int, not_linted: int = 0, over_budget: int = 0,
    hidden: list[tuple[int, str]] | None = None,
) -> str:
    """The text format's last line: the findings, the files that hold them and the files checked
    (``Found 4 findings in 1 file (11 files checked).``), so that neither count reads as the other;
    then how many of the files checked could not be linted, and how many of those ran past their
    time budget (``1 not linted, 1 past its time budget``), and how many findings the settings hid,
    by why (``3 hidden: 2 single-graph, 1 never run``)."""
    files = f"{_files(checked)} checked"
    if not_linted:
        files += f"; {not_linted} not linted"
        if over_budget:
            files += f", {over_budget} past {'its' if over_budget == 1 else 'their'} time budget"
    if hidden:
        files += f"; {sum(n for n, _ in hidden)} hidden: " + ", ".join(f"{n} {label}" for n, label in hidden)
    if not findings:
        return f"Found 0 findings ({files})."
    noun = "finding" if findings == 1 else "findings"
    return f"Found {findings} {noun} in {_files(with_findings)} ({files})."


def check(args: argparse.Namespace) -> int:
    outcome = _run(args)
    return outcome if isinstance(outcome, int) else _report(args, outcome)


def _run(args: argparse.Namespace) -> pipeline.Outcome | int:
    """The run the options ask for, or the exit status of what stopped it (printed)."""
    request = _request(args)
    if isinstance(request, int):
        return request
    try:
        return pipeline.run(request)
    except pipeline.RunError as exc:
        return _error(str(exc))


def _request(args: argparse.Namespace) -> pipeline.Request | int:
    """The run the options ask for, or the exit status of a usage error (printed)."""
    if args.baseline and args.write_baseline:  # before anything is linted or fixed
        return _error("--baseline and --write-baseline cannot be combined")
    if args.stdin_filename is not None and not args.paths:
        args.paths = ["-"]  # as Ruff: --stdin-filename alone reads stdin
    problem = _stdin_problem(args)
    if problem:
        return _error(problem)
    stdin = args.paths == ["-"]
    overrides = {"select": args.select, "extend_select": args.extend_select, "ignore": args.ignore}
    try:
        for value in overrides.values():
            registry.expand_all(value or ())
    except registry.UnknownSelector as exc:
        return _error(str(exc))
    # checked as typed (an error quotes it), kept as the registry spells codes, as [tool.zlint]'s
    overrides = {key: None if value is None else registry.canonical(value) for key, value in overrides.items()}
    overrides["compiled_only"] = args.compiled_only
    overrides["scope"] = args.scope
    overrides["target"] = args.target
    overrides["file_time_budget"] = args.file_time_budget
    if args.workload is not None:
        import os

        overrides["workload"] = os.path.abspath(args.workload)
    overrides["exclude"] = args.exclude
    overrides["extend_exclude"] = args.extend_exclude
    return pipeline.Request(
        args.paths,
        overrides,
        jobs=args.jobs,
        # stdin is never cached: an editor pipes a new text at every keystroke
        cache=None if args.no_cache or stdin else Cache(
            args.cache_dir or default_cache_dir(), full_path_default()
        ),
        fix=args.fix,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        baseline=args.baseline,
        write_baseline=args.write_baseline,
        add_noqa=args.add_noqa,
        verify=(lambda linted: _verify_options(args, linted)) if args.verify else None,
        config=args.config,
        stdin=sys.stdin.buffer.read() if stdin else None,
        stdin_path=args.stdin_filename,
    )


def _report(args: argparse.Namespace, outcome: pipeline.Outcome) -> int:
    """Print a run's outcome as the options ask; the exit status."""
    files, diagnostics, errors, fixer = outcome.files, outcome.diagnostics, outcome.errors, outcome.fixer
    if fixer is not None and args.diff:  # the diff is the output; nothing is written
        sys.stdout.write("".join(fixer.diffs))
        for error in errors:
            print(f"zlint: error: {error}", file=sys.stderr)
        if not args.quiet:
            print(fixer.summary(), file=sys.stderr)
        return EXIT_ERROR if errors else (EXIT_FINDINGS if fixer.diffs else EXIT_CLEAN)
    if fixer is not None and not args.quiet:
        print(fixer.summary(), file=sys.stderr)
    for note in () if args.quiet else outcome.notes:
        print(f"zlint: {note}", file=sys.stderr)

    run = Run(tuple(files), tuple(errors), outcome.docs_url)
    shown = diagnostics
    if args.show_hidden:  # listed with the findings, marked; the exit status stays theirs
        marked = [replace(d, message=f"{d.message} [hidden: {d.hidden}]") for d in outcome.hidden_findings]
        shown = sorted([*diagnostics, *marked])
    out = statistics(shown, args.format) if args.statistics else write_report(args.format, shown, run)
    if outcome.fixed_source is not None:  # `zlint - --fix`: the source is the output (as Ruff)
        sys.stdout.buffer.write(outcome.fixed_source)
        sys.stdout.flush()
    if args.output_file:
        try:
            atomic_write(args.output_file, out.encode("utf-8"))
        except OSError as exc:
            return _error(f"{args.output_file}: cannot write: {exc.strerror or exc}")
    else:
        (sys.stderr if outcome.fixed_source is not None else sys.stdout).write(out)
    for error in errors:
        print(f"zlint: error: {error}", file=sys.stderr)
    if args.format == "text" and not args.statistics and not args.quiet:
        linted = set(files)
        not_linted = [e for e in errors if e.path in linted]
        over_budget = sum(e.reason.startswith(BUDGET_REASON_START) for e in not_linted)
        with_findings = len({d.path for d in diagnostics})
        summary = found_summary(
            len(diagnostics), with_findings, len(files), len(not_linted), over_budget, outcome.hidden.counts()
        )
        print(summary, file=sys.stderr)
    if errors:
        return EXIT_ERROR
    if args.verify:  # by default every finding fails, verified or not: --verify only adds proof
        from zlint.verify.runner import fails

        failing = [d for d in diagnostics if fails(d, args.verify_fail_on, args.verify_strict)]
        return EXIT_FINDINGS if failing and not args.exit_zero else EXIT_CLEAN
    return EXIT_FINDINGS if diagnostics and not args.exit_zero else EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["rules"]:
            return _print_rules()
        if argv[:1] == ["rule"]:
            return _print_rule(argv[1:])
        if argv[:1] == ["clean"]:
            return _clean(argv[1:])
        if argv[:1] == ["explain"]:
            return _explain(argv[1:])
        if argv[:1] == ["server"]:  # the language server: pygls loads only here
            from zlint.frontends.server import main as serve

            return serve(argv[1:])
        if argv[:1] == ["record"]:  # runs the user's program in this process (docs/workload.md)
            from zlint.frontends.record import run as record

            return record(argv[1:])
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
