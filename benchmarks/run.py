"""zlint against the parse floors and its peers, on a pinned real-world corpus.

    python benchmarks/run.py                       # build the corpus, time everything, write RESULTS.md
    python benchmarks/run.py --corpus DIR          # use an already unpacked directory instead
    python benchmarks/run.py --every 10 --runs 3   # a 1-in-10 slice, for development
    python benchmarks/run.py --check               # only: fast path == full path on the corpus
    python benchmarks/run.py --every 10 --only 'one file|flake8'   # some rows only (a regex)

The corpus is the ``transformers/models`` package of the transformers 5.24.0 wheel (2,597 files,
~1.1M lines), downloaded with pip, checked against its sha256 and unpacked under
``benchmarks/corpus/`` (git-ignored). Peers (ruff, flake8, Fixit, TorchFix) live in their own
virtualenv, ``benchmarks/.venv-peers``, never in zlint's dependencies. Each round runs every
tool once, in an order that rotates between rounds; the table shows medians.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / "corpus"
#: ruff and flake8 (default plugins only) in one virtualenv; Fixit and TorchFix in another, since
#: TorchFix registers itself as a flake8 plugin
PEER_VENVS = {"ruff": ".venv-peers", "flake8": ".venv-peers", "fixit": ".venv-slowpeers", "torchfix": ".venv-slowpeers"}
WHEEL = "transformers-5.24.0-py3-none-any.whl"
WHEEL_SHA256 = "ff5ebedf9359f94bb63772b6380eba6e7104d010cbbb2cb82c788817ea7486f6"
SUBDIR = "transformers/models"
PEERS = ("ruff", "flake8", "fixit", "torchfix")
PY = sys.executable


# -- corpus ---------------------------------------------------------------------------------------


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_corpus() -> Path:
    """Download (once) the pinned wheel, check it, unpack its Python sources; return models/."""
    target = CORPUS / "transformers-5.24.0"
    done = target / ".complete"
    if done.exists():
        return target / SUBDIR
    wheels = CORPUS / "_wheels"
    wheel = wheels / WHEEL
    if not wheel.exists():
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [PY, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(wheels),
             "transformers==5.24.0"],
            check=True,
        )
    found = sha256(wheel)
    if found != WHEEL_SHA256:
        raise SystemExit(f"{wheel}: sha256 {found}, expected {WHEEL_SHA256}; refusing to benchmark")
    shutil.rmtree(target, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".py") and name.startswith("transformers/"):
                archive.extract(name, target)
    done.write_text(WHEEL_SHA256 + "\n")
    return target / SUBDIR


def make_slice(source: Path, every: int) -> Path:
    """Every n-th file of ``source`` (sorted), copied with its relative path."""
    out = CORPUS / f"slice-{source.name}-1in{every}"
    if (out / ".complete").exists():
        return out
    shutil.rmtree(out, ignore_errors=True)
    for i, path in enumerate(sorted(source.rglob("*.py"))):
        if i % every == 0:
            dest = out / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
    (out / ".complete").write_text("")
    return out


def corpus_stats(root: Path) -> tuple[int, int]:
    files = sorted(root.rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


# -- peers ----------------------------------------------------------------------------------------


def peer_bin(name: str) -> Path | None:
    path = HERE / PEER_VENVS[name] / "bin" / name
    return path if path.exists() else None


def ensure_peers(install: bool, slow: bool) -> None:
    for peer in PEERS:  # one at a time: a peer that does not install is skipped, not fatal
        if not install or peer_bin(peer) or (peer in ("fixit", "torchfix") and not slow):
            continue
        venv = HERE / PEER_VENVS[peer]
        if not venv.exists():
            subprocess.run([PY, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", peer], check=False)


# -- timing ---------------------------------------------------------------------------------------


@dataclass
class Tool:
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    before: object = None  # callable run before each timing (not timed)
    after: object = None
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + sys, the process and its workers
    rss_kib: list[int] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu) if self.cpu else float("nan")


def timed(tool: Tool, cwd: Path) -> None:
    if tool.before:
        tool.before()
    env = zlint_env(**tool.env)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            tool.command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        # wait4: this child's own peak RSS, or that of its largest descendant (a worker)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        if tool.after:
            tool.after()
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1, 2):
        tool.note = f"exit {proc.returncode}: {stderr.strip().splitlines()[-1:] }"
    tool.times.append(elapsed)
    # wait4's usage covers the child and every descendant it waited for (its worker processes)
    tool.cpu.append(usage.ru_utime + usage.ru_stime)
    tool.rss_kib.append(usage.ru_maxrss)
    print(
        f"  {tool.name:<34} {elapsed:8.2f} s  cpu {tool.cpu[-1]:7.2f} s  {usage.ru_maxrss / 1024:7.0f} MiB", flush=True
    )


class Toucher:
    """Change one file's content before a run and restore it after: a cache miss every time."""

    def __init__(self, path: Path) -> None:
        self.path, self.original, self.count = path, path.read_bytes(), 0

    def touch(self) -> None:
        self.count += 1
        self.path.write_bytes(self.original + f"\n# zlint benchmark edit {time.time_ns()}\n".encode())

    def restore(self) -> None:
        self.path.write_bytes(self.original)


