"""Rule versions say what they do: every version has a sentence, and every report prints the ones that ran."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import mathhammer
from mathhammer.face import report
from mathhammer.face.cli import main
from mathhammer.plugin import VersionChoice
from mathhammer.testing import DEADLY, ToyScenario, toy_registry
from mathhammer.versions import Rule, describe

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

BLAST_SPEC = "specification (9th-edition text): at least 3 attacks against 6-10 models; maximum against 11+"


@pytest.mark.parametrize("sentence", ["", "   ", "two\nlines", None])
def test_a_rule_version_without_a_one_line_sentence_is_refused(sentence: object) -> None:
    with pytest.raises(ValueError, match="version 'b' needs a one-line sentence saying what it does"):
        Rule("Toy", versions={"a": "the toy rules: a", "b": sentence}, default="a")  # type: ignore[dict-item]


def test_describe_gives_the_sentence_of_one_version_and_names_each_of_several() -> None:
    assert describe({"Deadly": DEADLY}, {"Deadly": ["unsaved"]}) == {"Deadly": DEADLY.versions["unsaved"]}
    both = describe({"Deadly": DEADLY}, {"Deadly": ["unsaved", "mortal"], "Unknown": ["x"]})
    assert both == {"Deadly": f"unsaved: {DEADLY.versions['unsaved']}; mortal: {DEADLY.versions['mortal']}"}


def test_a_version_a_ruleset_records_without_a_sentence_gets_its_keyword_rule_s() -> None:
    # The toy ruleset records the version of Deadly and says nothing of it.
    registry = toy_registry()
    scenario = ToyScenario(keywords=("Deadly",), rules=VersionChoice(rules={"Deadly": "mortal"}))
    result = mathhammer.evaluate_exact(scenario, registry=registry)
    assert result.rule_versions == {"Deadly": "mortal"}
    assert result.rule_descriptions == {"Deadly": DEADLY.versions["mortal"]}
    assert f"Deadly (mortal): {DEADLY.versions['mortal']}" in result.to_text()


def blast(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "blast.toml"
    path.write_text(
        'ruleset = "wh40k"\n'
        + extra
        + '[[attacker.weapons]]\nname = "Frag missile"\nattacks = "D6"\nskill = "4+"\nstrength = 4\ndamage = "1"\n'
        'keywords = ["Blast"]\n'
        '[target]\nname = "Boyz"\ntoughness = 5\n[[target.models]]\nname = "Boy"\ncount = 8\nwounds = 1\n'
    )
    return path


def test_every_report_names_the_blast_version_that_ran_in_words(tmp_path: Path) -> None:
    result = mathhammer.evaluate(mathhammer.load_scenario(blast(tmp_path)))
    line = f"Blast (spec): {BLAST_SPEC}"
    assert line in result.rule_lines
    assert line in result.to_text()
    assert line in result._repr_html_()
    out = io.StringIO()
    Console(file=out, width=300).print(report.render(result))
    assert f"  {line}" in out.getvalue()
    assert result.to_dict()["rule_descriptions"]["Blast"] == BLAST_SPEC


def test_the_command_line_prints_the_sentences_and_json_carries_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = blast(tmp_path, '[rules]\nedition = "10e"\n')
    assert main(["simulate", str(path)]) == 0
    assert "Blast (10e): 10th edition: +1 attack for every 5 models in the target" in capsys.readouterr().out
    assert main(["simulate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rule_versions"]["Blast"] == "10e"
    assert set(data["rule_descriptions"]) == set(data["rule_versions"])  # every version that ran, in words


@pytest.mark.parametrize(
    ("example", "rule", "starts"),
    [
        ("t9a-greatswords.toml", "revision", "2022 rules, text B"),
        ("skilldice-vanguard.toml", "critical_hits", "the project's reading of the rules"),
        ("keywords.toml", "Devastating Wounds", "10th edition, 2024"),
    ],
)
def test_every_ruleset_describes_each_version_that_ran(example: str, rule: str, starts: str) -> None:
    compiled = mathhammer.compile_scenario(mathhammer.load_scenario(EXAMPLES / example))
    assert set(compiled.rule_descriptions) == set(compiled.rule_versions)
    assert compiled.rule_descriptions[rule].startswith(starts)
