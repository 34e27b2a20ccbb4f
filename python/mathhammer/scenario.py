"""Scenario files: TOML in, a ruleset's scenario object out."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mathhammer.exceptions import ScenarioError
from mathhammer.registry import Registry, default_registry


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file.

    Raises:
        ScenarioError: naming the file, for a missing file or malformed TOML.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot be read: {exc.strerror or exc}", source=source) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"is not UTF-8 text: {exc.reason}", source=source) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Quote the line the parser stopped on, so the mistake is in front of the reader.
        found = re.search(r"at line (\d+)", str(exc))
        lineno = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        lines = text.splitlines()
        quoted = f"\n  {lineno} | {lines[lineno - 1]}" if lineno and 0 < lineno <= len(lines) else ""
        raise ScenarioError(f"is not valid TOML: {exc}{quoted}", source=source) from None


def scenario_from_data(data: Mapping[str, Any], *, source: str | None = None, registry: Registry | None = None) -> Any:
    """Load scenario data (a parsed TOML document) with the ruleset it names."""
    registry = registry or default_registry()
    if ("attackers" in data or "targets" in data) and "attacker" not in data and "target" not in data:
        raise ScenarioError(
            "is a profile library (attackers and targets), not one scenario: compare it with "
            "'mathhammer compare FILE', or pick a pairing with 'mathhammer plot FILE -a NAME -t NAME'",
            source=source,
        )
    name = data.get("ruleset")
    if not isinstance(name, str):
        raise ScenarioError(
            'is required: name the ruleset, for example ruleset = "wh40k"', source=source, field="ruleset"
        )
    return registry.ruleset(name, source=source).load(data, source)


def load_scenario(path: str | Path, *, registry: Registry | None = None) -> Any:
    """Read a scenario file and load it with the ruleset it names.

    Raises:
        ScenarioError: naming the file, the field and the value.
    """
    return scenario_from_data(read_toml(path), source=str(path), registry=registry)