def pick_touched(root: Path) -> Path:
    candidates = sorted(root.rglob("modeling_*.py"), key=lambda p: p.stat().st_size) or sorted(root.rglob("*.py"))
    return candidates[len(candidates) // 2]


#: zlint is run from a copy of the package taken at start, so that edits to the working tree
#: during a long run change neither the code measured nor the cache fingerprint
SNAPSHOT: dict[str, str] = {}


def snapshot_zlint(directory: Path) -> None:
    shutil.copytree(ROOT / "zlint", directory / "zlint", ignore=shutil.ignore_patterns("__pycache__"))
    SNAPSHOT["PYTHONPATH"] = str(directory)


def zlint_cmd(*args: str) -> list[str]:
    return [PY, "-m", "zlint", "--exit-zero", *args]


def zlint_env(**extra: str) -> dict[str, str]:
    return {**os.environ, **SNAPSHOT, **extra}


def pick_one_file(root: Path) -> Path:
    """The file of the one-file latency rows: BERT's model file if the corpus has it (the issue's
    example), else the median-sized model file."""
    bert = sorted(root.rglob("bert/modeling_bert.py"))
    return bert[0] if bert else pick_touched(root)


class FreshDir:
    """An empty directory before each run: a cache that is always cold."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def reset(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def flake8_with_zlint(*args: str) -> list[str]:
    """flake8 from zlint's own environment, where zlint is installed as a flake8 plugin (the
    snapshot on PYTHONPATH is the zlint it loads)."""
    return [PY, "-m", "flake8", "--exit-zero", *args]


def latency_and_flake8_tools(root: Path, cache_dir: Path, scratch: Path) -> list[Tool]:
    """One-file latency (pre-commit's common case) and what zlint costs inside flake8."""
    one = str(pick_one_file(root).relative_to(root))
    one_cache = scratch / "cache-one-file"
    cold_flake8_cache = FreshDir(scratch / "cache-flake8-cold")
    warm_flake8_cache = str(scratch / "cache-flake8-warm")
    tools = [
        Tool("one file: zlint cold", zlint_cmd("--no-cache", one), note=one),
        Tool("one file: zlint warm", zlint_cmd("--cache-dir", str(one_cache), one), note=one),
        Tool(
            "flake8 + zlint, ZL ignored",
            flake8_with_zlint("--extend-ignore=ZL", "."),
            env={"ZLINT_CACHE_DIR": str(cache_dir)},
        ),
        Tool(
            "flake8 --select ZL cold",
            flake8_with_zlint("--select=ZL", "."),
            env={"ZLINT_CACHE_DIR": str(cold_flake8_cache.path)},
            before=cold_flake8_cache.reset,
        ),
        Tool(
            "flake8 --select ZL warm",
            flake8_with_zlint("--select=ZL", "."),
            env={"ZLINT_CACHE_DIR": warm_flake8_cache},
        ),
    ]
    if peer_bin("flake8"):  # plain flake8 in an environment without zlint
        alone = [str(peer_bin("flake8")), "--isolated", "--exit-zero", one]
        tools.append(Tool("one file: flake8 alone", alone, note=one))
    return tools


def prime_caches(root: Path, cache_dir: str, scratch: Path) -> None:
    """Fill the caches the warm rows read (not timed)."""
    one = str(pick_one_file(root).relative_to(root))
    runs = [
        (zlint_cmd("--cache-dir", cache_dir, "."), {}),
        (zlint_cmd("--cache-dir", str(scratch / "cache-one-file"), one), {}),
        (flake8_with_zlint("--select=ZL", "."), {"ZLINT_CACHE_DIR": str(scratch / "cache-flake8-warm")}),
    ]
    for command, env in runs:
        subprocess.run(command, cwd=root, env=zlint_env(**env), capture_output=True, check=False)


def build_tools(root: Path, cache_dir: Path, slow_peers: bool) -> list[Tool]:
    toucher = Toucher(pick_touched(root))
    tools = [
        Tool("libcst parse (floor)", [PY, str(HERE / "floors.py"), "libcst", "."]),
        Tool("ast.parse", [PY, str(HERE / "floors.py"), "ast", "."]),
        Tool("zlint cold", zlint_cmd("--no-cache", ".")),
        Tool("zlint cold --jobs 1", zlint_cmd("--no-cache", "--jobs", "1", ".")),
        Tool("zlint warm", zlint_cmd("--cache-dir", str(cache_dir), ".")),
        Tool(
            "zlint 1 file changed",
            zlint_cmd("--cache-dir", str(cache_dir), "."),
            before=toucher.touch,
            after=toucher.restore,
            note=f"edits {toucher.path.relative_to(root)}",
        ),
    ]
    if peer_bin("ruff"):
        tools.append(Tool("ruff", [str(peer_bin("ruff")), "check", "--no-cache", "--exit-zero", "--quiet", "."]))
    if peer_bin("flake8"):
        tools.append(Tool("flake8", [str(peer_bin("flake8")), "--exit-zero", "."]))
    if slow_peers and peer_bin("fixit"):
        tools.append(Tool("fixit", [str(peer_bin("fixit")), "lint", "."]))
    if slow_peers and peer_bin("torchfix"):
        tools.append(Tool("torchfix", [str(peer_bin("torchfix")), "."]))
    return tools


def run_rounds(tools: list[Tool], root: Path, runs: int) -> None:
    for round_no in range(runs):
        shift = round_no % len(tools)
        order = tools[shift:] + tools[:shift]  # rotate: no tool always runs first or last
        print(f"round {round_no + 1}/{runs} (load {os.getloadavg()[0]:.1f})", flush=True)
        for tool in order:
            timed(tool, root)


# -- fast path == full path ------------------------------------------------------------------------


def check_paths(root: Path, selections: list[list[str]]) -> list[str]:
    """Run zlint with the fast and the full path; the JSON outputs must be identical."""
    lines = []
    for select in selections:
        outputs = []
        for full in ("0", "1"):
            env = zlint_env(ZLINT_FULL_PATH=full)
            start = time.perf_counter()
            proc = subprocess.run(
                zlint_cmd("--no-cache", "--format", "json", *select, "."),
                cwd=root, env=env, capture_output=True, text=True,
            )
            outputs.append((proc.stdout, proc.stderr, time.perf_counter() - start))
        (fast, fast_err, t_fast), (full, full_err, t_full) = outputs
        same = fast == full and fast_err == full_err
        found = len(json.loads(fast)) if fast.strip() else 0
        what = " ".join(select) or "default rules"
        lines.append(
            f"- {what}: {'IDENTICAL' if same else 'DIFFERENT'} ({found} findings; "
            f"fast path {t_fast:.1f} s, full path {t_full:.1f} s)"
        )
        print(lines[-1], flush=True)
        if not same:
            (HERE / "check-fast.json").write_text(fast)
            (HERE / "check-full.json").write_text(full)
    return lines


def candidate_shares(root: Path) -> list[tuple[str, int, int]]:
    """(selection, lines parsed, lines total) for the default rules and for every rule."""
    out = []
    for what, options in (("default rules", []), ("--select ALL", ["--select", "ALL"])):
        proc = subprocess.run(
            [PY, str(HERE / "candidates.py"), str(root), *options], env=zlint_env(), capture_output=True, text=True
        )
        if proc.returncode == 0:
            found = json.loads(proc.stdout.strip().splitlines()[-1])
            out.append((what, found["parsed"], found["total"]))
            print(f"candidate share, {what}: {found['parsed']:,} of {found['total']:,} lines", flush=True)
    return out


# -- report ---------------------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
        mem = f"{int(mem.split()[1]) / 1024 / 1024:.0f} GiB RAM"
    except (OSError, StopIteration):
        mem = "? RAM"
    from importlib import metadata

    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, {mem}; "
        f"Python {platform.python_version()}, libcst {metadata.version('libcst')}"
    )


