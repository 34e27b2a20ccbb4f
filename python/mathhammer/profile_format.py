"""How a ruleset's scenarios split into the named profiles ``compare`` reads, and join back.

Most rulesets attack from an ``[attacker]`` table, and a profile library's
``[attackers.NAME]`` is that table. A ruleset may say otherwise through its
optional ``profile_format`` (a :class:`~mathhammer.ruleset.ProfileFormat`):
where its attacking side lives (The Ninth Age's ``[[attack]]`` list), whether
an attacker's ``models`` is its own field (the d12 system's), and which
scenarios cannot be a comparison's cell (a fight of two units).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mathhammer.exceptions import ScenarioError
from mathhammer.registry import Registry, default_registry
from mathhammer.ruleset import ProfileFormat

DEFAULT = ProfileFormat()
"""The format of a ruleset that gives none: the ``[attacker]`` table is the attacker."""


def profile_format(ruleset: str, registry: Registry | None = None) -> ProfileFormat:
    """The profile format of the ruleset called ``ruleset``; the default for one not installed (loading the
    pairing then names it, with the rulesets that are)."""
    found = (registry or default_registry()).rulesets.get(ruleset)
    given = getattr(found, "profile_format", None)
    return given if isinstance(given, ProfileFormat) else DEFAULT


def refuse_cells(fmt: ProfileFormat, keys: Iterable[str], source: str | None, where: str = "") -> None:
    """Refuse scenario keys that make a pairing no comparison cell (``[fight]``), naming the field.

    Raises:
        ScenarioError: naming ``source`` and the key (under ``where``), with what to do instead.
    """
    for key in keys:
        if key in fmt.refused:
            raise ScenarioError(fmt.refused[key], source=source, field=f"{where}{key}")


def scenario_attacker(fmt: ProfileFormat, data: Mapping[str, Any]) -> Any:
    """The attacking side of a parsed scenario file, as a profile holds it; ``None`` when it has none."""
    if fmt.attacker_key == "attacker":
        return data.get("attacker")
    return {fmt.attacker_key: data[fmt.attacker_key]} if fmt.attacker_key in data else None


def library_attacker(fmt: ProfileFormat, table: Mapping[str, Any], source: str, where: str) -> None:
    """Check an attacker profile of a ruleset whose attacking side is no ``[attacker]`` table: it holds that
    side's key and nothing else (``points``, ``models`` and ``scenario`` already taken out).

    Raises:
        ScenarioError: naming the first other key, or the missing one.
    """
    if fmt.attacker_key == "attacker":
        return
    key = fmt.attacker_key
    for other in table:
        if other != key:
            raise ScenarioError(
                f"is not a field of an attacker here: an attacker is its [[{where}.{key}]] tables (a scenario's"
                f" [[{key}]]), with points, models and scenario beside them",
                source=source,
                field=f"{where}.{other}",
            )
    if key not in table:
        raise ScenarioError(
            f"is required: give the attacker's [[{where}.{key}]] tables, as a scenario's [[{key}]]",
            source=source,
            field=f"{where}.{key}",
        )


def attacker_data(fmt: ProfileFormat, table: Any) -> dict[str, Any]:
    """An attacker profile's table as the scenario keys it stands for: ``{"attacker": table}``, or the side's
    own key (``{"attack": [...]}``)."""
    if fmt.attacker_key == "attacker" or not isinstance(table, Mapping):
        return {fmt.attacker_key: table}
    return {fmt.attacker_key: table.get(fmt.attacker_key)}


def attacker_field(fmt: ProfileFormat, field_: str, profile_field: str) -> str | None:
    """``field_`` of a pairing's scenario as a field of the attacker profile at ``profile_field``; ``None``
    when it is not the attacker's."""
    key = fmt.attacker_key
    if not (field_ == key or field_.startswith((f"{key}.", f"{key}["))):
        return None
    if key == "attacker":
        return profile_field + field_[len(key) :]
    return f"{profile_field}.{field_}" if profile_field else field_
