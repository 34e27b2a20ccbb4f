"""Every rule version of the 40k ruleset and its keywords says, in one line, where it comes from and what it does."""

from __future__ import annotations

from mathhammer import default_registry
from mathhammer_wh40k.compile import RULE_DESCRIPTIONS, RULE_VERSIONS, RULESET_RULES


def test_every_installed_rule_version_says_its_source_before_what_it_does() -> None:
    rules = [spec.rule for table in default_registry().keywords.values() for spec in table.specs.values() if spec.rule]
    rules += list(RULESET_RULES.values())
    assert {"Blast", "Devastating Wounds", "Cover", "Hazardous"} <= {r.name for r in rules}
    for rule in rules:
        for version, sentence in rule.versions.items():
            source, _, what = sentence.partition(": ")
            assert what and len(source) < 80, f"{rule.name} {version}: {sentence!r} does not start with its source"


def test_the_rules_with_one_version_are_described_too() -> None:
    assert set(RULE_DESCRIPTIONS) == set(RULE_VERSIONS)
