"""A method that no code of the run calls runs where its callers outside the run call it: on a
model, between forwards. That holds only where the run holds the method's whole package, and not
for a method the run may call by name, one stored as a value, or a hook of a base from outside."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

from inprocess import zlint
from zlint.engine.discovery import whole_packages
from zlint.scope.classify import classify
from zlint.scope.file_summary import summarize


def marked(files: dict[str, str], whole: bool = True) -> dict[str, list[tuple[str, str]]]:
    """{path: [(scope, reason)]} for the lines marked ``# <-``; ``whole``: the run holds every file's package."""
    sources = {p: textwrap.dedent(src) for p, src in files.items()}
    summaries = [summarize(p, ast.parse(src)) for p, src in sources.items()]
    found = classify(summaries, frozenset(sources) if whole else frozenset())
    return {
        p: [found[p].classify(i) for i, line in enumerate(src.splitlines(), 1) if "# <-" in line]
        for p, src in sources.items()
    }


MODEL = """
    from torch import nn

    class Adapter(nn.Module):
        def forward(self, x):
            return self.scale(x)

        def scale(self, x):
            return x  # <-

        def merge(self):
            return self.delta()  # <-

        def delta(self):
            return 1  # <-
    """


def test_a_method_no_code_calls_is_run_by_its_callers_eagerly():
    assert marked({"m.py": MODEL})["m.py"] == [
        ("compiled", "called from Adapter.forward"),
        ("never", "no code of the run calls Adapter.merge (its callers run it eagerly)"),
        ("never", "called only from eager code (Adapter.merge)"),
    ]


def test_without_the_whole_package_a_caller_may_be_elsewhere():
    assert marked({"m.py": MODEL}, whole=False)["m.py"][1:] == [("unknown", "no compiled caller found")] * 2


def test_a_method_the_run_may_call_by_name_stays_unknown():
    caller = """
        def apply(adapter, x):
            adapter.merge()
            return getattr(adapter, "delta")()
        """
    assert marked({"m.py": MODEL, "use.py": caller})["m.py"][1:] == [("unknown", "no compiled caller found")] * 2


def test_a_method_stored_as_a_value_runs_where_the_value_is_called():
    assert marked({"m.py": """
        from torch import nn

        class Searcher(nn.Module):
            def __init__(self, greedy):
                super().__init__()
                self.search = self.greedy if greedy else self.beam

            def forward(self, x):
                return self.search(x)

            def greedy(self, x):
                return x  # <-

            def beam(self, x):
                return x  # <-

            def warm_up(self, x):
                fn = self.greedy
                return fn(x)
        """})["m.py"] == [("unknown", "no compiled caller found")] * 2


def test_a_hook_of_a_base_from_outside_the_run_stays_unknown():
    assert marked({"m.py": """
        from torch import nn

        class PaddedConv(nn.Conv2d):
            def _conv_forward(self, x, weight, bias):
                return x  # <-

        class Plain(nn.Module):
            def describe(self):
                return 1  # <-
        """})["m.py"] == [
        ("unknown", "no compiled caller found"),
        ("never", "no code of the run calls Plain.describe (its callers run it eagerly)"),
    ]


def test_an_override_taken_as_a_value_by_its_base_is_compiled():
    assert marked({"m.py": """
        from torch import nn

        class Head(nn.Module):
            def forward(self, x):
                table = {"labels": self.loss_labels}
                return table["labels"](x)

            def loss_labels(self, x):
                return x

        class BoxHead(Head):
            def loss_labels(self, x):
                return x  # <-
        """})["m.py"] == [("compiled", "called from Head.forward")]


def test_whole_packages_needs_a_named_directory_holding_the_top_package(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/a.py", "loose.py"):
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    files = ["pkg/sub/a.py", "loose.py"]
    assert whole_packages(["."], files) == frozenset(files)
    assert whole_packages(["pkg"], files) == frozenset({"pkg/sub/a.py"})
    assert whole_packages(["pkg/sub"], files) == frozenset()  # pkg/ may hold the callers
    assert whole_packages(["pkg/sub/a.py", "loose.py"], files) == frozenset()


HAZARD = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        return x

    def summarize(self, x):
        for i in range(x.shape[0]):
            x = x * 2
        return x
"""


def _rows(cwd: Path, *args: str) -> list[tuple[str, int, str, str]]:
    proc = zlint("--no-cache", "--format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["filename"], f["location"]["row"], f["code"], f["scope"]) for f in json.loads(proc.stdout)]


def test_the_cli_hides_an_uncalled_method_only_when_linting_its_package(tmp_path):
    (tmp_path / "net.py").write_text(HAZARD)
    assert _rows(tmp_path, ".") == []
    assert _rows(tmp_path, "--scope", "all", ".") == [("net.py", 10, "ZL201", "never")]
    assert _rows(tmp_path, "net.py") == [("net.py", 10, "ZL201", "unknown")]  # pre-commit passes files


HELPER = """\
import torch


def public_helper(x):
    for i in range(x.shape[0]):
        x = x * 2
    return x
"""


def test_unknown_code_is_hidden_only_where_the_run_holds_its_whole_package(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "ops.py").write_text(HELPER)
    (tmp_path / "loose.py").write_text(HELPER)  # a folder of scripts is no package
    assert _rows(tmp_path, ".") == [("loose.py", 5, "ZL201", "unknown")]
    assert _rows(tmp_path, "--scope", "all", ".") == [
        ("loose.py", 5, "ZL201", "unknown"), ("pkg/ops.py", 5, "ZL201", "unknown"),
    ]
    assert _rows(tmp_path, "pkg/ops.py") == [("pkg/ops.py", 5, "ZL201", "unknown")]
    (tmp_path / "pkg" / "net.py").write_text(
        "from torch import nn\nfrom pkg.ops import public_helper\n\n\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        return public_helper(x)\n"
    )
    assert _rows(tmp_path, "pkg") == [("pkg/ops.py", 5, "ZL201", "compiled")]


def test_a_package_is_known_by_its_absolute_path_whatever_the_working_directory(tmp_path, monkeypatch):
    for name in ("a", "b"):
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "ops.py").write_text(HELPER)
    (tmp_path / "a" / "pkg" / "__init__.py").write_text("")
    assert _rows(tmp_path / "a", "pkg") == []
    assert _rows(tmp_path / "b", "pkg") == [("pkg/ops.py", 5, "ZL201", "unknown")]  # no __init__.py here


def test_the_run_says_how_many_findings_it_hid_and_how_to_see_them(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "ops.py").write_text(HELPER + "\n\n" + HELPER.replace("public_helper", "other_helper"))
    note = (
        "zlint: 2 findings hidden in code nothing compiled reaches (the run holds its whole package);"
        " --scope all shows them"
    )
    proc = zlint("--no-cache", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.splitlines() == [note, "Found 0 findings (2 files checked; 2 hidden: 2 unreached)."]
    assert note not in zlint("--no-cache", "--scope", "all", ".", cwd=tmp_path).stderr
    assert zlint("--no-cache", "-q", ".", cwd=tmp_path).stderr == ""
    assert note not in zlint("--no-cache", "pkg/ops.py", cwd=tmp_path).stderr
