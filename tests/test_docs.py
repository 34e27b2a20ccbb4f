"""The documentation's promises that can be checked: named tests exist, documented commands exist."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from mathhammer.face import cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_every_test_named_in_rules_coverage_exists() -> None:
    text = (DOCS / "rules-coverage.md").read_text(encoding="utf-8")
    named = re.findall(r"`([\w/.-]+\.(py|rs))::(\w+)`", text)
    assert len(named) > 40
    missing = []
    for path, kind, name in named:
        file = ROOT / path.replace("wh40k/", "plugins/mathhammer-wh40k/tests/", 1)
        defined = f"def {name}(" if kind == "py" else f"fn {name}("
        if not file.is_file() or defined not in file.read_text(encoding="utf-8"):
            missing.append(f"{path}::{name}")
    assert missing == []


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_is_documented_in_the_cli_reference() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for command in commands():
        assert f"`{command}" in text, command


def test_every_option_of_every_command_is_documented() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name, parser in commands().items():
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option not in ("--help",):
                    assert f"`{option}" in text, f"{name} {option}"
