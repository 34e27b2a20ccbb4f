"""Fuzzing: any scenario file or dice expression ends in a result or a clear error, never a crash or a hang.

These run with ``make test-slow`` (``pytest -m slow``). Each property is
checked on a few hundred examples by default; the ``fuzz`` profile runs
enough to take about half an hour on a 2-core machine (see
docs/architecture.md, "Testing")::

    .venv/bin/python -m pytest -m slow tests/test_fuzz.py --hypothesis-profile=fuzz

Scenario files start from a valid file of each ruleset (40k, The Ninth Age,
the d12 skill-dice system) and are mutated: values replaced by hostile ones
(huge, negative, of the wrong type, dice junk, control characters, markup),
keys removed, unknown keys added, tables nested. Each is written as TOML and
run through the command line as a person would. An outcome is fine when the
command exits 0 or 2 (a bad input, named); 1 (an internal error), any other
exception, or an example over :data:`HANG_SECONDS` fails.
"""

from __future__ import annotations

import copy
import math
import tomllib
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer import DiceError, parse_dice
from mathhammer.face import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HANG_SECONDS = 10
"""An example that takes longer than this is a hang."""

pytestmark = pytest.mark.slow

FUZZ = settings(
    deadline=timedelta(seconds=HANG_SECONDS),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""A slow example is a hang; the number of examples comes from the profile (100 by default)."""


# ---------------------------------------------------------------------------
# Dice expressions
# ---------------------------------------------------------------------------

DICE_ALPHABET = "0123456789dD+-* \t.xX_,()/"


def dice_expressions() -> st.SearchStrategy[str]:
    """Well-formed expressions, near misses, and junk."""
    number = st.integers(0, 2000).map(str)
    well_formed = st.builds(
        lambda n, s, sign, c: f"{n}D{s}{sign}{c}" if sign else f"{n}D{s}",
        st.one_of(st.just(""), number),
        number,
        st.sampled_from(["", "+", "-"]),
        number,
    )
    near = st.builds(lambda a, b: a + b, well_formed, st.text(DICE_ALPHABET, max_size=4))
    junk = st.text(DICE_ALPHABET, max_size=12)
    anything = st.text(max_size=8)
    return st.one_of(well_formed, near, junk, anything, number)


@FUZZ
@given(dice_expressions())
def test_a_dice_expression_parses_or_is_refused_clearly(text: str) -> None:
    try:
        dice = parse_dice(text)
    except DiceError as exc:
        assert str(exc)  # says what is wrong
        return
    # Whatever parses, prints as an expression that parses to the same dice.
    again = parse_dice(str(dice))
    assert again == dice
    assert dice.min <= dice.mean() <= dice.max
    if dice.count * dice.sides <= 10_000:
        assert math.isclose(float(dice.distribution().sum()), 1.0, abs_tol=1e-9)


# ---------------------------------------------------------------------------
# Scenario files
# ---------------------------------------------------------------------------

SEEDS = {
    "wh40k": ["boltguns.toml", "keywords.toml", "melee-charge.toml", "precision.toml"],
    "t9a": ["t9a-greatswords.toml"],
    "skilldice": ["skilldice-vanguard.toml", "skilldice-fight.toml"],
}
"""Valid files of each ruleset that the mutations start from."""

HOSTILE_TEXT = [
    "",
    " ",
    "D6",
    "2D3+1",
    "D6 1",
    "100D1000",
    "1000000D6",
    "0",
    "-1",
    "3+",
    "7+",
    "1+",
    "Sustained Hits 0",
    "Lethal Hits: ",
    "Anti-Infantry 4+",
    "Devastating Wounds",
    "Lose 0 HP",
    "Shaken",
    "a [/] b",
    "[bold]x",
    "\x1b]0;pwned\x07",
    "\x1b[2J",
    "\u202e",
    "x" * 300,
    "INFANTRY",
    "melee",
    "ranged",
    "B",
    "always",
]


def hostile_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.integers(-3, 12),
        st.sampled_from([0, 1, 2, 6, 100, 10_000, 100_000, 1_000_000, 10**9]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.sampled_from(HOSTILE_TEXT),
        st.text(max_size=20),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["name", "x", "count"]), inner, max_size=3)
        ),
        max_leaves=8,
    )


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in nested dicts and lists."""
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out += _paths(value, (*prefix, i))
    return out


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario of a random ruleset, then a few random mutations of it."""
    ruleset = draw(st.sampled_from(sorted(SEEDS)))
    name = draw(st.sampled_from(SEEDS[ruleset]))
    data = copy.deepcopy(tomllib.loads((EXAMPLES / name).read_text()))
    for _ in range(draw(st.integers(0, 4))):
        paths = _paths(data)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(data, path)
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "duplicate"]))
        if action == "replace":
            parent[path[-1]] = draw(hostile_values())
        elif action == "delete":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["stength", "keywords", "count", "models", "extra", "rules"]))] = draw(
                hostile_values()
            )
        elif action == "duplicate" and isinstance(parent, list):
            parent.extend([copy.deepcopy(parent[path[-1]])] * draw(st.integers(1, 50)))
    return data


def toml_value(value: Any) -> str:
    """``value`` as a TOML inline value (TOML has no null; None cannot occur in parsed data)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        escaped = "".join(
            c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
            for c in value
        )
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def to_toml(data: dict[str, Any]) -> str:
    return "\n".join(f"{toml_value(str(key))} = {toml_value(value)}" for key, value in data.items()) + "\n"


def test_the_toml_writer_round_trips_the_examples() -> None:
    for names in SEEDS.values():
        for name in names:
            data = tomllib.loads((EXAMPLES / name).read_text())
            assert tomllib.loads(to_toml(data)) == data


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    _, err = capsys.readouterr()
    return code, err


@FUZZ
@given(data=scenarios())
def test_any_scenario_file_gives_a_result_or_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory, data: dict[str, Any]
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "scenario.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    for args in (
        ("simulate", str(path), "--trials", "300", "--seed", "1"),
        ("explain", str(path), "--seed", "1"),
        ("compare", str(path), "--monte-carlo", "--trials", "200", "--seed", "1"),
    ):
        code, err = _run(capsys, *args)
        assert code in (0, 2), f"{args[0]} exited {code}: {err}"
        if code == 2:
            assert err.startswith("mathhammer: error: ") and "internal error" not in err, err
        assert "\x1b" not in err
