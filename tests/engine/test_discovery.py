"""The settings resolver's account of the configuration files its settings depend on
(:meth:`zlint.engine.discovery.SettingsResolver.config_files`), which the language server
compares to notice a changed pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from zlint.core.settings import ConfigError
from zlint.engine.discovery import SettingsResolver


def test_config_files_run_from_each_directory_up_to_the_one_in_effect(tmp_path: Path):
    (tmp_path / "project" / "a" / "deep").mkdir(parents=True)
    (tmp_path / "project" / "b").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text("[tool.zlint]\n")
    (tmp_path / "project" / "a" / "pyproject.toml").write_text("[project]\nname = 'a'\n")  # no table
    resolver = SettingsResolver()
    assert resolver.config_files() == frozenset()
    resolver.for_path(tmp_path / "project" / "a" / "deep" / "m.py")
    first = resolver.config_files()
    assert first == {
        tmp_path / "project" / "a" / "deep" / "pyproject.toml",
        tmp_path / "project" / "a" / "pyproject.toml",
        tmp_path / "project" / "pyproject.toml",
    }
    assert resolver.config_files() is first  # nothing new looked up: the same object
    resolver.for_path(tmp_path / "project" / "b" / "m.py")
    assert resolver.config_files() == first | {tmp_path / "project" / "b" / "pyproject.toml"}


def test_config_files_of_a_broken_or_missing_config_run_up_to_the_root(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\nselect = 3\n")
    resolver = SettingsResolver()
    with pytest.raises(ConfigError):
        resolver.for_path(tmp_path / "m.py")
    files = resolver.config_files()
    assert tmp_path / "pyproject.toml" in files
    assert Path(tmp_path.anchor) / "pyproject.toml" in files  # mended without a table, one higher up applies
