"""The command line: simulate (text and --json), plugins, and errors without tracebacks."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest

from mathhammer.face import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("simulate", str(EXAMPLES / "boltguns.toml"), "--trials", "20000", "--seed", "1", "--monte-carlo")
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "Models destroyed" in out and "Monte Carlo, 20,000 trials, seed 1" in out
    assert "P(=k)" in out and "P(≥k)" in out and "█" in out  # the distributions, as bar charts
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_simulate_names_the_ruleset_and_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "boltguns.toml"))
    assert code == 0 and out.startswith(f"wh40k {version('mathhammer-wh40k')} · exact · ")
    assert "Rules that ran:" in out and "  attack_sequence (11e): specification (11th-edition text)" in out


def test_simulate_is_exact_when_it_can_be(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "boltguns.toml"), "--json")
    d = json.loads(out)
    assert code == 0 and d["evaluator"] == "exact" and d["trials"] == 0 and d["seed"] is None
    assert abs(d["models_destroyed"]["mean"] - 1.416742) < 5e-7
    assert abs(sum(d["damage"]["pmf"]) - 1) < 1e-12


def test_simulate_falls_back_to_monte_carlo_and_exact_says_why_it_cannot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A target of four allocation groups is beyond the exact evaluator's state for now.
    example = str(tmp_path / "four-groups.toml")
    text = (EXAMPLES / "boltguns.toml").read_text()
    for i, save in enumerate(["2+", "4+", "5+"]):
        text += f'\n[[target.models]]\nname = "Other {i}"\nwounds = 1\nsave = "{save}"\n'
    Path(example).write_text(text)
    code, out, _ = run(capsys, "simulate", example, "--trials", "20000", "--seed", "3", "--json")
    assert code == 0 and json.loads(out)["evaluator"] == "monte_carlo"
    code, _, err = run(capsys, "simulate", example, "--exact")
    assert code == 2 and "the exact evaluator declines this plan" in err and "more than 3 allocation groups" in err


def test_simulate_json_has_every_stage(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("simulate", str(EXAMPLES / "boltguns.toml"), "--trials", "20000", "--seed", "2", "--json", "--monte-carlo")
    code, out, _ = run(capsys, *args)
    d = json.loads(out)
    assert code == 0
    assert (d["ruleset"], d["evaluator"], d["trials"], d["seed"]) == ("wh40k", "monte_carlo", 20000, 2)
    assert d["ruleset_version"] == version("mathhammer-wh40k")
    for stage in ("attacks", "hits", "wounds", "failed_saves", "mortal_wounds", "damage", "models_destroyed"):
        assert {"mean", "se"} <= set(d[stage])
    assert abs(sum(d["models_destroyed"]["pmf"]) - 1) < 1e-12


def test_plugins_lists_the_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plugins")
    assert code == 0 and "wh40k" in out and "Warhammer 40,000" in out


def test_errors_name_the_file_and_field_without_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((EXAMPLES / "boltguns.toml").read_text().replace('skill = "3+"', 'skill = "9+"'))
    code, out, err = run(capsys, "simulate", str(bad), "--trials", "10")
    assert code == 2 and out == ""
    assert f"{bad}, field attacker.weapons[0].skill: is 9; BS must be a roll from 2+ to 6+" in err
    assert f'\n  {bad}, line 10: skill = "9+"\n' in err  # the line, quoted under the message
    assert "Traceback" not in err


def test_malformed_toml_is_reported_with_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text('ruleset = "wh40k"\n[target\n')
    code, _, err = run(capsys, "simulate", str(bad))
    assert code == 2 and "broken.toml: is not valid TOML" in err and "line 2" in err


def test_missing_file_and_unknown_ruleset(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "simulate", str(tmp_path / "nope.toml"))
    assert code == 2 and "nope.toml: cannot be read" in err
    other = tmp_path / "chess.toml"
    other.write_text('ruleset = "chess"\n')
    code, _, err = run(capsys, "simulate", str(other))
    assert code == 2 and "unknown ruleset 'chess'; installed rulesets: " in err and "wh40k" in err


def test_bad_trials_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["simulate", str(EXAMPLES / "boltguns.toml"), "--trials", "0"])
    assert info.value.code == 2
    assert "'0' must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--trials", "18446744073709551616", "more than the 1,000,000,000,000 trials one run allows"),
        ("--threads", "-1", "'-1' must be 0 (every core) or a count up to 1024"),
        ("--threads", "many", "'many' is not a whole number"),
    ],
)
def test_run_options_are_argument_errors(
    capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["simulate", str(EXAMPLES / "boltguns.toml"), option, value])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".png", ".svg", ".html"])
def test_plot_writes_an_image(capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"boltguns{suffix}"
    code, printed, _ = run(capsys, "plot", str(EXAMPLES / "boltguns.toml"), "-o", str(out))
    assert code == 0 and printed == f"wrote {out}\n"
    assert out.stat().st_size > 1000


def test_plot_of_several_files_compares_them_in_one_page(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "both.html"
    files = [str(EXAMPLES / "boltguns.toml"), str(EXAMPLES / "attack-sequence-example.toml")]
    code, _, _ = run(capsys, "plot", *files, "-o", str(out))
    page = out.read_text()
    # Named after the scenarios (their attackers, as they share no target), not the files.
    title = "Boltgun, Boltgun + Bolt pistol + Heavy bolter vs Intercessor Squad, BLUE unit · exact"
    assert code == 0 and f"<h1>{title}</h1>" in page
    assert "<h2>Boltgun vs Intercessor Squad</h2>" in page
    assert "<h2>Boltgun + Bolt pistol + Heavy bolter vs BLUE unit</h2>" in page


def test_plot_refuses_an_unknown_image_type_before_evaluating(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "plot", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "out.gif"))
    assert code == 2 and "out.gif: cannot write a .gif file; name it .png, .svg or .html" in err


def test_debug_shows_the_traceback_wherever_it_is_given(tmp_path: Path) -> None:
    from mathhammer import ScenarioError

    with pytest.raises(ScenarioError, match="cannot be read"):
        cli.main(["simulate", str(tmp_path / "nope.toml"), "--debug"])


def test_compare_prints_a_matrix_per_metric(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compare", str(EXAMPLES / "profiles.toml"), "-a", "lascannons", "-t", "rhino")
    assert code == 0
    for title in ("Expected models destroyed", "Expected damage", "P(unit destroyed)"):
        assert title in out
    assert "1 pairing: 1 exact · " in out
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_compare_mixes_scenario_files_and_libraries_and_plots_a_heatmap(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    image = tmp_path / "matrix.svg"
    args = [str(EXAMPLES / "profiles.toml"), str(EXAMPLES / "boltguns.toml"), "-a", "boltguns", "-a", "bolt-rifles"]
    args += ["-t", "Intercessor Squad", "-t", "guardsmen", "--metric", "models_destroyed", "--plot", str(image)]
    code, out, _ = run(capsys, "compare", *args)
    assert code == 0 and f"wrote {image}" in out
    assert "Expected damage" not in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith(("boltguns", "bolt-"))}
    assert rows["boltguns"][0] == "1.42"  # the exact mean of examples/boltguns.toml
    assert image.read_text().count("<svg") == 1


def test_compare_json_holds_every_cell(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", str(EXAMPLES / "profiles.toml"), "-a", "plasma", "-t", "rhino", "-t", "terminators", "--json"]
    code, out, _ = run(capsys, *args, "--monte-carlo", "--trials", "5000", "--seed", "3")
    d = json.loads(out)
    assert code == 0 and d["attackers"] == ["plasma"] and d["targets"] == ["rhino", "terminators"]
    assert [c["result"]["seed"] for c in d["cells"]] == [3, 4]


def test_compare_names_unknown_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "compare", str(EXAMPLES / "profiles.toml"), "-a", "titan")
    assert code == 2 and "no attacker named 'titan'; the attackers read are: bolt-rifles," in err


def test_explain_replays_a_worked_example_from_its_dice(capsys: pytest.CaptureFixture[str]) -> None:
    dice = "3,5,6,2,4, 1,3,5,6, 4,2,6, 4,1,5, 3,6, 5,3"
    code, out, _ = run(capsys, "explain", str(EXAMPLES / "attack-sequence-example.toml"), "--dice", dice)
    assert code == 0 and out.startswith("1. Boltgun + Bolt pistol (attacks)\n")
    assert "5 hit rolls (needs 3+): 3, 5, 6*, 2, 4. 4 of 5 succeed" in out and "seed" not in out


def test_explain_with_a_seed_says_how_to_tell_it_again(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", str(EXAMPLES / "boltguns.toml"), "--seed", "5")
    assert code == 0 and "the same --seed tells the same attack" in out and out.count("seed 5 (") == 1
    code, again, _ = run(capsys, "explain", str(EXAMPLES / "boltguns.toml"), "--seed", "5", "--json")
    d = json.loads(again)
    assert d["seed"] == 5 and len(d["dice"]) == int(out.split("seed 5 (")[1].split()[0])
    assert d["narration"][0] == "1. Boltgun (attacks)" and d["events"][0]["event"] == "sequence"


def test_explain_with_too_few_dice_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", str(EXAMPLES / "boltguns.toml"), "--dice", "1,2,3")
    assert code == 2 and out == "" and "ran out after 3 values" in err and "Traceback" not in err


def test_an_image_that_cannot_be_written_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "no-such-directory" / "out.png"
    code, _, err = run(capsys, "plot", str(EXAMPLES / "boltguns.toml"), "-o", str(out))
    assert code == 2 and f"mathhammer: error: {out}: No such file or directory" in err and "Traceback" not in err


def test_a_missing_extra_names_the_pip_install(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "matplotlib.figure", raising=False)
    code, _, err = run(capsys, "plot", str(EXAMPLES / "boltguns.toml"), "-o", str(tmp_path / "out.png"))
    assert code == 2
    assert "plotting needs matplotlib, which is not installed; install it with: pip install 'mathhammer[plot]'" in err


def test_a_bug_is_reported_briefly_with_the_way_to_see_more(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("oops")

    monkeypatch.setattr(cli, "load_scenario", broken)
    code, _, err = run(capsys, "simulate", str(EXAMPLES / "boltguns.toml"))
    assert code == 1 and "internal error: KeyError: 'oops'" in err and "--debug" in err and "Traceback" not in err


def test_plot_of_library_pairings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "anti-tank.html"
    args = [str(EXAMPLES / "profiles.toml"), "-a", "lascannons", "-a", "meltaguns", "-t", "rhino", "-o", str(out)]
    code, _, _ = run(capsys, "plot", *args)
    page = out.read_text()
    assert code == 0 and "<h1>lascannons, meltaguns vs rhino · exact</h1>" in page
    assert "<h2>lascannons vs rhino</h2>" in page and "<h2>meltaguns vs rhino</h2>" in page


def test_compare_says_where_attackers_come_from(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    targets_only = tmp_path / "targets.toml"
    targets_only.write_text('ruleset = "wh40k"\n[targets.rhino]\ntoughness = 9\n')
    code, _, err = run(capsys, "compare", str(targets_only))
    assert code == 2 and "the files give no attackers: a scenario file gives one through its [attacker] table" in err


def test_plot_of_a_library_draws_small_multiples_past_a_dozen_pairings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "grid.svg"
    picks = ["-a", "lascannons", "-a", "meltaguns", "-a", "bolt-rifles"]
    for target in ("guardsmen", "intercessors", "plague-marines", "terminators", "rhino"):
        picks += ["-t", target]
    code, _, _ = run(capsys, "plot", str(EXAMPLES / "profiles.toml"), *picks, "-o", str(out))
    svg = out.read_text()
    assert code == 0 and "Models destroyed: P(exactly k) · lascannons, meltaguns, bolt-rifles vs 5 targets" in svg
    assert svg.count("mean ") == 15  # one panel per pairing


def test_plot_of_too_many_pairings_asks_for_a_filter_before_evaluating(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    library = tmp_path / "big.toml"
    gun = '[[attackers.a{i}.weapons]]\nname = "Gun"\nattacks = "1"\nskill = "3+"\nstrength = 4\ndamage = "1"\n'
    unit = '[targets.t{j}]\ntoughness = 4\n[[targets.t{j}.models]]\nname = "M"\nwounds = 1\n'
    text = (
        'ruleset = "wh40k"\n'
        + "".join(gun.format(i=i) for i in range(11))
        + "".join(unit.format(j=j) for j in range(6))
    )
    library.write_text(text)
    code, _, err = run(capsys, "plot", str(library), "-o", str(tmp_path / "out.png"))
    assert code == 2 and "the files give 66 pairings, too many to chart readably (at most 64)" in err
    assert "-a NAME and -t NAME" in err and not (tmp_path / "out.png").exists()
