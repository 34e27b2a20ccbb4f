"""Every distribution has one version, and the versions in the tree satisfy each other.

A plugin that asks for ``mathhammer-blast>=0.2`` while plugins/mathhammer-blast says 0.1.0
installs from nowhere; this catches it before `make test-install` has to.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())


def _project(folder: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _core_version() -> str:
    """The core's version: Cargo's workspace version, which maturin gives the Python distribution."""
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    version: str = cargo["workspace"]["package"]["version"]
    return version


def _versions() -> dict[str, str]:
    versions = {"mathhammer": _core_version()}
    for folder in PLUGINS:
        project = _project(folder)
        versions[canonicalize_name(str(project["name"]))] = str(project["version"])
    return versions


def test_the_core_takes_its_version_from_cargo() -> None:
    core = _project(ROOT)
    assert "version" not in core
    assert core["dynamic"] == ["version"]
    assert tomllib.loads((ROOT / "rust/py/Cargo.toml").read_text(encoding="utf-8"))["package"]["version"] == {
        "workspace": True
    }


@pytest.mark.parametrize("folder", PLUGINS, ids=lambda p: p.name)
def test_a_plugin_sets_its_version_in_pyproject_only(folder: Path) -> None:
    version = str(_project(folder)["version"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    repeated = [str(p.relative_to(ROOT)) for p in (folder / "src").rglob("*.py") if f'"{version}"' in p.read_text()]
    assert repeated == [], "read the version with importlib.metadata.version() instead"


@pytest.mark.parametrize("folder", [ROOT, *PLUGINS], ids=lambda p: p.name if p != ROOT else "mathhammer")
def test_every_mathhammer_requirement_is_met_by_the_tree(folder: Path) -> None:
    project = _project(folder)
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    requirements = [Requirement(r) for r in project.get("dependencies", [])]
    requirements += [Requirement(r) for group in extras.values() for r in group]
    versions = _versions()
    ours = [r for r in requirements if canonicalize_name(r.name).startswith("mathhammer")]
    for requirement in ours:
        name = canonicalize_name(requirement.name)
        assert name in versions, f"{folder.name} needs {requirement}, which no folder in the tree builds"
        assert requirement.specifier.contains(versions[name]), (
            f"{folder.name} needs {requirement}, the tree has {versions[name]}"
        )
