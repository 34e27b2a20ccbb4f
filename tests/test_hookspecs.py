"""Every hook is documented, and every hook has a test that calls it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mathhammer
from mathhammer import KeywordSpec, Registry, hookspecs
from mathhammer.testing import plugin_object

HOOKS = sorted(n for n in dir(hookspecs) if n.startswith("mathhammer_"))
DOCS = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def test_every_hook_says_when_what_and_since() -> None:
    for name in HOOKS:
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        assert ":param" in doc and "versionadded" in doc, name


def test_every_hook_is_in_the_plugin_guide() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name in HOOKS:
        signature = f"{name}{inspect.signature(getattr(hookspecs, name))}"
        assert signature.replace("'", "") in text, f"{signature} missing from docs/plugins.md"


def test_every_hook_has_a_test() -> None:
    names = set(globals())
    assert {f"test_hook_{n}" for n in HOOKS} <= names


def test_hook_mathhammer_register_rulesets(make_registry: Callable[..., Registry]) -> None:
    from mathhammer.testing import toy_ruleset_plugin

    reg = make_registry(("toy", toy_ruleset_plugin))
    assert reg.ruleset("toy").title == "Toy ruleset"


def test_hook_mathhammer_register_keywords(make_registry: Callable[..., Registry]) -> None:
    @mathhammer.hookimpl
    def mathhammer_register_keywords(register: Callable[[Any], None]) -> None:
        register(KeywordSpec(ruleset="toy", name="Rending", apply=lambda *a: None))

    reg = make_registry(("rending", plugin_object(mathhammer_register_keywords=mathhammer_register_keywords)))
    table = reg.keyword_table("toy")
    assert table.names() == ["Rending"] and table.origin["Rending"] == "rending"
    assert table.resolve("  rending ") is not None
    assert table.resolve("Rending 2") is None


def test_hook_mathhammer_register_importers(make_registry: Callable[..., Registry], tmp_path: Path) -> None:
    from mathhammer.importers import ImportedList, ImportedUnit, TableCheck, import_list

    class Toy:
        name = "toy-list"
        title = "toy list"
        ruleset = "toy"

        def recognises(self, path: str, head: bytes) -> bool:
            return head.startswith(b"TOY")

        def attach(self, leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
            raise AssertionError("not asked to attach")

        def read(self, path: str, check: TableCheck) -> ImportedList:
            unit = ImportedUnit("Squad", {}, {"name": "Squad"}, 50.0, 5)
            return ImportedList(path, self.title, self.ruleset, [unit])

    @mathhammer.hookimpl
    def mathhammer_register_importers(register: Callable[[Any], None]) -> None:
        register(Toy())

    reg = make_registry(("toy-list", plugin_object(mathhammer_register_importers=mathhammer_register_importers)))
    assert list(reg.importers) == ["toy-list"]
    listed = tmp_path / "army.toy"
    listed.write_bytes(b"TOY list")
    imported = import_list(listed, registry=reg)
    assert [u.name for u in imported.units] == ["Squad"] and imported.format == "toy list"
