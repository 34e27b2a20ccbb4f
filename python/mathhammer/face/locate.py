"""Finding the line of a TOML file that holds a field, so an error can quote it.

``tomllib`` parses to plain dicts and keeps no positions, so errors name a
field by its dotted path (``attacker.weapons[1].skill``). To point a person at
the line, :func:`field_line` reads the file again, follows its table headers
(``[target]``, ``[[attacker.weapons]]``, counting each array of tables) and
keys, and returns the line that sets the field, or the nearest enclosing one
(a value inside an inline table or an array points at the key that holds it).

This is a reader of the common shapes of TOML, not a parser: on a file it
cannot follow it returns ``None`` and the error simply goes without a line.
"""

from __future__ import annotations

import re
from pathlib import Path

from mathhammer.exceptions import ScenarioError
from mathhammer.files import read_text

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*=""")
_PART = re.compile(r"""\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)\s*(?:\.|$)""")


def _parts(dotted: str) -> list[str]:
    return [p.strip("\"'") for p in _PART.findall(dotted)]


def _path(parts: list[str]) -> str:
    out = ""
    for part in parts:
        out += part if part.startswith("[") else (f".{part}" if out else part)
    return out


def field_lines(text: str) -> dict[str, int]:
    """Every field and table of a TOML document by dotted path (``a.b[0].c``), to its 1-based line."""
    lines: dict[str, int] = {}
    counts: dict[str, int] = {}
    table: list[str] = []
    in_multiline = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.count('"""') % 2 or line.count("'''") % 2:
            in_multiline = not in_multiline
            if not in_multiline:
                continue
        elif in_multiline:
            continue
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            keys = _parts(header.group(2))
            if header.group(1) == "[[":
                array = _path([*_resolve(keys[:-1], counts), keys[-1]])
                counts[array] = counts.get(array, -1) + 1
            table = _resolve(keys, counts)
            lines.setdefault(_path(table), number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault(_path([*table, *_parts(key.group(1))]), number)
    return lines


def _resolve(keys: list[str], counts: dict[str, int]) -> list[str]:
    """Table keys with the index of each array of tables they pass through (``[a.b.c]`` inside ``[[a.b]]``)."""
    out: list[str] = []
    for key in keys:
        out.append(key)
        array = _path(out)
        if array in counts:
            out.append(f"[{counts[array]}]")
    return out


def field_line(path: str | Path, field: str) -> tuple[int, str] | None:
    """The line number and text that set ``field`` in the TOML file at ``path``, or of its nearest enclosing field.

    Returns ``None`` when the file cannot be read or holds no part of the field.
    """
    try:
        text = read_text(path)
    except ScenarioError:
        return None
    lines = field_lines(text)
    candidate = field
    while candidate:
        if candidate in lines:
            number = lines[candidate]
            return number, text.splitlines()[number - 1].strip()
        shorter = re.sub(r"(\[\d+\]|\.?[^.\[]+)$", "", candidate)
        if len(shorter) == len(candidate):
            return None  # no dotted path (an army list's element path, "selection[0] \"Name\""): nothing to follow
        candidate = shorter
    return None
