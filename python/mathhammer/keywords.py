"""Weapon keywords: what a plugin registers, and how a ruleset finds them.

A keyword is data plus two callables: ``parse`` recognises its datasheet
spelling (``Sustained Hits D3``, ``Anti-Infantry 4+``) and returns its
parameters, and ``apply`` edits the Plan the ruleset is building.
What ``apply`` receives is the ruleset's contract with its keywords; each
ruleset documents it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mathhammer import _core
from mathhammer.exceptions import PluginConflictError
from mathhammer.versions import Rule


def exact_name(name: str) -> Callable[[str], Mapping[str, Any] | None]:
    """A parser that accepts the keyword's name alone, in any case."""

    wanted = re.sub(r"\s+", " ", name.strip()).casefold()

    def parse(text: str) -> Mapping[str, Any] | None:
        return {} if re.sub(r"\s+", " ", text.strip()).casefold() == wanted else None

    return parse


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip()).casefold()


def with_value(name: str, kind: str = "dice", *, optional: bool = False) -> Callable[[str], Mapping[str, Any] | None]:
    """A parser for ``Name X``: ``{"x": value}``, or ``{"x": None}`` when ``optional`` and X is absent.

    ``kind`` is ``"dice"`` (``Sustained Hits D3``: X is a dice expression,
    checked by the core's parser), ``"int"`` (``Melta 2``: a whole number from
    1 to 100) or ``"roll"`` (``X+`` or ``X``: an int).
    Text that starts with the name but has a bad X raises ``ValueError``
    saying what is wrong, so the user is not told the keyword is unknown;
    an X that is always 0 is refused, since the keyword would do nothing.

    >>> with_value("Sustained Hits")("sustained hits d3")
    {'x': 'D3'}
    >>> with_value("Blast", optional=True)("Blast")
    {'x': None}
    """
    prefix = _words(name)

    def parse(text: str) -> Mapping[str, Any] | None:
        words = _words(text)
        if words == prefix:
            if optional:
                return {"x": None}
            raise ValueError(f"{name} needs a value, as in {name} {'4+' if kind == 'roll' else 1}")
        if not words.startswith(prefix + " "):
            return None
        value = words[len(prefix) + 1 :]
        if kind == "int":
            if not value.isdigit() or not 1 <= int(value) <= 100:
                raise ValueError(f"{name} takes a whole number from 1 to 100, not {value!r}")
            return {"x": int(value)}
        if kind == "roll":
            m = re.fullmatch(r"(\d+)\+?", value)
            if m is None:
                raise ValueError(f"{name} takes a roll such as 4+, not {value!r}")
            return {"x": int(m.group(1))}
        try:
            dice = _core.parse_dice(value)
        except ValueError as exc:
            raise ValueError(f"{name} takes a number or dice expression: {exc}") from None
        if dice.max < 1:  # "Sustained Hits 0": listed, yet it would never do anything
            raise ValueError(f"{name} {dice} does nothing: X must be at least 1, as in {name} 1 or {name} D3")
        return {"x": str(dice)}

    return parse


@dataclass(frozen=True)
class KeywordSpec:
    """One keyword of one ruleset.

    Attributes:
        ruleset: Name of the ruleset it belongs to, such as ``"wh40k"``.
        name: Its canonical datasheet name, such as ``"Sustained Hits"``.
        apply: Edits the Plan; its arguments are documented by the ruleset.
        parse: Returns parameters for a datasheet spelling that is this
            keyword, or ``None`` for any other text. Defaults to the name alone.
        description: One line for ``mathhammer plugins``.
        rule: The keyword's versions, when it changed between editions; the
            ruleset resolves the version a weapon uses and hands it to ``apply``.
        repeatable: Whether one weapon may list it more than once with
            different parameters (Anti-Infantry 4+ and Anti-Vehicle 2+). Other
            keywords listed twice with different values are refused, since
            the same ability from two sources does not stack.
    """

    ruleset: str
    name: str
    apply: Callable[..., None]
    parse: Callable[[str], Mapping[str, Any] | None] | None = None
    description: str = ""
    rule: Rule | None = None
    repeatable: bool = False

    def match(self, text: str) -> Mapping[str, Any] | None:
        """Parameters if ``text`` spells this keyword, else ``None``."""
        return (self.parse or exact_name(self.name))(text)


def conflict_message(what: str, plugins: list[str]) -> str:
    """The error for a name (``"ruleset 'toy'"``) that several plugins registered, naming each."""
    names = " and ".join(f"plugin {p!r}" for p in plugins)
    return (
        f"{what} is registered by both {names}, so neither is used;"
        " uninstall or block one (MATHHAMMER_DISABLED_PLUGINS)"
    )


@dataclass
class KeywordTable:
    """The keywords registered for one ruleset, with the plugin each came from."""

    ruleset: str
    specs: dict[str, KeywordSpec] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    conflicts: dict[str, tuple[KeywordSpec, list[str]]] = field(default_factory=dict)
    """Names two or more plugins registered, to the first spec and those plugins: such a keyword is disabled."""

    def names(self) -> list[str]:
        return sorted(self.specs)

    def add(self, spec: KeywordSpec, plugin: str) -> None:
        """Add ``plugin``'s keyword; a name (in any case) another plugin registered disables both."""
        key = spec.name.casefold()
        if key in self.conflicts:
            self.conflicts[key][1].append(plugin)
            return
        same = next((name for name in self.specs if name.casefold() == key), None)
        if same is not None:
            self.conflicts[key] = (self.specs.pop(same), [self.origin.pop(same), plugin])
            return
        self.specs[spec.name] = spec
        self.origin[spec.name] = plugin

    def resolve(self, text: str) -> tuple[KeywordSpec, Mapping[str, Any]] | None:
        """The keyword that accepts ``text`` and its parameters, or ``None``.

        Raises:
            PluginConflictError: when ``text`` is a keyword two plugins registered, naming both.
        """
        for first, plugins in self.conflicts.values():
            if first.match(text) is not None:
                raise PluginConflictError(
                    conflict_message(f"keyword {first.name!r} of ruleset {self.ruleset!r}", plugins)
                )
        for spec in self.specs.values():
            params = spec.match(text)
            if params is not None:
                return spec, params
        return None
