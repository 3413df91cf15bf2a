"""``zlint --verify`` end to end: real workers, real torch.compile (eager backend), exact codes,
lines, statuses and exit codes; the ZL8xx rule docs' Example blocks are verified here too."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_zlint

torch = pytest.importorskip("torch")

MODEL = textwrap.dedent(
    """\
    import torch
    print("printed at import: must not reach zlint's stdout")


    def loop_sum(x: torch.Tensor) -> torch.Tensor:
        out = x.new_zeros(x.shape[1:])
        for i in range(x.size(0)):
            out = out + x[i]
        print("printed while verifying")
        return out


    def head(x: torch.Tensor) -> torch.Tensor:
        if x.size(0) == 1:
            return x * 2
        return x + 1


    def rank_check(x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 2:
            return x * 2
        return x + 1
    """
)

QUIET = textwrap.dedent(
    """\
    import torch


    def maybe(x: "Float[torch.Tensor, 'batch 8']") -> torch.Tensor:
        # the annotation fixes dim 1 at 8: the branch never flips
        if x.shape[1] == 8:
            return x + 1
        return x - 1


    class Needs(torch.nn.Module):
        def __init__(self, table: dict) -> None:  # not a width zlint could fill in
            super().__init__()
            self.dim = len(table)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.size(0) == 0:
                return x
            return x * self.dim
    """
)

FENCE = re.compile(r"```python\n(.*?)```", re.S)
VERIFY_MARK = re.compile(r"#\s*verify:\s*(ZL8\d{2}(?:\s*,\s*ZL8\d{2})*)")


def _doc_blocks():
    for doc in sorted((ROOT / "rules").glob("ZL8*.md")):
        text = doc.read_text(encoding="utf-8")
        example, use_instead = text.split("## Example", 1)[1].split("## Use instead", 1)
        code = doc.name[:5].lower()
        yield f"{code}_example.py", FENCE.findall(example)[0]
        yield f"{code}_use_instead.py", FENCE.findall(use_instead.split("## Known problems")[0])[0]


def _json(proc) -> list[dict]:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)  # prints in user code must not have corrupted it


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("verify_project")
    (root / "pyproject.toml").write_text("[tool.zlint]\n", encoding="utf-8")
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    docs = root / "docs"
    docs.mkdir()
    for name, block in _doc_blocks():
        (docs / name).write_text(block, encoding="utf-8")
    quiet = root / "quiet"
    quiet.mkdir()
    (quiet / "quiet.py").write_text(QUIET, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def verified(project):
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "model.py", "docs", cwd=project)
    return proc, _json(proc)


def _at(findings, filename, line, code):
    found = [
        d for d in findings
        if d["filename"].endswith(filename) and d["location"]["row"] == line and d["code"] == code
    ]
    assert len(found) == 1, [(d["filename"], d["location"]["row"], d["code"]) for d in findings]
    return found[0]["verify"]


def test_range_loop_confirmed_with_eq_guard_at_its_line(verified):
    proc, findings = verified
    verify = _at(findings, "model.py", 7, "ZL201")
    assert verify["status"] == "CONFIRMED" and verify["mode"] == "default"
    assert verify["evidence"][0]["kind"] == "specialization" and verify["evidence"][0]["line"] == 7
    assert verify["evidence"][0]["detail"].startswith("Eq(")
    assert verify["graphs"]["default"]["graphs"] > verify["graphs"]["default"]["baseline"]
    assert verify["backend"] == "eager" and verify["device"] == "cpu"
    assert proc.returncode == 1


def test_size_one_branch_confirmed_in_the_oblivious_mode_at_its_line(verified):
    _, findings = verified
    verify = _at(findings, "model.py", 14, "ZL101")
    assert verify["status"] == "CONFIRMED"
    assert verify["mode"] == "backed_size_oblivious"
    assert {e["line"] for e in verify["evidence"]} == {14}
    assert verify["inputs"] == "synthesized: x[n,4]"


def test_near_miss_rank_check_is_not_reported(verified):
    _, findings = verified
    assert not [d for d in findings if d["filename"].endswith("model.py") and 19 <= d["location"]["row"] <= 22]


def test_rule_docs_runtime_examples_are_confirmed_and_use_instead_is_clean(verified):
    _, findings = verified
    want = set()
    for name, block in _doc_blocks():
        for lineno, line in enumerate(block.splitlines(), 1):
            for mark in VERIFY_MARK.findall(line):
                want |= {(name, lineno, code.strip()) for code in mark.split(",")}
    got = {
        (Path(d["filename"]).name, d["location"]["row"], d["code"])
        for d in findings
        if Path(d["filename"]).parent.name == "docs"
    }
    assert got == want
    assert all(
        d["verify"]["status"] == "CONFIRMED" for d in findings if d["code"].startswith("ZL8")
    )


def test_text_output_shows_status_and_evidence(project):
    proc = run_zlint("--verify", "--backend", "eager", "--sizes", "2,3,5", "--select", "ZL201", "model.py", cwd=project)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("model.py:7:14: ZL201 ") and lines[0].endswith(" [CONFIRMED]")
    # the cost first, then the evidence: sympy with its plain reading, sizes where graphs appeared
    assert lines[1].startswith("    CONFIRMED in default mode (size pinned (a graph per value), recompile; default: ")
    assert "3 graphs where a trivial function needs 2 (graphs compiled at sizes 2,3,5)" in lines[1]
    assert "specialization Eq(s" in lines[1]
    assert "i.e. x.size(0) == 3 (default, line 7, size 3)" in lines[1]
    assert "(default, line 7, size 3)" in lines[1]


def test_not_observed_and_unverifiable_still_fail_unless_fail_on_confirmed(project):
    # findings remain whatever --verify could tell of them: exit 1, as plain zlint on the same files
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "quiet", cwd=project)
    findings = _json(proc)
    assert proc.returncode == 1, proc.stderr
    assert run_zlint("quiet", cwd=project).returncode == 1
    maybe = _at(findings, "quiet.py", 6, "ZL103")
    assert maybe["status"] == "NOT OBSERVED"
    assert "likely a false positive" in maybe["note"]
    needs = _at(findings, "quiet.py", 17, "ZL101")
    assert needs["status"] == "UNVERIFIABLE"
    assert "Needs() cannot build" in needs["reason"] and "register an example with a factory" in needs["reason"]
    assert {d["verify"]["status"] for d in findings} == {"NOT OBSERVED", "UNVERIFIABLE"}
    confirmed_only = run_zlint("--verify", "--verify-fail-on", "confirmed", "--backend", "eager", "quiet", cwd=project)
    assert confirmed_only.returncode == 0, confirmed_only.stderr
    strict = run_zlint(
        "--verify", "--verify-fail-on", "confirmed", "--verify-strict", "--backend", "eager", "quiet", cwd=project
    )
    assert strict.returncode == 1, strict.stderr
    assert "[UNVERIFIABLE]" in strict.stdout and "[NOT OBSERVED]" in strict.stdout
    assert run_zlint("--verify", "--exit-zero", "--backend", "eager", "quiet", cwd=project).returncode == 0


def test_bad_sizes_is_a_usage_error(project):
    proc = run_zlint("--verify", "--sizes", "2,x", "model.py", cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.startswith("zlint: error: argument --sizes: --sizes wants comma-separated integers")


def test_without_torch_verify_says_how_to_install(project, monkeypatch, capsys):
    import zlint.verify
    from zlint.frontends.cli import main

    monkeypatch.setattr(zlint.verify, "torch_available", lambda: False)
    monkeypatch.chdir(project)
    assert main(["--verify", "model.py"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "zlint: error: --verify needs torch; install it: pip install torch"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error")
def test_device_cuda_without_a_gpu_is_an_error(project):
    proc = run_zlint("--verify", "--device", "cuda", "model.py", cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "zlint: error: --device cuda: torch sees no CUDA device here"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_inductor_confirms_the_range_loop(project):
    proc = run_zlint("--verify", "--device", "auto", "--format", "json", "--select", "ZL201", "model.py", cwd=project)
    findings = _json(proc)
    verify = _at(findings, "model.py", 7, "ZL201")
    assert verify["device"] == "cuda" and verify["backend"] == "inductor"
    assert verify["status"] == "CONFIRMED" and verify["evidence"][0]["detail"].startswith("Eq(")


# -- [tool.zlint.verify] examples: read once with the settings, passed to the runner ---------------


def test_configured_examples_are_resolved_by_the_settings(tmp_path):
    from zlint.core.settings import ConfigError, settings_from_table

    config = str(tmp_path / "pyproject.toml")
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "ex.py").write_text("")
    settings = settings_from_table({"verify": {"examples": ["inputs/ex.py"]}}, config, tmp_path)
    assert settings.verify_examples == (str((tmp_path / "inputs" / "ex.py").resolve()),)
    assert settings_from_table({"verify": {}}, config, tmp_path).verify_examples == ()
    for bad in ("ex.py", [1], {"a": "b"}):
        with pytest.raises(ConfigError, match=r"^\[tool.zlint.verify\] examples must be a list of file paths$"):
            settings_from_table({"verify": {"examples": bad}}, "pyproject.toml", tmp_path)


def test_configured_examples_file_feeds_the_verified_function(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\n[tool.zlint.verify]\nexamples = ["inputs/ex.py"]\n')
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "ex.py").write_text(
        "import torch\nfrom zlint.verify import example\n"
        f"example({str(tmp_path / 'model.py')!r} + ':head', lambda n: (torch.randn(n, 3),))\n"
    )
    proc = run_zlint("--verify", "--format", "json", "--select", "ZL101", "model.py", cwd=tmp_path)
    verify = _at(_json(proc), "model.py", 14, "ZL101")
    assert verify["status"] == "CONFIRMED" and verify["inputs"] == "registered: registered example"


def test_configured_examples_file_that_does_not_exist_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\n[tool.zlint.verify]\nexamples = ["nope.py"]\n')
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    proc = run_zlint("--verify", "model.py", cwd=tmp_path)
    assert proc.returncode == 2
    missing = (tmp_path / "nope.py").resolve()
    assert proc.stderr == (
        f"zlint: error: {tmp_path / 'pyproject.toml'}: "
        f"[tool.zlint.verify] examples: no such file: 'nope.py' ({missing})\n"
    )
