"""One error policy for every ruleset's keywords: a plugin's fault is named as the plugin's, never the scenario's.

The broken plugins here are registered in-process through the public API, on
the toy ruleset, as a third party's would be found through its entry point.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer.face import cli
from mathhammer.plugin import (
    Compiled,
    Effect,
    KeywordError,
    KeywordRegistrar,
    KeywordSpec,
    KeywordTable,
    RulesetError,
    RulesetRegistrar,
    hookimpl,
)
from mathhammer.testing import ToyRules, ToyRuleset, ToyScenario, run_cli, toy_registry


def keyword_plugin(name: str, apply: object) -> object:
    class Plugin:
        @staticmethod
        @hookimpl
        def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
            register(KeywordSpec("toy", name, apply=apply, description="broken on purpose"))  # type: ignore[arg-type]

    return Plugin()


def skips_too_far(rules: ToyRules) -> None:
    # Skipping seven tests when none follows the hit roll: the core refuses this Plan.
    rules.hit.effects.append(Effect(on="critical", action="skip", steps=7))


def raises(rules: ToyRules) -> None:
    raise KeyError("x")


BROKEN = toy_registry(
    ("broken-plan", keyword_plugin("Far Skip", skips_too_far)), ("raiser", keyword_plugin("Oops", raises))
)


def test_a_keyword_whose_plan_the_core_rejects_is_named_with_its_plugin() -> None:
    scenario = ToyScenario(keywords=("Extra Hits 1", "Far Skip"), source="fight.toml")
    with pytest.raises(KeywordError) as error:
        mathhammer.evaluate_exact(scenario, registry=BROKEN)
    assert str(error.value) == (
        "keyword Far Skip (plugin broken-plan, distribution none, registered in-process) produced an invalid plan: "
        "plan field sequences[0].steps[0].effects[1].steps: skips 7 tests but 0 follow; skip 1 to 0"
    )
    assert (error.value.keyword, error.value.plugin, error.value.distribution) == ("Far Skip", "broken-plan", None)
    assert "fight.toml" not in str(error.value)
    assert not isinstance(error.value, ValueError)  # not an input error


def test_a_keyword_that_raises_is_named_with_its_plugin_and_where_it_was_applied() -> None:
    with pytest.raises(
        KeywordError,
        match=r"^keyword Oops \(plugin raiser, .*\) produced an invalid plan: KeyError .* keywords\[0\]: 'x'$",
    ):
        mathhammer.compile_scenario(ToyScenario(keywords=("Oops",)), registry=BROKEN)


def test_a_keyword_rejecting_the_weapon_with_value_error_is_the_input_s_fault() -> None:
    def picky(rules: ToyRules) -> None:
        raise ValueError("needs at least 2 attacks")

    registry = toy_registry(("picky", keyword_plugin("Picky", picky)))
    with pytest.raises(mathhammer.ScenarioError, match=r"^f.toml, field keywords\[1\]: needs at least 2 attacks$"):
        mathhammer.compile_scenario(ToyScenario(keywords=("Deadly", "Picky"), source="f.toml"), registry=registry)


def test_the_other_plugins_keep_working_beside_a_broken_one() -> None:
    result = mathhammer.evaluate_exact(ToyScenario(attacks="6", hit=4, keywords=("Extra Hits 1",)), registry=BROKEN)
    assert result["hits"].mean == pytest.approx(6 * (1 / 2 + 1 / 6), abs=1e-12)


class MisorderedRuleset(ToyRuleset):
    """The toy ruleset, but allocating to a group its target does not have."""

    name = "misordered"

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        compiled = super().compile(scenario, keywords)
        compiled.plan.target.order = [3]
        return compiled


def test_a_ruleset_s_own_invalid_plan_names_the_ruleset() -> None:
    class Plugin:
        @staticmethod
        @hookimpl
        def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
            register(MisorderedRuleset())

    registry = toy_registry(("misordered-plugin", Plugin()))
    scenario = dataclasses.replace(ToyScenario(), ruleset="misordered")
    with pytest.raises(RulesetError, match=r"^ruleset misordered \(plugin misordered-plugin, distribution none, .*"):
        mathhammer.simulate(scenario, trials=10, seed=1, registry=registry)


@pytest.fixture
def broken_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(cli, "default_registry", lambda: BROKEN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_command_line_reports_a_plugin_fault_with_its_own_exit_status(
    broken_cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (broken_cli / "fight.toml").write_text('ruleset = "toy"\nattacks = 6\nhit = "4+"\nkeywords = ["Far Skip"]\n')
    assert run_cli(["simulate", "fight.toml"]) == cli.EXIT_PLUGIN == 3
    err = capsys.readouterr().err
    assert err.startswith("mathhammer: plugin error: keyword Far Skip (plugin broken-plan, distribution none")
    assert "fight.toml" not in err  # never blamed on the scenario file

    (broken_cli / "fine.toml").write_text('ruleset = "toy"\nattacks = 6\nhit = "4+"\nkeywords = ["Extra Hits 1"]\n')
    assert run_cli(["simulate", "fine.toml"]) == 0
    (broken_cli / "typo.toml").write_text('ruleset = "toy"\nattacks = 6\nhit = "4+"\nkeywords = ["Extra Hit 1"]\n')
    assert run_cli(["simulate", "typo.toml"]) == cli.EXIT_INPUT == 2
    assert "typo.toml, field keywords[0]: 'Extra Hit 1' is not a keyword of ruleset 'toy'" in capsys.readouterr().err


def test_a_value_the_core_cannot_read_is_named_by_its_field_not_its_position_in_json() -> None:
    def unrollable(rules: ToyRules) -> None:
        rules.hit.effects.append(Effect(on="critical", action="extra", amount="banana"))

    registry = toy_registry(("unrollable", keyword_plugin("Banana Hits", unrollable)))
    with pytest.raises(KeywordError) as error:
        mathhammer.evaluate_exact(ToyScenario(keywords=("Deadly", "Banana Hits")), registry=registry)
    assert error.value.reason.startswith('plan field sequences[0].steps[0].effects[1].amount: dice expression "banana"')
    assert "line 1 column" not in error.value.reason  # no position in the Plan's JSON
