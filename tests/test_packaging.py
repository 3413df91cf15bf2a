"""The built wheel carries the rule docs, so `zlint rule CODE` works from an installed wheel."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stderr[-2000:]}")
    (found,) = out.glob("zlint-*.whl")
    return found


def test_wheel_ships_every_rule_doc_and_the_console_script(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    docs = sorted(p.name for p in (ROOT / "rules").glob("*.md"))
    assert sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("zlint/_rules/")) == docs
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "zlint = zlint.frontends.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_rule_doc_printed_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True, capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    proc = subprocess.run(
        [
            sys.executable, "-c",
            "import zlint, sys; from zlint.frontends.cli import main; "
            "print(zlint.__file__, file=sys.stderr); main(['rule', 'ZL102'])",
        ],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().startswith(str(target))  # the wheel's copy, not the checkout
    assert proc.stdout == (ROOT / "rules" / "ZL102-size-truthiness.md").read_text()


# -- what installing the test extra does to a user's own pytest sessions --------------------------


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _installed_closure(requirements: list[str]) -> dict[str, importlib.metadata.Distribution]:
    """The installed distributions ``requirements`` pull in, transitively (by canonical name);
    a requirement not installed here is left out, as are the optional extras of each."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(requirements)
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        try:
            found[name] = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        todo.extend(found[name].requires or [])
    return found


def test_the_test_extra_brings_no_asyncio_plugin():
    """pytest-asyncio's plugin loads in every pytest session of an environment that has it and,
    unconfigured, warns there: users who installed zlint[test] saw it in their own projects'
    tests. The server's tests run pygls's client under asyncio.run instead of pytest-lsp."""
    extra = _pyproject()["project"]["optional-dependencies"]["test"]
    names = {canonicalize_name(Requirement(r).name) for r in extra}
    assert not names & {"pytest-asyncio", "pytest-lsp"}
    pulled = _installed_closure(extra)
    assert "pytest" in pulled  # the closure is read from this environment's metadata
    assert "pytest-asyncio" not in pulled, "a requirement of the test extra pulls in pytest-asyncio"


def test_a_users_pytest_session_with_the_test_extra_shows_no_warning(tmp_path: Path):
    """A user's trivial test, run by pytest with exactly the plugins an environment with
    zlint[test] auto-loads: those of the extra's installed requirements and zlint's own
    ``zlint_check`` fixture (others in this environment are kept out): no warning, no output
    beyond the pass."""
    project = _pyproject()["project"]
    pulled = _installed_closure(project["optional-dependencies"]["test"])
    # by entry-point name, as autoloading finds them (pytest resolves `-p NAME` through them)
    plugins = [ep.name for dist in pulled.values() for ep in dist.entry_points if ep.group == "pytest11"]
    plugins += list(project["entry-points"]["pytest11"])
    assert "zlint_verify" in plugins
    (tmp_path / "test_user.py").write_text("def test_user():\n    assert 1 + 1 == 2\n")
    loads = [arg for plugin in plugins for arg in ("-p", plugin)]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *loads, "test_user.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    assert done.stdout.strip().endswith("1 passed in " + done.stdout.strip().rsplit(" in ", 1)[1])
