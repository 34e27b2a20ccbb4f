"""Scenario files: TOML in, a ruleset's scenario object out."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mathhammer.exceptions import ScenarioError
from mathhammer.files import read_text
from mathhammer.registry import Registry, default_registry


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file.

    The file is read by :func:`mathhammer.files.read_text`: a regular file of
    at most 1 MiB, UTF-8, a byte-order mark allowed.

    Raises:
        ScenarioError: naming the file, for a file that cannot be read, malformed
            TOML, or arrays and tables nested more than :data:`MAX_NESTING` deep.
    """
    return parse_toml(read_text(path), str(path))


def parse_toml(text: str, source: str | None = None) -> dict[str, Any]:
    """Parse scenario TOML from text, as :func:`read_toml` does a file's (the web page's imports).

    Raises:
        ScenarioError: naming ``source``, for malformed TOML or nesting deeper than :data:`MAX_NESTING`.
    """
    try:
        data = tomllib.loads(text)
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise _too_deep(source) from None
    except tomllib.TOMLDecodeError as exc:
        # Quote the line the parser stopped on, so the mistake is in front of the reader.
        found = re.search(r"at line (\d+)", str(exc))
        lineno = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        lines = text.splitlines()
        quoted = f"\n  {lineno} | {lines[lineno - 1]}" if lineno and 0 < lineno <= len(lines) else ""
        raise ScenarioError(f"is not valid TOML: {exc}{quoted}", source=source) from None
    check_nesting(data, source)
    return data


def check_nesting(data: object, source: str | None = None) -> None:
    """Refuse data nesting arrays and tables more than :data:`MAX_NESTING` deep (a scenario sent as JSON too).

    Raises:
        ScenarioError: naming ``source``.
    """
    if _depth(data) > MAX_NESTING:
        raise _too_deep(source)


MAX_NESTING = 32
"""How deeply arrays and tables may nest in a scenario file; a scenario needs five or six levels."""


def _depth(value: object) -> int:
    """How deeply ``value`` nests lists and dicts, counted without recursion (it may be thousands deep)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_NESTING:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _too_deep(source: str | None) -> ScenarioError:
    return ScenarioError(
        f"nests arrays or tables more than {MAX_NESTING} deep; a scenario needs only a few levels", source=source
    )


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
