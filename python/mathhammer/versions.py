"""Rules that changed between editions, as named, selectable versions.

A :class:`Rule` names its versions (each with a line saying what it does and
where it comes from), a default, and which version each edition preset
selects. A scenario picks versions per rule, or per weapon, or sets an
edition preset; the Result records the versions that ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mathhammer.exceptions import ScenarioError


@dataclass(frozen=True)
class Rule:
    """A rule with named versions.

    Attributes:
        name: The rule's name, as scenario files spell it (``"Blast"``).
        versions: Version name to a one-line description with its source.
        default: The version used when nothing selects another.
        editions: Edition preset (``"10e"``) to the version it selects.
    """

    name: str
    versions: Mapping[str, str]
    default: str
    editions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for version in (self.default, *self.editions.values()):
            if version not in self.versions:
                raise ValueError(f"rule {self.name!r}: {version!r} is not one of its versions {list(self.versions)}")

    def check(self, version: str, *, source: str | None, field: str) -> str:
        """``version`` if it is one of this rule's, else a ScenarioError listing them."""
        if version not in self.versions:
            known = ", ".join(repr(v) for v in self.versions)
            raise ScenarioError(
                f"{version!r} is not a version of {self.name!r}; its versions are {known}", source=source, field=field
            )
        return version


@dataclass(frozen=True)
class VersionChoice:
    """What a scenario asks for: an edition preset and per-rule versions."""

    edition: str | None = None
    rules: Mapping[str, str] = field(default_factory=dict)

    def resolve(
        self, rule: Rule, *, weapon: Mapping[str, str] | None = None, source: str | None = None, where: str = ""
    ) -> str:
        """The version of ``rule`` to use: the weapon's choice, else the
        scenario's, else the edition preset's, else the rule's default."""
        if weapon and rule.name in weapon:
            return rule.check(weapon[rule.name], source=source, field=f"{where}rules.{rule.name}")
        if rule.name in self.rules:
            return rule.check(self.rules[rule.name], source=source, field=f"rules.{rule.name}")
        if self.edition is not None and self.edition in rule.editions:
            return rule.editions[self.edition]
        return rule.default


def check_choice(
    choice: VersionChoice, rules: Mapping[str, Rule], editions: tuple[str, ...], *, source: str | None
) -> None:
    """Refuse an unknown edition, rule name or version, listing the known ones."""
    if choice.edition is not None and choice.edition not in editions:
        raise ScenarioError(
            f"is {choice.edition!r}; editions: {', '.join(map(repr, editions))}", source=source, field="rules.edition"
        )
    for name, version in choice.rules.items():
        if name not in rules:
            known = ", ".join(repr(n) for n in sorted(rules)) or "none"
            raise ScenarioError(
                f"{name!r} is not a rule with versions; rules: {known}", source=source, field=f"rules.{name}"
            )
        rules[name].check(version, source=source, field=f"rules.{name}")
