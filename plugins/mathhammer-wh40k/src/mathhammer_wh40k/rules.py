"""40k rules that are pure arithmetic: the wound table, allocation groups and order.

Section names refer to the specification, ``wh40k-attack-sequence.txt`` (11th
edition's text) and ``wh40k-mortal-wounds-hit-modifiers-blast.txt``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mathhammer.plugin import ScenarioError
from mathhammer_wh40k.model import ModelProfile, Target

HIT_MODIFIER_CAP = 1
"""Hit rolls: "A hit roll can never be modified by more than -1 or +1"."""
WOUND_MODIFIER_CAP = 1
"""Wound rolls: net modifiers capped at +/-1 (11th edition, as for hits)."""

ORDER_RULE = (
    "Making Attacks, Save Rolls, step 2 Allocation Order: no CHARACTER group can be earlier in the "
    "allocation order than a non-CHARACTER group"
)


def wound_target(strength: int, toughness: int) -> int:
    """The wound roll needed, comparing Strength with Toughness (the spec's table).

    >>> [wound_target(s, 4) for s in (2, 3, 4, 5, 8)]
    [6, 5, 4, 3, 2]
    """
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


@dataclass(frozen=True)
class AllocationGroup:
    """Models that share W, Sv and InSv (or one CHARACTER model)."""

    name: str
    models: int
    profile: ModelProfile
    character: bool
    members: tuple[str, ...]
    points: float | None = None
    """What the group's models cost together: the sum of its entries' ``points`` (a CHARACTER entry of
    several models shares its points among their groups); ``None`` when its entries give none."""


def create_groups(target: Target, source: str | None = None) -> list[AllocationGroup]:
    """Create Groups: one per CHARACTER model; one for all other models with the same W, Sv and InSv.

    Model entries that fall into one group must also share Feel No Pain, since
    which of them takes a given wound is the defender's choice that the rules
    leave open; a scenario that mixes them is refused rather than guessed.
    """
    groups: list[AllocationGroup] = []
    shared: dict[tuple[int, int | None, int | None], int] = {}
    for i, m in enumerate(target.models):
        if m.character:
            share = None if m.points is None else m.points / m.count
            for k in range(m.count):
                name = m.name if m.count == 1 else f"{m.name} {k + 1}"
                groups.append(AllocationGroup(name, 1, m, True, (m.name,), share))
            continue
        key = (m.wounds, m.save, m.invulnerable)
        if key not in shared:
            shared[key] = len(groups)
            groups.append(AllocationGroup(m.name, m.count, m, False, (m.name,), m.points))
            continue
        g = groups[shared[key]]
        if (g.points is None) != (m.points is None):
            raise ScenarioError(
                f"{m.name!r} shares W, Sv and InSv with {g.members[0]!r}, so they form one allocation group, "
                "but only one of them gives points; give points on both entries or on neither (the unit's "
                "points are then shared among the models that give none)",
                source=source,
                field=f"target.models[{i}].points",
            )
        if _defences(g.profile) != _defences(m):
            raise ScenarioError(
                f"{m.name!r} shares W, Sv and InSv with {g.members[0]!r}, so they form one allocation group, "
                "but their Feel No Pain or damage reduction differs; give them the same",
                source=source,
                field=f"target.models[{i}]",
            )
        points = None if g.points is None or m.points is None else g.points + m.points
        groups[shared[key]] = AllocationGroup(
            f"{g.name} + {m.name}", g.models + m.count, g.profile, False, (*g.members, m.name), points
        )
    return groups


def _defences(m: ModelProfile) -> tuple[object, ...]:
    """What, besides W, Sv and InSv, changes how a model takes damage."""
    return (m.feel_no_pain, m.feel_no_pain_mortal, m.feel_no_pain_psychic, m.damage_reduction, m.halve_damage)


def allocation_order(target: Target, groups: list[AllocationGroup], source: str | None = None) -> list[int]:
    """The declared allocation order as group indices.

    ``target.allocation_order`` names models; each name brings its group.
    The named groups keep the order they are named in; groups not named follow
    the default order (non-CHARACTER groups as listed, then CHARACTER groups
    as listed), each unnamed non-CHARACTER group before any CHARACTER group.
    Naming a CHARACTER before a non-CHARACTER is refused, citing the rule.
    (No model starts wounded, so the rules about wounded groups cannot be
    broken by a declared order; the core applies them between pools.)
    """
    named: list[int] = []
    for j, name in enumerate(target.allocation_order):
        found = [i for i, g in enumerate(groups) if name in g.members or name == g.name]
        if not found:
            known = ", ".join(repr(n) for n in dict.fromkeys(m.name for m in target.models))
            raise ScenarioError(
                f"names {name!r}, which is not a model of the target; models: {known}",
                source=source,
                field=f"target.allocation_order[{j}]",
            )
        named += [i for i in found if i not in named]
    seen_character = None
    for i in named:
        if groups[i].character:
            seen_character = seen_character or groups[i].name
        elif seen_character is not None:
            raise ScenarioError(
                f"puts CHARACTER {seen_character!r} before non-CHARACTER {groups[i].name!r}; {ORDER_RULE}",
                source=source,
                field="target.allocation_order",
            )
    unnamed = [i for i in range(len(groups)) if i not in named]
    return (
        [i for i in named if not groups[i].character]
        + [i for i in unnamed if not groups[i].character]
        + [i for i in named if groups[i].character]
        + [i for i in unnamed if groups[i].character]
    )
