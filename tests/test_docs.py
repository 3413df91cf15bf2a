"""The docs site: it builds strictly, its shown outputs and config snippets are real, its GitHub
Actions workflow passes actionlint and uploads SARIF whatever the lint finds, and every torch
API that the docs or the rule messages name exists in the torch versions zlint ships data for."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from docs_support import doc_markdown, fenced_blocks, load_script, require
from zlint.core import torch_versions as tv
from zlint.core.settings import settings_from_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project depends on tomli there
    import tomli as tomllib

SYNC = load_script("sync_docs")
WORKFLOW = ROOT / "docs" / "ci" / "zlint.yml"
DOC_PAGES = sorted((ROOT / "docs").rglob("*.md"))


# -- the site ------------------------------------------------------------------------------------


def test_mkdocs_build_strict(tmp_path: Path):
    require(importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None,
            "mkdocs-material")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    # one generated page per rule doc, and an index that links them all
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    for doc in sorted((ROOT / "rules").glob("ZL*.md")):
        page = site / "rules" / doc.stem / "index.html"
        assert page.is_file(), doc.name
        assert f'href="{doc.stem}/"' in index, doc.stem
    code_page = (site / "rules" / "ZL101-size-compared-with-zero-or-one" / "index.html").read_text(encoding="utf-8")
    assert "torch._dynamo.decorators.mark_unbacked" in code_page
    # included files were included, not left as snippet markers
    for page in site.rglob("*.html"):
        assert "--8&lt;--" not in page.read_text(encoding="utf-8"), page
    assert "sarif_file" in (site / "integrations" / "index.html").read_text(encoding="utf-8")
    # nothing generated is kept in the source tree
    assert not (ROOT / "docs" / "rules").exists()


def test_every_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^  - [^:]+: (\S+\.md)$", config, re.M))
    pages = {str(p.relative_to(ROOT / "docs")) for p in DOC_PAGES}
    assert nav == pages


# -- generated parts: shown outputs, config snippets ---------------------------------------------


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.name)
def test_shown_outputs_are_what_zlint_prints_now(page: Path, monkeypatch):
    # regenerate with: python scripts/sync_docs.py --update. The --verify samples compile for
    # seconds each: checked only with ZLINT_SYNC_VERIFY=1 (the script alone always checks them)
    monkeypatch.setenv("ZLINT_SYNC_VERIFY", os.environ.get("ZLINT_SYNC_VERIFY", "0"))
    try:
        stale = SYNC.check(page)
    except SYNC.SampleError as exc:  # flake8 or its plugin missing here
        require(False, str(exc))
    assert not stale, "\n".join(s.diff() for s in stale)


def test_the_verify_report_sample_prints_what_is_shown():
    """docs/verify.md's ``check()`` report: the snippet runs (with torch) and prints the block
    shown, ``Evidence.describe()`` lines and all (not the list's repr)."""
    pytest.importorskip("torch")
    blocks = SYNC.output_blocks((ROOT / "docs" / "verify.md").read_text(encoding="utf-8"))
    ((command, shown),) = [b for b in blocks if b[0].startswith("$ python")]
    assert command == "$ python docs/snippets/verify_report.py"
    assert SYNC.zlint_output(command) == shown
    summary, *lines = shown.splitlines()
    assert summary.endswith(f"; {len(lines)} observations") and "Evidence(" not in shown


def _console_session(text: str) -> list[tuple[str, list[str]]]:
    """(command, the lines shown after it) of every ``$ `` line of the ```console blocks."""
    session: list[tuple[str, list[str]]] = []
    for block in fenced_blocks(text, "console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                session.append((line[2:].split("  #")[0].strip(), []))
            else:
                session[-1][1].append(line)
    return session


def test_the_adoption_samples_print_what_is_shown(tmp_path: Path):
    """docs/suppression.md's baseline and --add-noqa sessions, run on a copy of examples/ as
    src/: each zlint command prints the lines shown, and the diff shown is the one made."""
    shutil.copytree(ROOT / "examples", tmp_path / "src")
    before = (tmp_path / "src" / "likes_pooler.py").read_text(encoding="utf-8")
    session = _console_session((ROOT / "docs" / "suppression.md").read_text(encoding="utf-8"))
    ran = []
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    for command, shown in session:
        words = command.split()
        if words[0] == "zlint":
            done = subprocess.run(
                [sys.executable, "-m", "zlint", "--no-cache", *words[1:]],
                cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300,
            )
            assert (done.stdout + done.stderr).splitlines() == shown, command
            ran.append(words[1])
        elif words[:2] == ["git", "diff"]:
            after = (tmp_path / words[2]).read_text(encoding="utf-8").splitlines()
            for line in shown:
                assert line[1:] in (after if line[0] == "+" else before.splitlines()), line
                assert line[1:] not in (before.splitlines() if line[0] == "+" else after), line
    assert ran == ["--write-baseline", "--baseline", "--add-noqa"]


def test_the_torch_versions_named_are_the_data_shipped():
    """docs/configuration.md names every torch version zlint ships facts for, and no other."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    (today,) = re.findall(r"\(torch ([^:]*) today:", text)
    named = re.findall(r"\d+\.\d+\.\d+", today)
    assert named == [tv.format_version(v) for v in tv.known_versions()]


def test_the_compile_recipe_output_is_shown_in_full():
    blocks = SYNC.output_blocks((ROOT / "docs" / "usage.md").read_text(encoding="utf-8"))
    (command, output), = [b for b in blocks if "compile_recipe" in b[0]]
    assert command == "$ zlint --select ZL41,ZL418 docs/snippets/compile_recipe.py"
    codes = re.findall(r"^docs/snippets/compile_recipe\.py:\d+:\d+: (ZL\d{3}) ", output, re.M)
    assert codes == ["ZL418", "ZL416", "ZL410", "ZL413", "ZL414", "ZL414", "ZL415", "ZL415"]


def test_the_flake8_output_shown_is_the_cli_output_shown():
    """The integrations page says the plugin finds what the CLI finds: both blocks are real."""
    (flake8,) = SYNC.output_blocks((ROOT / "docs" / "integrations.md").read_text(encoding="utf-8"))
    (cli,) = SYNC.output_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert flake8[0] == "$ flake8 --select ZL examples/likes_pooler.py"
    assert flake8[1].splitlines() == cli[1].splitlines()[:-1]  # all but the CLI's summary line


def test_every_sample_of_zlint_output_is_generated():
    """The pages that show zlint's output (integrations, verify, usage) show real runs: every
    block that shows findings is one sync_docs.py regenerates."""
    for name in ("integrations.md", "verify.md", "usage.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        generated = SYNC.OUTPUT.findall(text) + SYNC.FRAMED.findall(text)
        shown = re.findall(r"^\S+\.py:\d+:\d+: ZL\d{3} ", text, re.M)
        in_blocks = sum(len(re.findall(r"^\S+\.py:\d+:\d+: ZL\d{3} ", "\n".join(g), re.M)) for g in generated)
        assert shown and in_blocks == len(shown), name


def test_a_framed_output_keeps_its_frame_and_stdin_is_piped(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- zlint-output: zlint --select ZL102 - --stdin-filename x.py < examples/likes_pooler.py -->\n"
        "```console\n$ pre-commit run\n- exit code: 1\n\nold\n```\n",
        encoding="utf-8",
    )
    (stale,) = SYNC.check(page, update=True)
    assert stale.current == "old\n"
    assert page.read_text(encoding="utf-8").endswith(
        "```console\n$ pre-commit run\n- exit code: 1\n\n"
        "x.py:31:12: ZL102 `likes.numel()` tests a size for truth: blocks single-graph mode; handle 0 branch-free\n"
        "Found 1 finding in 1 file (1 file checked).\n```\n"
    )


def test_a_stale_output_is_found_and_updated(tmp_path: Path):
    page = tmp_path / "page.md"
    command = "$ zlint --select ZL102 examples/likes_pooler.py"
    page.write_text(f"<!-- zlint-output -->\n```text\n{command}\nold text\n```\n", encoding="utf-8")
    (stale,) = SYNC.check(page)
    assert stale.current == "old text\n"
    finding, *rest = stale.wanted.splitlines()
    assert finding.startswith("examples/likes_pooler.py:31:12: ZL102 `likes.numel()`")
    assert rest == ["Found 1 finding in 1 file (1 file checked)."]
    SYNC.check(page, update=True)
    assert SYNC.output_blocks(page.read_text(encoding="utf-8")) == [(command, stale.wanted)]


def test_update_refuses_a_sample_that_fails_and_writes_nothing(tmp_path: Path, monkeypatch, capsys):
    """A failing command must not end up in the docs as their output (flake8's and torch's errors
    were once written into integrations.md and verify.md): one line, exit 2, and no file
    written, not even one whose samples ran."""
    stale = tmp_path / "stale.md"
    stale.write_text("<!-- zlint-output -->\n```text\n$ zlint --select ZL102 examples/likes_pooler.py\nold\n```\n")
    broken = tmp_path / "broken.md"
    broken.write_text("<!-- zlint-output -->\n```text\n$ zlint --no-such-option examples/likes_pooler.py\nold\n```\n")
    monkeypatch.setattr(SYNC, "doc_files", lambda: [stale, broken])
    assert SYNC.main(["--update"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(
        "sync_docs: error: cannot regenerate `$ zlint --no-such-option examples/likes_pooler.py`: exit 2: "
    )
    assert "unrecognized arguments: --no-such-option" in err and err.count("\n") == 1
    for page in (stale, broken):
        assert page.read_text().endswith("\nold\n```\n")


def test_a_missing_tool_is_named_instead_of_run(monkeypatch):
    """``python -m flake8`` without flake8 exits 1 as flake8 does on findings: the tools a sample
    needs are looked up first."""
    real = importlib.util.find_spec
    absent = {"flake8", "torch"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in absent else real(name, *a))
    for command, missing in (
        ("$ flake8 --select ZL examples/likes_pooler.py", "flake8 is not installed"),
        ("$ zlint --verify --select ZL101 examples/likes_pooler.py", "torch is not installed"),
        ("$ python docs/snippets/verify_report.py", "torch is not installed"),
    ):
        with pytest.raises(SYNC.SampleError) as raised:
            SYNC.zlint_output(command)
        assert str(raised.value) == f"cannot regenerate `{command}`: {missing}"
    shown = SYNC.zlint_output("$ zlint --select ZL102 examples/likes_pooler.py")  # zlint needs neither
    assert shown.startswith("examples/likes_pooler.py:31:12:")


@pytest.mark.parametrize("page", [ROOT / "README.md", *DOC_PAGES], ids=lambda p: p.name)
def test_config_snippets_are_accepted_by_the_settings_parser(page: Path, tmp_path: Path):
    for block in fenced_blocks(page.read_text(encoding="utf-8"), "toml"):
        table = tomllib.loads(block).get("tool", {}).get("zlint")
        assert table is not None, block
        # the snippet as the pyproject.toml of a project that has the example files it names
        # (the settings check they exist)
        for name in table.get("verify", {}).get("examples", []):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).touch()
        settings_from_table(table, str(tmp_path / "pyproject.toml"), tmp_path)  # raises on an unknown key or code


def test_the_full_settings_example_names_every_setting():
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = tomllib.loads(fenced_blocks(text, "toml")[0])["tool"]["zlint"]
    known = re.search(r"\(known: ([^)]*)\)", _unknown_key_error()).group(1).split(", ")
    assert sorted(table) == sorted(known)


def _unknown_key_error() -> str:
    try:
        settings_from_table({"no-such-key": 1}, "pyproject.toml", ROOT)
    except Exception as exc:  # the settings parser's ConfigError
        return str(exc)
    raise AssertionError("an unknown key was accepted")


# -- the GitHub Actions workflow -----------------------------------------------------------------


def _actionlint() -> str | None:
    beside = Path(sys.executable).parent / "actionlint"
    return str(beside) if beside.is_file() else shutil.which("actionlint")


def _run_actionlint(path: Path) -> subprocess.CompletedProcess:
    binary = _actionlint()
    require(binary is not None, "actionlint")
    return subprocess.run([binary, "-no-color", str(path)], capture_output=True, text=True, timeout=120)


def test_workflow_passes_actionlint():
    done = _run_actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_copy_of_the_workflow(tmp_path: Path):
    broken = tmp_path / "zlint.yml"
    broken.write_text(WORKFLOW.read_text().replace("steps.lint.outcome", "steps.lnit.outcome"))
    done = _run_actionlint(broken)
    assert done.returncode == 1 and "lnit" in done.stdout


def _steps() -> list[dict]:
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load(WORKFLOW.read_text())
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    return job["steps"]


def test_workflow_uploads_sarif_whatever_the_lint_finds():
    steps = _steps()
    lint_at = next(i for i, s in enumerate(steps) if "--format sarif" in s.get("run", ""))
    lint = steps[lint_at]
    report = re.search(r"--output-file (\S+)", lint["run"]).group(1)
    assert lint["run"].startswith("zlint ") and lint.get("continue-on-error") is True
    upload_at = next(i for i, s in enumerate(steps) if "upload-sarif" in s.get("uses", ""))
    upload = steps[upload_at]
    assert upload_at > lint_at
    assert "always()" in upload["if"] and upload["with"]["sarif_file"] == report
    # ... and the job still fails on findings, after the upload
    gate = steps[-1]
    assert gate["if"] == f"steps.{lint['id']}.outcome == 'failure'" and gate["run"] == "exit 1"
    assert upload_at < len(steps) - 1


def test_no_other_step_can_stop_the_job_before_the_upload():
    steps = _steps()
    upload_at = next(i for i, s in enumerate(steps) if "upload-sarif" in s.get("uses", ""))
    for step in steps[:upload_at]:
        run = step.get("run", "")
        if run.startswith("zlint "):
            assert step.get("continue-on-error") is True or "--exit-zero" in run, run


# -- every torch API the docs and the messages name exists ---------------------------------------

TORCH_NAME = re.compile(r"(?<![\w.])torch(?:\.[A-Za-z_]\w*)+")
#: names the docs mention as not existing (or as no API at all), each with where and why; the
#: tests below check that none of them exists in the shipped data, so none can hide a real name
NOT_APIS = {
    "torch._dynamo.mark_unbacked": "ZL101: the wrong name; the real one is torch._dynamo.decorators.mark_unbacked",
    "torch.compiled_cache_info": "ZL415 and docs/usage.md: an invented API that ZL415 flags",
    "torch.clear_compiled_cache": "ZL415 and docs/usage.md: an invented API that ZL415 flags",
    "torch.compiler.reset_cache": "ZL415's example: an invented API",
    "torch._dynamo.config.cache_size_limt": "ZL415's example: a misspelt config key",
    "torch.compiler.future_api": "ZL415's example: a hasattr-guarded name for another torch",
    "torch.foo": "ZL415: monkeypatching a new attribute",
    "torch.my_helper": "ZL415's example: monkeypatching a new attribute",
    "torch.cuda.foo": "ZL415: names below a namespace's first attribute are not checked",
    "torch.npu": "ZL415: a device module that a plugin registers at run time",
    "torch.hpu": "ZL415: a device module that a plugin registers at run time",
    "torch.musa": "ZL415: a device module that a plugin registers at run time",
    "torch.compiler_dynamic_shapes.md": "ZL418's reference: a file of PyTorch's docs",
}
#: a placeholder for "any attribute" (`torch._dynamo.config.X`), not a name
PLACEHOLDER = "X"
#: names that exist only from a torch release on (the docs say so where they name them)
SINCE = {"torch.compiler.precompile": (2, 14)}


@functools.lru_cache(maxsize=1)
def _data() -> dict[tuple[int, int, int], dict]:
    return {
        version: json.loads((tv.DATA_DIR / f"{tv.format_version(version)}.json").read_text(encoding="utf-8"))
        for version in tv.known_versions()
    }


def in_data(name: str, data: dict) -> bool:
    """Whether the shipped data of one torch version has ``name``, as far as it records: the
    attribute right below the deepest recorded namespace (and dotted inductor config keys)."""
    parts = name.split(".")
    for depth in range(len(parts), 0, -1):
        namespace = ".".join(parts[:depth])
        if namespace in data["names"]:
            break
    rest = parts[depth:]
    if not rest:
        return True
    if namespace == "torch._inductor.config" and len(rest) > 1:
        return ".".join(rest) in data["inductor_options"]
    return rest[0] in data["names"][namespace]


def in_torch(name: str, torch) -> bool:
    """Whether a live torch has ``name`` (attributes, or submodules that need an import)."""
    obj = torch
    parts = name.split(".")
    for depth in range(1, len(parts)):
        try:
            obj = getattr(obj, parts[depth])
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[: depth + 1]))
            except ImportError:
                return False
    return True


def doc_names() -> dict[str, list[str]]:
    """Every dotted ``torch.…`` name in the docs' prose and code, with where it appears."""
    found: dict[str, list[str]] = {}
    for path in doc_markdown():
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in TORCH_NAME.findall(line):
                found.setdefault(name, []).append(f"{path.relative_to(ROOT)}:{lineno}")
    return found


def message_names() -> dict[str, list[str]]:
    """Every dotted ``torch.…`` name in the rules' messages: the strings passed to ``report``."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "zlint" / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and "report" in node.func.attr):
                continue
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    for name in TORCH_NAME.findall(part.value):
                        found.setdefault(name, []).append(f"{path.relative_to(ROOT)}:{part.lineno}")
    return found


def _checked(names: dict[str, list[str]]) -> dict[str, list[str]]:
    return {n: where for n, where in names.items() if n not in NOT_APIS and n.rsplit(".", 1)[1] != PLACEHOLDER}


def _missing_in_data(names: dict[str, list[str]]) -> list[str]:
    missing = []
    for name, where in sorted(_checked(names).items()):
        for version, data in _data().items():
            recommended = version[:2] >= SINCE.get(name, (0, 0))
            if in_data(name, data) != recommended:
                problem = "missing in" if recommended else "exists before its release in"
                missing.append(f"{name} ({where[0]}): {problem} torch {tv.format_version(version)}")
    return missing


def test_the_scan_sees_the_names_the_docs_recommend():
    names = doc_names()
    assert "torch._dynamo.decorators.mark_unbacked" in names
    assert "torch._dynamo.config.capture_scalar_outputs" in names
    assert "torch._dynamo.mark_dynamic" in message_names()


def test_every_torch_name_in_the_docs_exists_in_the_shipped_data():
    assert _missing_in_data(doc_names()) == []


def test_every_torch_name_in_rule_messages_exists_in_the_shipped_data():
    assert _missing_in_data(message_names()) == []


def test_the_check_fails_on_a_name_that_does_not_exist():
    data = _data()[tv.known_versions()[0]]
    assert in_data("torch._dynamo.decorators", data) and not in_data("torch._dynamo.mark_unbacked", data)
    assert in_data("torch._inductor.config.triton.cudagraphs", data)
    assert not in_data("torch._inductor.config.triton.cudagrafs", data)
    assert _missing_in_data({"torch.compiler.resett": ["x.md:1"]}) != []


def data_can_tell(name: str, data: dict) -> bool:
    """Whether the data records ``name``'s level: one attribute below a recorded namespace."""
    namespace, _, _ = name.rpartition(".")
    return namespace in data["names"]


def test_not_apis_are_few_absent_and_still_mentioned():
    assert len(NOT_APIS) <= 15
    mentioned = doc_names()
    for name in NOT_APIS:
        assert name in mentioned, f"{name} is no longer in the docs: drop it from NOT_APIS"
        for data in _data().values():
            if data_can_tell(name, data):
                assert not in_data(name, data), f"{name} exists: check it like any other name"


def test_every_torch_name_exists_in_the_installed_torch():
    """Deeper than the data: ``torch._dynamo.decorators.mark_unbacked`` on a live torch."""
    torch = pytest.importorskip("torch")
    installed = tuple(int(p) for p in re.findall(r"\d+", torch.__version__)[:2])
    names = {**_checked(doc_names()), **_checked(message_names())}
    missing = [
        f"{name} ({where[0]})"
        for name, where in sorted(names.items())
        if installed >= SINCE.get(name, (0, 0)) and not in_torch(name, torch)
    ]
    assert missing == []
    assert [name for name in NOT_APIS if in_torch(name, torch)] == []
    assert in_torch("torch.fx.experimental._config.backed_size_oblivious", torch)


def test_the_zl101_doc_recommends_the_name_that_exists():
    text = (ROOT / "rules" / "ZL101-size-compared-with-zero-or-one.md").read_text(encoding="utf-8")
    recommended = {m for m in TORCH_NAME.findall(text) if m.endswith("mark_unbacked")}
    assert recommended == {"torch._dynamo.decorators.mark_unbacked", "torch._dynamo.mark_unbacked"}
    assert "not `torch._dynamo.mark_unbacked`" in text


def test_the_default_docs_url_is_the_sites_own():
    """Reports link rule pages on ``DEFAULT_DOCS_URL``: it is mkdocs.yml's ``site_url`` (neither is
    set while the project publishes no site), and each rule's page is where the hooks put it."""
    from zlint.core.rule_docs import DEFAULT_DOCS_URL, page_path

    site_url = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert (site_url.group(1) if site_url else None) == DEFAULT_DOCS_URL
    hooks = load_script("docs_hooks")
    for doc in hooks.rule_docs():
        assert page_path(doc.name.split("-", 1)[0]) == f"rules/{doc.stem}/"
