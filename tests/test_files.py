"""Reading the user's files: only regular files of at most 1 MiB, UTF-8 with or without a byte-order mark."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mathhammer.exceptions import ScenarioError
from mathhammer.face import cli
from mathhammer.files import MAX_FILE_BYTES, read_text
from mathhammer.scenario import MAX_NESTING, read_toml

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('ruleset = "wh40k"  # é\n', encoding="utf-8")
    assert read_text(path) == 'ruleset = "wh40k"  # é\n'


def test_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbfruleset = 'wh40k'\n")
    assert read_toml(path) == {"ruleset": "wh40k"}


def test_a_scenario_saved_with_a_byte_order_mark_simulates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / "boltguns.toml").read_bytes())
    assert cli.main(["simulate", str(path)]) == 0
    assert "P(unit destroyed)" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match=r"pipe\.toml: cannot be read: it is a pipe \(FIFO\), not a file"):
        read_text(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused() -> None:
    with pytest.raises(ScenarioError, match="/dev/zero: cannot be read: it is a device, not a file"):
        read_text("/dev/zero")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot be read: it is a directory, not a file"):
        read_text(tmp_path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"nothing\.toml: cannot be read: No such file"):
        read_text(tmp_path / "nothing.toml")


def test_a_file_over_the_limit_is_refused_and_one_at_it_is_read(tmp_path: Path) -> None:
    at_limit = tmp_path / "at.toml"
    at_limit.write_bytes(b"#" * MAX_FILE_BYTES)
    assert len(read_text(at_limit)) == MAX_FILE_BYTES
    over = tmp_path / "big.toml"
    over.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ScenarioError, match=r"big\.toml: is too large: 1,048,577 bytes, over the 1,048,576"):
        read_text(over)


def test_text_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(b"name = 'caf\xe9'\n")
    with pytest.raises(ScenarioError, match=r"latin\.toml: is not UTF-8 text: .* at byte 11"):
        read_text(path)


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000,  # an array left open 100,000 deep
        "a = " + "[" * 50_000 + "]" * 50_000,  # closed, and just as deep
        "a = " + "{b = " * 20_000,  # inline tables
        "[[" * 50_000,
        "a = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1),  # just over the documented depth
    ],
    ids=["open-arrays", "closed-arrays", "inline-tables", "headers", "just-over"],
)
def test_deeply_nested_toml_is_a_bad_input_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=r"deep\.toml: "):
        read_toml(path)
    for command in ("simulate", "compare", "plot", "explain"):
        args = [command, str(path)] + (["-o", str(tmp_path / "x.svg")] if command == "plot" else [])
        assert cli.main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mathhammer: error: {path}: ") and "internal" not in err


def test_nesting_up_to_the_limit_parses(tmp_path: Path) -> None:
    path = tmp_path / "nested.toml"
    path.write_text("a = " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1))
    assert "a" in read_toml(path)


@pytest.mark.parametrize("command", ["simulate", "compare", "explain"])
def test_every_command_refuses_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    assert cli.main([command, str(tmp_path)]) == 2
    assert "it is a directory, not a file" in capsys.readouterr().err
