"""Rules listed but doing nothing are refused, and numbers and widths that make no sense are kept sane."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer import Result
from mathhammer.face import cli
from mathhammer.keywords import with_value

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str]:
    code = cli.main(["simulate", str(path)])
    return code, capsys.readouterr().err


def edited(tmp_path: Path, example: str, old: str, new: str) -> Path:
    text = (EXAMPLES / example).read_text()
    assert old in text
    path = tmp_path / example
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("value", ["0", "2D3-6"])
def test_a_keyword_value_that_is_always_zero_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match=f"Sustained Hits {value} does nothing: X must be at least 1"):
        with_value("Sustained Hits")(f"Sustained Hits {value}")
    assert with_value("Sustained Hits")("Sustained Hits D3-1") == {"x": "D3-1"}  # sometimes 0 is still a rule


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("Sustained Hits 0", "'Sustained Hits 0': Sustained Hits 0 does nothing"),
        ("Lethal Hits: ", "'Lethal Hits:' names no target keyword after ':'; write 'Lethal Hits: INFANTRY'"),
        ("Lethal Hits:", "'Lethal Hits:' names no target keyword after ':'"),
    ],
)
def test_a_40k_keyword_that_does_nothing_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, keyword: str, message: str
) -> None:
    path = edited(tmp_path, "boltguns.toml", 'damage = "1"', f'damage = "1"\nkeywords = ["{keyword}"]')
    code, err = run(capsys, path)
    assert code == 2 and "field attacker.weapons[0].keywords[0]: " in err and message in err


def test_a_restricted_keyword_still_applies_only_against_its_keyword(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = edited(tmp_path, "boltguns.toml", 'damage = "1"', 'damage = "1"\nkeywords = ["Lethal Hits: Vehicle"]')
    assert run(capsys, path)[0] == 0


def test_d12_damage_zero_is_refused_on_a_weapon_that_does_nothing_else(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_inflict = edited(tmp_path, "skilldice-vanguard.toml", 'damage = "D6"', 'damage = "0"')
    assert run(capsys, with_inflict)[0] == 0
    without = tmp_path / "without.toml"
    # Without its inflict effect and its Hazardous keyword, the weapon would do nothing at all.
    text = with_inflict.read_text().replace('inflict = "Direct Damage 1"\n', "")
    without.write_text(text.replace('keywords = ["Hazardous 1"]\n', ""))
    code, err = run(capsys, without)
    assert code == 2 and "field attacker.weapons[0].damage: is 0: a weapon of no damage and no inflict effect" in err


def test_lose_zero_hp_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = edited(tmp_path, "skilldice-vanguard.toml", "[rules]", 'battle_shock = "Lose 0 HP"\n\n[rules]')
    code, err = run(capsys, path)
    assert code == 2 and "Lose 0 HP does nothing: X must be at least 1" in err


def test_probabilities_are_clamped_to_between_0_and_1() -> None:
    # Sums of floats can stray an ulp or two past 1, as an exact P(unit destroyed) of 1.0000000000000049 did.
    result = Result.from_pmfs(
        [np.array([-1e-17, 1.0000000000000049]), np.array([-2e-18, 1.0000000000000049])],
        ["damage", "models_destroyed"],
        {},
        ruleset="toy",
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=1,
    )
    assert result.p_unit_destroyed == 1.0
    assert result["damage"].pmf.min() == 0.0 and result["damage"].p_at_least().max() == 1.0
    d = result.to_dict()
    assert d["p_unit_destroyed"] == 1.0 and max(d["damage"]["p_at_least"]) == 1.0


@pytest.mark.parametrize("columns", ["0", "1", "-3", "wide"])
def test_a_nonsense_terminal_width_still_prints_the_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert cli.main(["simulate", str(EXAMPLES / "boltguns.toml")]) == 0
    out = capsys.readouterr().out
    assert "P(unit destroyed)" in out and max(len(line) for line in out.splitlines()) >= 20
