"""Rules that changed between editions, as named, selectable versions.

A :class:`Rule` names its versions (each with a sentence saying where it
comes from and what it does), a default, and which version each edition
preset selects. A scenario picks versions per rule, or per weapon, or sets an
edition preset; the Result records the versions that ran and, in words, what
each of them did (:func:`describe`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mathhammer.exceptions import ScenarioError


@dataclass(frozen=True)
class Rule:
    """A rule with named versions.

    Attributes:
        name: The rule's name, as scenario files spell it (``"Blast"``).
        versions: Version name to a short sentence saying where the version
            comes from and what it does, source first:
            ``"specification (9th-edition text): at least 3 attacks against
            6-10 models; maximum against 11+"``. Reports print it as it is,
            so it is required and must be one line.
        default: The version used when nothing selects another.
        editions: Edition preset (``"10e"``) to the version it selects.
    """

    name: str
    versions: Mapping[str, str]
    default: str
    editions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for version, sentence in self.versions.items():
            if not isinstance(sentence, str) or not sentence.strip() or "\n" in sentence:
                raise ValueError(
                    f"rule {self.name!r}: version {version!r} needs a one-line sentence saying what it does "
                    f"(reports print it), not {sentence!r}"
                )
        for version in (self.default, *self.editions.values()):
            if version not in self.versions:
                raise ValueError(f"rule {self.name!r}: {version!r} is not one of its versions {list(self.versions)}")

    def describe(self, versions: Sequence[str]) -> str:
        """What ``versions`` (those that ran, usually one) do, in words.

        One version gives its sentence; several (weapons that chose
        differently) give each sentence after its version's name.
        """
        if len(versions) == 1:
            return self.versions[versions[0]]
        return "; ".join(f"{v}: {self.versions[v]}" for v in versions)

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

    def chosen_by(
        self, rule: Rule, *, weapon: Mapping[str, str] | None = None, where: str = ""
    ) -> tuple[str, str] | None:
        """The field that chooses the version of ``rule``, as :meth:`resolve` reads them, and its value
        (``("rules.Blast", "spec")``); ``None`` when nothing does and the rule's default applies."""
        if weapon and rule.name in weapon:
            return f"{where}rules.{rule.name}", weapon[rule.name]
        if rule.name in self.rules:
            return f"rules.{rule.name}", self.rules[rule.name]
        if self.edition is not None and self.edition in rule.editions:
            return "rules.edition", self.edition
        return None


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


def describe(rules: Mapping[str, Rule], used: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Rule name to what the versions that ran do, in words, for each rule of ``used`` in ``rules``.

    Args:
        rules: The rules with versions, by name.
        used: Rule name to the versions that ran; names not in ``rules`` are skipped.
    """
    return {name: rules[name].describe(list(versions)) for name, versions in used.items() if name in rules}
