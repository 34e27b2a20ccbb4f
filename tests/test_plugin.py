"""The one public author API: ``mathhammer.plugin`` holds what plugins need, and plugins import nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mathhammer
import mathhammer.plugin
import mathhammer.testing

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = ROOT / "plugins"

PUBLIC_MODULES = {"mathhammer.plugin", "mathhammer.testing"}
"""What a plugin's source may import from mathhammer."""


def mathhammer_imports(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` for every import from the mathhammer framework in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, "") for a in node.names if a.name.split(".")[0] == "mathhammer"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "mathhammer":
            found += [(node.lineno, node.module, a.name) for a in node.names]
    return found


def refused(path: Path, *, test: bool, root: Path = ROOT) -> list[str]:
    """The imports of ``path`` that reach past the public API.

    A plugin's source imports from ``mathhammer.plugin`` and ``mathhammer.testing``;
    its tests may also use the top-level ``mathhammer`` API (``mathhammer.simulate``),
    never a private name (``mathhammer._core``) nor another framework module.
    """
    bad = []
    for line, module, name in mathhammer_imports(path):
        if module in PUBLIC_MODULES:
            continue
        if test and module == "mathhammer" and not name.startswith("_"):
            continue
        bad.append(f"{path.relative_to(root)}:{line}: {module}{'.' + name if name else ''}")
    if test:
        text = path.read_text(encoding="utf-8")
        bad += [f"{path.relative_to(root)}: mathhammer._core" for _ in range(text.count("mathhammer._core"))]
    return bad


def test_plugins_import_only_the_public_author_api() -> None:
    sources = sorted(PLUGINS.glob("*/src/**/*.py"))
    tests = sorted(PLUGINS.glob("*/tests/**/*.py"))
    assert len(sources) > 40 and len(tests) > 10
    bad = [b for p in sources for b in refused(p, test=False)] + [b for p in tests for b in refused(p, test=True)]
    assert bad == []


def test_the_scan_catches_a_private_import(tmp_path: Path) -> None:
    source = tmp_path / "plugin.py"
    source.write_text("import mathhammer\nfrom mathhammer import _core\nfrom mathhammer.plan import Effect\n")
    found = [b.split(": ", 1)[1] for b in refused(source, test=False, root=tmp_path)]
    assert found == ["mathhammer", "mathhammer._core", "mathhammer.plan.Effect"]


def test_every_public_name_of_the_author_api_exists_and_is_documented() -> None:
    names = mathhammer.plugin.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(mathhammer.plugin, name), name
    docs = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    assert [n for n in names if f"`{n}" not in docs] == []


def test_a_plugin_needs_nothing_else_to_register_a_keyword_and_run_it() -> None:
    from mathhammer.plugin import Effect, KeywordRegistrar, KeywordSpec, hookimpl, with_value

    class Plugin:
        @staticmethod
        @hookimpl
        def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
            def apply(rules: mathhammer.testing.ToyRules) -> None:
                rules.hit.effects.append(Effect(on="critical", action="extra", amount=str(rules.params["x"])))

            register(KeywordSpec("toy", "Bonus Hits", apply=apply, parse=with_value("Bonus Hits")))

    registry = mathhammer.testing.toy_registry(("bonus", Plugin()))
    scenario = mathhammer.testing.ToyScenario(attacks="6", hit=4, keywords=("Bonus Hits 2",))
    # Each of 6 attacks hits on 4+ (1/2) and scores 2 more hits on a 6 (1/6): 6 * (1/2 + 2/6) = 5.
    assert mathhammer.evaluate_exact(scenario, registry=registry)["hits"].mean == pytest.approx(5, abs=1e-12)


def test_the_framework_s_tests_import_no_game_s_plugin() -> None:
    """Framework tests run on the toy ruleset; the example files reach 40k through entry points (see conftest.py)."""
    games = {"mathhammer_wh40k", "mathhammer_t9a", "mathhammer_skilldice"}
    found = []
    for path in sorted((ROOT / "tests").glob("**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            found += [f"{path.name}: {m}" for m in modules if m.split(".")[0] in games]
    assert found == []
