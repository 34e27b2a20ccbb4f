"""User text is shown as written: never read as rich markup, never sent to the terminal as control codes."""

from __future__ import annotations

from pathlib import Path

import pytest

import mathhammer
from mathhammer import registry
from mathhammer.display import markup, plain, printable
from mathhammer.face import cli
from mathhammer.testing import plugin_object, toy_registry

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Markup rich would read, an OSC that sets the window title, a CSI that clears
# the screen, the one-byte C1 CSI, a carriage return, a bidirectional override,
# and dollars that matplotlib would read as mathtext.
HOSTILE = "a [/] b [bold]x \x1b]0;pwned\x07 \x1b[2J \x9b31m \r \u202e $y$"
HOSTILE_TOML = HOSTILE.encode("unicode_escape").decode("ascii").replace("\\x", "\\u00").replace('"', '\\"')
RAW = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


def test_printable_escapes_every_control_but_newlines_and_tabs() -> None:
    assert printable("a\x1b[2Jb\x07\x9b\x00\x7f") == "a\\x1b[2Jb\\x07\\x9b\\x00\\x7f"
    assert printable("one\n\ttwo") == "one\n\ttwo"
    assert printable("one\ntwo", lines=False) == "one\\x0atwo"
    assert printable("\u202eevil") == "\\u202eevil"
    assert printable("café ⚔ [bold]") == "café ⚔ [bold]"  # everything printable is left alone


def test_plain_and_markup_show_brackets_as_written() -> None:
    assert plain("a [/] b [bold]x").plain == "a [/] b [bold]x"
    from rich.text import Text

    assert Text.from_markup(markup("a [/] b [bold]x\x1b")).plain == "a [/] b [bold]x\\x1b"


def _hostile_scenario(directory: Path) -> Path:
    text = (EXAMPLES / "boltguns.toml").read_text()
    text = text.replace('name = "Boltgun"', f'name = "{HOSTILE_TOML}"')
    text = text.replace('name = "Intercessor Squad"', f'name = "{HOSTILE_TOML}"')
    text = text.replace('name = "Intercessor"', f'name = "{HOSTILE_TOML} model"')
    path = directory / "evil [bold]x \x1b[2J.toml"  # file names are user text too
    path.write_text(text)
    return path


def _assert_safe(text: str) -> None:
    for raw in RAW:
        assert raw not in text, f"{raw!r} printed raw"


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "{file}"],
        ["simulate", "{file}", "--json"],
        ["simulate", "{file}", "--monte-carlo", "--trials", "1000", "--seed", "1"],
        ["compare", "{file}", "{file2}"],
        ["compare", "{file}", "--plot", "{dir}/heat.svg"],
        ["plot", "{file}", "{file2}", "-o", "{dir}/chart.html"],
        ["plot", "{file}", "-o", "{dir}/chart.svg"],
        ["explain", "{file}", "--seed", "3"],
        ["explain", "{file}", "--seed", "3", "--json"],
    ],
    ids=lambda c: " ".join(c[:1] + [a for a in c if a.startswith("-")]),
)
def test_every_command_shows_hostile_names_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    scenario = _hostile_scenario(tmp_path)
    second = tmp_path / "second.toml"
    second.write_text((EXAMPLES / "boltguns.toml").read_text())
    args = [a.format(file=scenario, file2=second, dir=tmp_path) for a in command]
    assert cli.main(args) == 0
    out, err = capsys.readouterr()
    _assert_safe(out + err)
    if command[0] == "compare" and "--json" not in command:
        assert "a [/] b [bold]x \\x1b]0;pwned\\x07" in out  # the target's name, shown as written
        assert "evil [bold]x \\x1b[2J" in out  # the attacker's, from the file name
    if command[0] == "explain" and "--json" not in command:
        assert "[bold]x" in out
    for image in tmp_path.glob("*.svg"):
        _assert_safe(image.read_text())


@pytest.mark.parametrize(
    ("old", "new", "quoted"),
    [
        ('damage = "1"', f'damage = "1"\nkeywords = ["{HOSTILE_TOML}"]', "is not a keyword"),  # quoted back
        ('name = "Boltgun"', 'name = "x\x1b[2J"', "is not valid TOML"),  # a raw control: invalid, the line quoted
        ('skill = "3+"', f'skill = "{HOSTILE_TOML}"', "skill"),
    ],
    ids=["unknown-keyword", "raw-control", "bad-value"],
)
def test_errors_quote_hostile_text_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old: str, new: str, quoted: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text((EXAMPLES / "boltguns.toml").read_text().replace(old, new))
    for command in (["simulate"], ["compare"], ["explain"], ["plot", "-o", str(tmp_path / "x.png")]):
        assert cli.main([*command, str(path)]) == 2
        err = capsys.readouterr().err
        assert quoted in err
        _assert_safe(err)


def test_plugins_lists_a_hostile_plugin_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    @mathhammer.hookimpl
    def mathhammer_register_rulesets(register: object) -> None:
        raise RuntimeError(HOSTILE)

    evil = plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)
    reg = toy_registry(("evil\x1b[2J [bold]", evil))
    monkeypatch.setattr(registry, "_default", reg)
    assert cli.main(["plugins"]) == 0
    out, err = capsys.readouterr()
    _assert_safe(out + err)
    assert "evil\\x1b[2J [bold]" in out and "[bold]x" in out
