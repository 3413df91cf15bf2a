"""One run pipeline: a plain run and ``--fix`` lint, place and report a project the same way."""

from __future__ import annotations

import shutil
import textwrap

from conftest import run_zlint
from zlint import pipeline
from zlint.core.settings import Settings

#: a helper module whose functions only another file decides the scope of
HELPERS = textwrap.dedent(
    """\
    import torch


    def build_table(x):
        if x.size(0) == 1:
            return x
        for i in range(x.shape[0]):
            x = x + i
        return x


    def pool_rows(x):
        if x.size(0) == 1:
            return x
        return x.sum(0)
    """
)
MODEL = textwrap.dedent(
    """\
    import torch
    from helpers import build_table


    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = build_table(torch.ones(3, 2))

        def forward(self, x):
            return x + 1
    """
)
#: a compiled step that calls into helpers.py, and a ZL403 with a safe fix
SERVE = textwrap.dedent(
    """\
    import torch
    from helpers import pool_rows


    @torch.compile
    def step(x):
        for i in range(x.size(0)):
            x = x + i
        return pool_rows(x)


    def serve(requests):
        for batch in requests:
            torch._dynamo.mark_dynamic(batch, 0)
            step(batch)
    """
)


def _project(tmp_path, **files: str):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _findings(proc) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line]


def test_fix_places_findings_with_the_run_not_the_file(tmp_path):
    """The issue's repro: helpers.py's findings are in code only model.py's ``__init__`` runs."""
    project = _project(tmp_path, **{"helpers.py": HELPERS.split("\n\ndef pool_rows")[0] + "\n", "model.py": MODEL})
    plain = run_zlint("--no-cache", "helpers.py", "model.py", cwd=project)
    fixed = run_zlint("--no-cache", "--fix", "helpers.py", "model.py", cwd=project)
    assert (plain.returncode, _findings(plain)) == (0, [])
    assert (fixed.returncode, _findings(fixed)) == (0, [])
    summary = "Found 0 findings (2 files checked; 2 hidden: 2 never compiled)."
    assert summary in fixed.stderr and "Fixed 0 findings." in fixed.stderr


def test_fix_reports_what_a_plain_run_reports_on_the_fixed_project(tmp_path):
    (tmp_path / "a").mkdir()
    original = _project(tmp_path / "a", **{"helpers.py": HELPERS, "model.py": MODEL, "serve.py": SERVE})
    copy = tmp_path / "b"
    shutil.copytree(original, copy)
    files = ("helpers.py", "model.py", "serve.py")
    before = run_zlint("--no-cache", "--select", "ZL1,ZL2,ZL4", *files, cwd=original)
    fixed = run_zlint("--no-cache", "--select", "ZL1,ZL2,ZL4", "--fix", *files, cwd=copy)
    after = run_zlint("--no-cache", "--select", "ZL1,ZL2,ZL4", *files, cwd=copy)
    # pool_rows is compiled through serve.py's step (the run's index), build_table is not
    assert [line.split(" ")[:2] for line in _findings(before)] == [
        ["helpers.py:13:8:", "ZL101"],
        ["serve.py:7:14:", "ZL201"],
        ["serve.py:14:9:", "ZL403"],
    ]
    assert "torch._dynamo.maybe_mark_dynamic(batch, 0)" in (copy / "serve.py").read_text()
    assert "Fixed 1 finding." in fixed.stderr
    assert _findings(fixed) == _findings(after) == [
        line for line in _findings(before) if " ZL403 " not in line
    ]
    assert fixed.returncode == after.returncode == 1


def test_the_pipeline_is_the_cli_run(tmp_path):
    project = _project(tmp_path, **{"helpers.py": HELPERS, "model.py": MODEL, "serve.py": SERVE})
    request = pipeline.Request(
        [str(project / name) for name in ("helpers.py", "model.py", "serve.py")],
        {"select": ("ZL101",)},
        jobs=1,
    )
    outcome = pipeline.run(request)
    assert [(d.path.rsplit("/", 1)[-1], d.line, d.code) for d in outcome.diagnostics] == [("helpers.py", 13, "ZL101")]
    assert outcome.errors == [] and outcome.fixer is None
    assert [path for path, settings in outcome.linted] == outcome.files and len(outcome.files) == 3
    assert all(isinstance(settings, Settings) for _, settings in outcome.linted)


def test_a_bad_config_stops_the_run_with_one_line(tmp_path):
    project = _project(tmp_path, **{"m.py": "x = 1\n", "pyproject.toml": "[tool.zlint]\nselect = 3\n"})
    try:
        pipeline.run(pipeline.Request([str(project / "m.py")]))
    except pipeline.RunError as exc:
        assert "pyproject.toml" in str(exc) and "\n" not in str(exc)
    else:
        raise AssertionError("a bad config must stop the run")