def peer_versions() -> str:
    out = []
    for peer in PEERS:
        exe = peer_bin(peer)
        if exe is None:
            out.append(f"{peer}: not installed")
            continue
        proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
        text = (proc.stdout or proc.stderr).strip().splitlines()
        out.append(f"{peer}: {text[0] if text else '?'}")
    return "; ".join(out)


def render(
    tools: list[Tool], root: Path, runs: int, loads: tuple, check: list[str], shares: list[tuple[str, int, int]] = ()
) -> str:
    files, lines = corpus_stats(root)
    floor = next((t for t in tools if t.name.startswith("libcst parse")), Tool("", [])).median
    by_name = {t.name: t for t in tools}
    out = [
        "# zlint benchmark results",
        "",
        f"Written by `python benchmarks/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        f"- Corpus: `{root.relative_to(ROOT) if root.is_relative_to(ROOT) else root}` "
        f"({files:,} files, {lines:,} lines; transformers 5.24.0 wheel, sha256 `{WHEEL_SHA256[:12]}…`)",
        f"- Machine: {machine()}",
        f"- Load average (1 min) before / after: {loads[0]:.1f} / {loads[1]:.1f}",
        f"- Peers: {peer_versions()}",
        f"- {runs} round(s), tools in rotating order; median wall time and median CPU time (user + sys of "
        "the process and its workers: steadier than wall time on a loaded machine) per tool.",
        "",
        "| tool | median s | median CPU s | runs | × parse floor | peak RSS (largest process) | note |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for tool in tools:
        rss = max(tool.rss_kib) / 1024 if tool.rss_kib else float("nan")
        out.append(
            f"| {tool.name} | {tool.median:.2f} | {tool.median_cpu:.2f} | {len(tool.times)} | "
            f"{tool.median / floor:.2f} | {rss:.0f} MiB | {tool.note} |"
        )
    if shares:
        out += ["", "Candidate share (lines LibCST parses ÷ lines linted; cold, one process):", ""]
        out += [f"- {what}: {parsed:,} of {total:,} lines = {parsed / total:.1%}" for what, parsed, total in shares]
    peers = [t for t in tools if t.name in ("ast.parse", "ruff", "flake8", "fixit", "torchfix")]
    if peers:
        out += ["", "zlint time ÷ peer time (below 1: zlint is faster):", ""]
        out.append("| zlint | " + " | ".join(p.name for p in peers) + " |")
        out.append("|---|" + "---:|" * len(peers))
        for name in ("zlint cold", "zlint cold --jobs 1", "zlint warm", "zlint 1 file changed"):
            tool = by_name.get(name)
            if tool is None:
                continue
            out.append(f"| {name} | " + " | ".join(f"{tool.median / p.median:.2f}" for p in peers) + " |")
    if check:
        out += ["", "Fast path against the plain full-LibCST path (`ZLINT_FULL_PATH=1`), JSON output compared:", ""]
        out += check
    out += ["", "## Targets on this run", ""] + targets(by_name, floor, check)
    return "\n".join(out) + "\n"


def targets(by_name: dict[str, Tool], floor: float, check: list[str]) -> list[str]:
    """The issue's targets, each with what this run measured and whether it is met."""
    rows = ["| target | measured | status |", "|---|---|---|"]

    def row(target: str, measured: str, met: bool | None) -> None:
        rows.append(f"| {target} | {measured} | {'n/a' if met is None else 'met' if met else 'not met'} |")

    flake8, ruff = by_name.get("flake8"), by_name.get("ruff")
    if "zlint cold" in by_name and "zlint cold --jobs 1" in by_name:
        cold, jobs1 = by_name["zlint cold"].median, by_name["zlint cold --jobs 1"].median
        row("cold, default jobs ≤ 0.5× parse floor", f"{cold / floor:.2f}×", cold <= 0.5 * floor)
        if flake8:
            row("cold, default jobs faster than flake8", f"{cold / flake8.median:.2f}× flake8", cold < flake8.median)
        row("cold, `--jobs 1` ≤ 0.8× parse floor", f"{jobs1 / floor:.2f}×", jobs1 <= 0.8 * floor)
    if "zlint warm" in by_name and "zlint 1 file changed" in by_name:
        warm, touched = by_name["zlint warm"].median, by_name["zlint 1 file changed"].median
        if ruff:
            versus = f"{warm / ruff.median:.2f}× ruff ({warm:.2f} s vs {ruff.median:.2f} s)"
            row("warm ≤ 2× ruff", versus, warm <= 2 * ruff.median)
        row("one file changed < warm + 1 s", f"warm + {touched - warm:.2f} s", touched - warm < 1.0)
    rows.extend(flake8_targets(by_name))
    measured = [max(t.rss_kib) for name, t in by_name.items() if name.startswith("zlint") and t.rss_kib]
    if measured:
        rss = max(measured) / 1024
        row("peak memory per worker < 300 MiB", f"{rss:.0f} MiB (largest zlint process)", rss < 300)
    if check:
        same = all("IDENTICAL" in line for line in check)
        row("fast path == full path", "identical JSON" if same else "DIFFERENT (see above)", same)
    else:
        row("fast path == full path", "not checked in this run (--skip-check)", None)
    return rows


def flake8_targets(by_name: dict[str, Tool]) -> list[str]:
    """The one-file and flake8 targets, on CPU time (wall time in brackets)."""
    rows = []

    def compare(target: str, name: str, base: str, limit: float) -> None:
        tool, other = by_name.get(name), by_name.get(base)
        if tool is None or other is None:
            return
        ratio, wall = tool.median_cpu / other.median_cpu, tool.median / other.median
        rows.append(
            f"| {target} | {ratio:.2f}× CPU ({tool.median_cpu:.2f} s vs {other.median_cpu:.2f} s; wall {wall:.2f}×) | "
            f"{'met' if ratio <= limit else 'not met'} |"
        )

    compare("one file, zlint cold ≤ flake8 alone", "one file: zlint cold", "one file: flake8 alone", 1.0)
    compare("one file, zlint warm ≤ flake8 alone", "one file: zlint warm", "one file: flake8 alone", 1.0)
    compare("flake8 with zlint, ZL ignored ≤ 1.1× flake8 alone", "flake8 + zlint, ZL ignored", "flake8", 1.1)
    compare("`flake8 --select ZL` cold ≤ 1.2× zlint cold", "flake8 --select ZL cold", "zlint cold", 1.2)
    compare("`flake8 --select ZL` warm ≤ 1.1× flake8 alone", "flake8 --select ZL warm", "flake8", 1.1)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="lint this directory instead of the pinned corpus")
    parser.add_argument("--every", type=int, default=1, help="benchmark only every n-th file (a slice)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--no-peers", action="store_true", help="skip installing/running ruff, flake8, Fixit, TorchFix")
    parser.add_argument("--slow-peers", action="store_true", help="also run Fixit and TorchFix (minutes per 100 files)")
    parser.add_argument("--check", action="store_true", help="only compare the fast and the full path")
    parser.add_argument("--skip-check", action="store_true", help="do not compare the fast and the full path")
    parser.add_argument("--only", help="run only the tools whose name matches this regular expression")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()

    source = args.corpus.resolve() if args.corpus else build_corpus()
    root = make_slice(source, args.every) if args.every > 1 else source
    files, lines = corpus_stats(root)
    print(f"corpus {root}: {files} files, {lines} lines", flush=True)
    selections = [[], ["--select", "ZL1"], ["--select", "ALL"]]
    with tempfile.TemporaryDirectory(prefix="zlint-bench-") as scratch:
        snapshot_zlint(Path(scratch))
        if args.check:
            return 0 if all("IDENTICAL" in line for line in check_paths(root, selections)) else 1
        ensure_peers(not args.no_peers, args.slow_peers)
        load_before = os.getloadavg()[0]
        cache_dir = str(Path(scratch) / "cache")
        tools = build_tools(root, Path(cache_dir), args.slow_peers)
        tools += latency_and_flake8_tools(root, Path(cache_dir), Path(scratch))
        if args.no_peers:
            tools = [t for t in tools if t.name not in PEERS and "alone" not in t.name]
        if args.only:
            tools = [t for t in tools if re.search(args.only, t.name)]
        prime_caches(root, cache_dir, Path(scratch))  # for the warm runs (not timed)
        run_rounds(tools, root, args.runs)
        load_after = os.getloadavg()[0]
        shares = candidate_shares(root)
        check = [] if args.skip_check else check_paths(root, selections)
    report = render(tools, root, args.runs, (load_before, load_after), check, shares)
    args.output.write_text(report)
    print(report)
    return 0 if all("IDENTICAL" in line for line in check) else 1


if __name__ == "__main__":
    sys.exit(main())
