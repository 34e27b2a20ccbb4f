"""One attack told step by step, the way the rulebook's worked examples tell it.

:func:`explain` resolves a single trial die by die, with dice from a seed or
given in advance (a worked example's), and narrates the core's trace: the
dice gathered, each test's rolls and how many passed, the allocation order,
each save roll lowest first and the group it went to, the damage, Feel No Pain
rolls, what was destroyed, and where a roll set off an effect, named after the
keyword (Sustained Hits, Lethal Hits, ...) that put it in the Plan.

Given dice are replayed by the core (``mathhammer.replay``). A seed is the
core's too: the explained trial is trial 0 of the die-by-die Monte Carlo run
with that seed (``_core.replay_seeded``), drawn from the stream ``simulate``
uses for it, and its dice are reported so that replaying them tells it again.
"""

from __future__ import annotations

import dataclasses
import html
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mathhammer import _core
from mathhammer.exceptions import ScriptError
from mathhammer.keywords import KeywordSpec
from mathhammer.plan import AttackPool, Check, Effect, Group, Heal, Mark, MortalWounds, Plan, Save, Test
from mathhammer.registry import Registry, default_registry
from mathhammer.result import Chance
from mathhammer.ruleset import Compiled, Vocabulary
from mathhammer.simulate import compile_scenario, freeze

_RAN_OUT = re.compile(r"ran out after \d+ values; roll \d+ \(a d(\d+)\)")


@dataclass(frozen=True)
class Explanation:
    """One trial, resolved and told.

    Attributes:
        dice: Every die rolled, in the order the core used them (replaying them gives the same trial).
        seed: The seed the dice came from, or ``None`` when they were given.
        replay: What ``mathhammer.replay`` returned: counters, damage, models destroyed, events.
        lines: The narration, one step a line.
    """

    dice: list[int]
    seed: int | None
    replay: Mapping[str, Any]
    lines: list[str] = field(default_factory=list)

    def to_text(self) -> str:
        return "\n".join(self.lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """The narration for Jupyter, as preformatted text."""
        return f"<pre>{html.escape(self.to_text())}</pre>"

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: the dice, the seed, the replay and the narration."""
        return {"seed": self.seed, "dice": list(self.dice), **dict(self.replay), "narration": list(self.lines)}


def explain(
    scenario: Any, *, seed: int | None = None, dice: Sequence[int] | None = None, registry: Registry | None = None
) -> Explanation:
    """Resolve one trial of ``scenario`` and tell it step by step.

    Args:
        scenario: A ruleset's scenario object.
        seed: Seed for the dice (a random one when neither ``seed`` nor ``dice`` is given).
        dice: Dice to use instead, in the order ``docs/architecture.md`` gives.

    Raises:
        ScriptError: when given ``dice`` run out or do not fit a die.
    """
    compiled, sources = _compile_watching_keywords(scenario, registry)
    core_plan = freeze(scenario, compiled, registry=registry)
    if dice is not None:
        used = list(dice)
        try:
            replay = _core.replay(core_plan, list(used))
        except ScriptError as exc:
            hint = "give more dice, or a seed to roll them" if _RAN_OUT.search(str(exc)) else "fix that value"
            raise ScriptError(f"{exc}; {hint}") from None
    else:
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        used, replay = _seeded(core_plan, seed)
    lines = narrate(
        compiled.plan,
        replay,
        compiled.stage_labels,
        sources,
        compiled.modifiers,
        compiled.vocabulary,
        compiled.kinds,
        ends=Ends(compiled.chances, compiled.hidden),
    )
    return Explanation(used, seed if dice is None else None, replay, lines)


def _seeded(core_plan: _core.CompiledPlan, seed: int) -> tuple[list[int], dict[str, object]]:
    """Trial 0 of the die-by-die Monte Carlo run with ``seed``, and the dice it drew."""
    replay = _core.replay_seeded(core_plan, seed)
    dice = replay.pop("dice")
    assert isinstance(dice, list)
    return [int(d) for d in dice], replay


EffectSources = Mapping[tuple[int, int, int], str]
"""The keyword that added each effect, by (sequence, test, effect) index in the Plan."""


@dataclass(frozen=True)
class Ends:
    """How a trial ended, in words: the ruleset's chances (``Compiled.chances``) name the
    values of the counters it hides as codes (``Compiled.hidden``: who won a fight, who broke)."""

    chances: Sequence[Chance] = ()
    hidden: Sequence[str] = ()

    def told(self, counters: Mapping[str, int]) -> list[str]:
        """What each hidden counter's value means, from the chance of exactly that value
        ("P(Blue wins)" for outcome 2 says "Blue wins"); a value no chance names says nothing."""
        return [
            c.label.removeprefix("P(").removesuffix(")")
            for c in self.chances
            if c.stage in self.hidden and c.exactly is not None and counters.get(c.stage) == c.exactly
        ]


def narrate(
    plan: Plan,
    replay: Mapping[str, Any],
    labels: Mapping[str, str] | None = None,
    sources: EffectSources | None = None,
    modifiers: Mapping[str, Sequence[str]] | None = None,
    vocabulary: Vocabulary | None = None,
    kinds: Mapping[int, str] | None = None,
    ends: Ends | None = None,
) -> list[str]:
    """The narration of a replay of ``plan``, one line per step.

    Args:
        plan: The Plan replayed.
        replay: What ``mathhammer.replay`` returned for it.
        labels: Counter names to human labels (``Compiled.stage_labels``).
        sources: The keyword behind each effect, named where the effect fires.
        modifiers: The modifiers in force for each attack pool, in words (``Compiled.modifiers``),
            told as the pool starts.
        vocabulary: The ruleset's words for the Plan's terms (``Compiled.vocabulary``).
        kinds: What each sequence that is no attack is, by its index in the Plan (``Compiled.kinds``):
            "Psychic Power".
        ends: How the trial ended, told in the summary in words instead of the hidden counters' codes.
    """
    narrator = _Narrator(
        plan, labels or {}, sources or {}, modifiers or {}, vocabulary or Vocabulary(), kinds or {}, ends or Ends()
    )
    return narrator.tell(replay)


def _compile_watching_keywords(scenario: Any, registry: Registry | None) -> tuple[Compiled, EffectSources]:
    """Compile ``scenario``, noting which keyword added each effect of the Plan.

    Every keyword's ``apply`` is wrapped to compare the effects of the pool it
    edits (its argument's ``pool``, when that is an AttackPool, as in 40k)
    before and after. A ruleset whose keywords edit the Plan some other way
    compiles the same; its effects are just told without a keyword's name.
    """
    registry = registry or default_registry()
    name = getattr(scenario, "ruleset", None)
    if not isinstance(name, str):
        return compile_scenario(scenario, registry=registry), {}
    added: dict[int, str] = {}
    table = registry.keyword_table(name)
    watched = table.mapped(lambda spec: dataclasses.replace(spec, apply=_watching(spec, added)))
    compiled = registry.ruleset(name).compile(scenario, watched)
    sources = {
        (s, t, e): added[id(effect)]
        for s, sequence in enumerate(compiled.plan.sequences)
        if isinstance(sequence, AttackPool)
        for t, test in enumerate(sequence.steps)
        for e, effect in enumerate(test.effects)
        if id(effect) in added
    }
    return compiled, sources


def _watching(spec: KeywordSpec, added: dict[int, str]) -> Callable[..., None]:
    def apply(rules: Any) -> None:
        before = {id(effect) for effect in _pool_effects(rules)}
        spec.apply(rules)
        for effect in _pool_effects(rules):
            if id(effect) not in before:
                added.setdefault(id(effect), spec.name)

    return apply


def _pool_effects(rules: Any) -> list[Effect]:
    pool = getattr(rules, "pool", None)
    return [effect for test in pool.steps for effect in test.effects] if isinstance(pool, AttackPool) else []


def _need(test: Test) -> str:
    if test.automatic:
        return "automatic"
    need = f"{test.target}+"
    modifier = sum(test.modifiers)
    if test.modifier_min is not None:
        modifier = max(modifier, test.modifier_min)
    if test.modifier_max is not None:
        modifier = min(modifier, test.modifier_max)
    return f"needs {need}" + (f", {modifier:+d} to the roll" if modifier else "")


def _effect(effect: Effect, words: Vocabulary, own: str = "the attacking unit") -> str:
    """What ``effect`` does, in ``words``; ``own`` names the unit the attack's own harm falls on."""
    if effect.action == "extra":
        return f"{effect.amount or 1} more success{'es' if (effect.amount or '1') != '1' else ''} each"
    if effect.action == "skip":
        steps = effect.steps or 1
        return "passes the next test automatically" if steps == 1 else f"passes the next {steps} tests automatically"
    if effect.action == "mortal":
        amount = effect.amount or f"the weapon's {words.damage} in"
        ends = ", and the attack ends" if effect.ends_attack else ""
        whom = f" on {own}" if effect.against == "attacker" else ""
        return f"{amount} {words.mortal_wounds[0 if amount == '1' else 1]}{whom}{ends}"
    if effect.action == "unsaved":
        if effect.maximize:
            how = f"its largest {words.damage}" + (f" ({effect.damage})" if effect.damage else "")
        else:
            how = f"{words.damage} {effect.damage}" if effect.damage else f"its {words.damage}"
        bonus = f" {effect.bonus:+d}" if effect.bonus else ""
        return f"inflicts {how}{bonus}" + (f" {words.no_save}" if words.no_save else "")
    if effect.action == "own_save":
        return "takes its own save"
    if effect.action == "count":
        return "counted"
    return effect.action


def _rerolls(save: Save, roll: int) -> bool:
    """Does ``save`` roll a failed ``roll`` again?"""
    return save.rolled and (save.reroll == "failures" or (save.reroll == "ones" and roll == 1))


def _until_next_sequence(events: Sequence[dict[str, Any]], start: int) -> Sequence[dict[str, Any]]:
    for end in range(start, len(events)):
        if events[end]["event"] == "sequence":
            return events[start:end]
    return events[start:]


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


class _Narrator:
    def __init__(
        self,
        plan: Plan,
        labels: Mapping[str, str],
        sources: EffectSources,
        modifiers: Mapping[str, Sequence[str]],
        words: Vocabulary,
        kinds: Mapping[int, str],
        ends: Ends,
    ) -> None:
        self.words = words
        self.ends = ends
        self.kinds = kinds
        """What each sequence that is no attack is, by its index: headed so, its attack dice not told."""
        self.sources = sources
        self.modifiers = modifiers
        self.rerolled = False
        """The next save event is the re-roll of the failed one before it."""
        self.index = 0
        """The index of the current sequence in the Plan."""
        self.plan = plan
        self.labels = labels
        self.groups = {g.name: g for g in plan.target.groups}
        self.lines: list[str] = []
        self.pool: AttackPool | None = None
        self.source: MortalWounds | None = None
        self.check: Check | None = None
        """The test of the current healing or lasting effect, if it has one."""
        self.own_mortal = 0
        """Mortal-wound events the current sequence will itself produce."""
        self.held = 0
        """Harm held until every sequence is resolved (``after_all`` effects), in triggers."""
        self.held_told = False
        self.rolls: list[dict[str, Any]] = []
        self.saves_started = False
        self.saves_left = 0
        """Save events still to come in this sequence."""
        self.own_saves: list[Save] = []
        """Saves of tokens that take their own (``own_save`` effects), resolved after the pool's, in order."""

    def say(self, text: str, depth: int = 1) -> None:
        self.lines.append("  " * depth + text)

    def tell(self, replay: Mapping[str, Any]) -> list[str]:
        events = list(replay["events"])
        for i, event in enumerate(events):
            kind = event["event"]
            if kind == "sequence":
                self.saves_left = sum(1 for e in _until_next_sequence(events, i + 1) if e["event"] == "save")
            if kind != "test":
                self.flush_tests()
            handler = getattr(self, f"on_{kind}", None)
            if handler is None:
                self.say(f"{kind}: {', '.join(f'{k}={v}' for k, v in event.items() if k != 'event')}", 2)
            else:
                handler(event)
        self.flush_tests()
        self.summary(replay)
        return self.lines

    # -- sequences --------------------------------------------------------

    def on_sequence(self, e: dict[str, Any]) -> None:
        self.index = e["index"]
        sequence = self.plan.sequences[e["index"]] if e["index"] < len(self.plan.sequences) else None
        self.pool = sequence if isinstance(sequence, AttackPool) else None
        # A pool striking the attacker (a fight's return blows) meets the attacker's groups.
        attacked = self.plan.attacker if self.pool and self.pool.against == "attacker" else None
        self.groups = {g.name: g for g in (attacked or self.plan.target).groups}
        self.source = sequence if isinstance(sequence, MortalWounds) else None
        self.check = sequence.check if isinstance(sequence, (Heal, Mark)) else None
        self.own_mortal = 1 if self.source is not None and self.source.rolls is None else 0
        self.saves_started = False
        self.own_saves = []
        if self.lines:
            self.lines.append("")
        if self.pool:
            kind = "attacks"
        elif isinstance(sequence, Heal):
            kind = "healing"
        elif isinstance(sequence, Mark):
            kind = "a lasting effect"
        else:
            kind = self.words.mortal_wounds[1]
        kind = self.kinds.get(e["index"], kind)
        self.lines.append(f"{e['index'] + 1}. {e['name']} ({kind})")
        for text in self.modifiers.get(e["name"], []) if self.pool else []:
            self.say(f"Modifier: {text}.")

    def on_attacks(self, e: dict[str, Any]) -> None:
        n = e["count"]
        if self.pool is not None and self.index in self.kinds:
            # A power: its own test is told next; only an attempt nobody makes needs saying.
            if n == 0:
                self.say("Nobody attempts it.")
            elif n > 1:
                self.say(f"{n} attempts.")
        else:
            self.say(f"{self.words.noun(self.words.attack_dice, n)} {'is' if n == 1 else 'are'} {self.words.made}.")
        # An automatic test rolls nothing, so the trace has no events for it.
        for test in self.pool.steps if self.pool else []:
            if not test.automatic:
                break
            self.say(f"No {test.name} rolls: every attack succeeds automatically.")

    # -- tests ------------------------------------------------------------

    def on_test(self, e: dict[str, Any]) -> None:
        if self.rolls and self.rolls[-1]["step"] != e["step"]:
            self.flush_tests()
        self.rolls.append(e)

    def flush_tests(self) -> None:
        if not self.rolls:
            return
        rolls, self.rolls = self.rolls, []
        step = rolls[0]["step"]
        test = self.pool.steps[step] if self.pool and step < len(self.pool.steps) else None
        name = f"{test.name} rolls" if test else f"test {step + 1}"
        shown = []
        for r in rolls:
            text = f"{r['rerolled_from']}→{r['roll']}" if r.get("rerolled_from") is not None else str(r["roll"])
            shown.append(text + ("*" if r["outcome"] == "critical" else ""))
        passed = sum(r["outcome"] != "fail" for r in rolls)
        critical = sum(r["outcome"] == "critical" for r in rolls)
        need = f" ({_need(test)})" if test else ""
        n = len(rolls)
        noun = name if n != 1 else name.removesuffix("s")
        line = f"{n} {noun}{need}: {', '.join(shown)}. {passed} of {n} succeed"
        if critical:
            line += f", {critical} {self.words.critical} (*)"
        self.say(line + ".")
        for number, effect in enumerate(test.effects if test else []):
            # A critical is not also a success: each outcome runs only its own effects.
            count = {"critical": critical, "success": passed - critical, "fail": n - passed}[effect.on]
            if effect.action == "own_save" and effect.save is not None:
                self.own_saves += [effect.save] * count
            if effect.action in ("mortal", "unsaved") and effect.after_all:
                self.held += count
            elif effect.action == "mortal":
                self.own_mortal += count
            if count:
                what = self.words.critical if effect.on == "critical" else effect.on
                self.say(
                    f"{count} {what} {test.name if test else ''} roll{'s' if count > 1 else ''}: "
                    + _effect(effect, self.words, self.own_unit())
                    + (f" ({source})" if (source := self.sources.get((self.index, step, number))) else "")
                    + ".",
                    2,
                )

    def on_round(self, e: dict[str, Any]) -> None:
        if self.lines:
            self.lines.append("")
        self.lines.append(f"Round {e['number']}")

    def unit_name(self, side: str) -> str:
        """A side by its one group's name, or as "the attacker" / "the target", to start a sentence with."""
        unit = self.plan.attacker if side == "attacker" else self.plan.target
        return unit.groups[0].name if unit is not None and len(unit.groups) == 1 else f"the {side}"

    def on_contest(self, e: dict[str, Any]) -> None:
        """The round's contest: both scores, then the loser's roll against the most that holds."""
        attacker, target = self.unit_name("attacker"), self.unit_name("target")
        self.lines += ["", "Round result"]
        self.say(f"Scores: {attacker} {e['attacker_score']}, {target} {e['target_score']}.")
        if e["loser"] is None:
            self.say("Equal scores: nobody loses the round.")
            return
        loser = attacker if e["loser"] == "attacker" else target
        difference = abs(e["attacker_score"] - e["target_score"])
        if e["roll"] is None:
            self.say(f"{loser} lost by {difference}; a unit is destroyed, so nobody rolls.")
            return
        outcome = "holds" if e["held"] else "fails and leaves the fight"
        self.say(
            f"{loser} lost by {difference} and rolls {e['roll']} (holds on {e['hold_at_most']} or less): {outcome}."
        )

    def on_heal(self, e: dict[str, Any]) -> None:
        self.say(f"{self.words.noun(self.words.wounds, e['amount'])} restored to {self.side_name(e.get('side'))}.")

    def on_dice(self, e: dict[str, Any]) -> None:
        """A roll of several dice: each die, the total against the target, its class, the effects that fire."""
        step = e["step"]
        test = self.pool.steps[step] if self.pool and step < len(self.pool.steps) else None
        if test is None:
            self.say(f"dice {e['dice']}: {e['outcome']}", 2)
            return
        faces = e["dice"]
        # A die its marks left out of the roll shows 0 and is not told.
        dice = [(d, f) for d, f in zip(test.dice, faces, strict=False) if f]
        modifier = sum(test.modifiers)
        total = sum(-f if d.subtract else f for d, f in dice) + modifier
        terms = [(d.subtract, f"{d.label} {f}" if d.label else str(f)) for d, f in dice]
        if modifier:
            named = f"{self.words.modifiers} {abs(modifier)}" if self.words.modifiers else str(abs(modifier))
            terms.append((modifier < 0, named))
        shown = ("-" if terms[0][0] else "") + terms[0][1]
        shown += "".join(f" {'-' if minus else '+'} {term}" for minus, term in terms[1:])
        before = ""
        if e.get("rerolled_from"):
            before = f" (re-rolled from {', '.join(str(f) for f in e['rerolled_from'] if f)})"
        verdict = {"fail": "misses", "success": "succeeds", "critical": f"is a {self.words.critical}"}[e["outcome"]]
        cls = f"; {self.words.classes.get(e['class'], e['class'])}" if e.get("class") else ""
        self.say(f"{test.name}: {shown} = {total}{before}, needs {test.target}: {verdict}{cls}.")
        for number, effect in enumerate(test.effects):
            if effect.on != e["outcome"] or (effect.class_ is not None and effect.class_ != e.get("class")):
                continue
            if effect.action == "own_save" and effect.save is not None:
                self.own_saves.append(effect.save)
            elif effect.action in ("mortal", "unsaved") and effect.after_all:
                self.held += 1
            elif effect.action == "mortal":
                self.own_mortal += 1
            source = self.sources.get((self.index, step, number))
            what = _effect(effect, self.words, self.own_unit())
            if effect.action == "count" and effect.counter:
                what = f"counted in {self.labels.get(effect.counter, effect.counter)}"
            self.say(f"→ {what}" + (f" ({source})" if source else "") + ".", 2)

    # -- allocation and saves ---------------------------------------------

    def on_order(self, e: dict[str, Any]) -> None:
        groups = e["groups"]
        if len(groups) == 1:
            self.say(f"Allocation group: {groups[0]}.")
        else:
            order = ", ".join(f"{g} ({_ordinal(i + 1)})" for i, g in enumerate(groups))
            self.say(f"Allocation order: {order}.")

    def on_save(self, e: dict[str, Any]) -> None:
        if not self.saves_started:
            self.saves_started = True
            self.say("Save rolls, resolved from lowest to highest:")
        # Tokens with their own save resolve after the pool's: the last saves of the sequence.
        own = self.saves_left <= len(self.own_saves)
        save = self.own_saves[len(self.own_saves) - self.saves_left] if own else None
        self.saves_left -= 1
        group = e["group"]
        where = f" → {group}{self.which_model(group, e.get('wounds_left'))}" if group else ""
        profile = self.save_profile(group) + (" with its own save" if own else "")
        roll, modifier = e["roll"], self.modifier(group, save)
        shown = f"{roll} (modified to {roll + modifier})" if modifier else str(roll)
        outcome = f"the attack fails ({self.saved_by(roll, modifier, group)})" if e["saved"] else self.words.unsaved
        rerolled, self.rerolled = self.rerolled, False
        if rerolled:
            self.say(f"re-rolled: {shown}: {outcome}.", 3)
            return
        in_force = save or (self.pool.save if self.pool else None)
        if not e["saved"] and in_force is not None and _rerolls(in_force, roll):
            self.rerolled = True
            outcome = "fails, and the defender re-rolls it"
        self.say(f"▪ {shown}{where}{profile}: {outcome}.", 2)

    def which_model(self, group: str, wounds_left: int | None) -> str:
        """Which model of the group the roll went to: the wounded one, if the group has one."""
        wounds = next((g.wounds for g in self.defending_groups() if g.name == group), None)
        if wounds_left is None or wounds is None or wounds == 1:
            return ""
        if wounds_left < wounds:
            return f", the wounded model ({wounds_left} of {self.words.noun(self.words.wounds, wounds)} left)"
        return ", an unwounded model"

    def defending_groups(self) -> list[Group]:
        """The groups of the side the current pool attacks."""
        attacker = self.pool is not None and self.pool.against == "attacker" and self.plan.attacker is not None
        side = self.plan.attacker if attacker else self.plan.target
        return list(side.groups) if side is not None else []

    def saved_by(self, roll: int, modifier: int, group: str | None) -> str:
        """Which characteristic saved a roll: the armour save after modifiers, the invulnerable one unmodified."""
        g = self.groups.get(group or "")
        armour = g is not None and g.save is not None and roll + modifier >= g.save
        invulnerable = g is not None and g.invulnerable is not None and roll >= g.invulnerable
        if g is not None and armour != invulnerable:
            return f"saved by {self.profile(g.save if armour else g.invulnerable, invulnerable=not armour)}"
        if g is not None and armour and invulnerable:
            return f"saved by {self.profile(g.save)}; {self.profile(g.invulnerable, invulnerable=True)} would too"
        return "saved"

    def on_special_save(self, e: dict[str, Any]) -> None:
        roll = f"{e['rerolled_from']}→{e['roll']}" if e.get("rerolled_from") is not None else str(e["roll"])
        self.say(f"special save {roll}: {'saved' if e['saved'] else 'fails'}.", 3)

    def modifier(self, group: str | None, save: Save | None = None) -> int:
        """What the save in force adds to a roll against ``group``: AP, modifiers, the group's own, capped."""
        save = save or (self.pool.save if self.pool else None)
        if save is None:
            return 0
        modifier = save.ap + sum(save.modifiers)
        if group in self.groups and save.group_modifiers:
            modifier += save.group_modifiers[list(self.groups).index(group)]
        if save.modifier_max is not None:
            modifier = min(modifier, save.modifier_max)
        return modifier

    def save_profile(self, group: str | None) -> str:
        g = self.groups.get(group or "")
        if g is None:
            return ""
        parts = [self.profile(g.save) if g.save else f"no {self.words.saves[0]}"]
        if g.invulnerable:
            parts.append(self.profile(g.invulnerable, invulnerable=True))
        return f" ({', '.join(parts)})"

    def profile(self, value: int | None, *, invulnerable: bool = False) -> str:
        """A save characteristic in the ruleset's words: ``Sv 3+``, ``Armour Save 5+``."""
        return f"{self.words.saves[1 if invulnerable else 0]} {value}+"

    # -- damage -----------------------------------------------------------

    def on_damage(self, e: dict[str, Any]) -> None:
        lost = e.get("lost", e["amount"])
        amount, words = e["amount"], self.words
        group = next((g for g in self.defending_groups() if g.name == e["group"]), None)
        thresholds = list(group.thresholds) if group is not None else []
        if not thresholds and lost == amount:
            self.say(
                f"{amount} {words.lost} by one {e['group']} model."
                if words.lost
                else f"{amount} {words.damage} to one {e['group']} model.",
                3,
            )
            return
        wounds = words.noun(words.wounds, lost)
        if len(words.thresholds) != len(thresholds):
            self.say(f"{amount} {words.damage} to the {e['group']}: against its thresholds, {wounds} lost.", 3)
            return
        named = ", ".join(f"{name} {t}" for name, t in zip(words.thresholds, thresholds, strict=True))
        met = [name for name, t in zip(words.thresholds, thresholds, strict=True) if amount >= t]
        reached = f"meets {met[-1]}" if met else f"below {words.thresholds[0]}"
        top = f", and {words.top_threshold}" if words.top_threshold and len(met) == len(thresholds) else ""
        self.say(f"{words.damage} {amount} to the {e['group']} ({named}): {reached}, {wounds} lost{top}.", 3)

    def on_feel_no_pain(self, e: dict[str, Any]) -> None:
        self.say(f"Feel No Pain {e['roll']}: the wound is {'ignored' if e['ignored'] else 'lost'}.", 3)

    def side_name(self, side: str | None) -> str:
        """Whose models: in a fight, where both attack, the unit by name; else the attacking unit or the target."""
        unit = self.plan.attacker if side == "attacker" else self.plan.target
        if self.plan.rounds is not None and unit is not None and len(unit.groups) == 1:
            return f"the {unit.groups[0].name}"
        return "the attacking unit" if side == "attacker" else "the target"

    def own_unit(self) -> str:
        """The unit making the current pool's attacks, as :meth:`side_name` names it."""
        return self.side_name("target" if self.pool is not None and self.pool.against == "attacker" else "attacker")

    def on_model_destroyed(self, e: dict[str, Any]) -> None:
        attacking = e.get("side") == "attacker" and self.plan.rounds is None
        whose = "One attacking" if attacking else "One"
        self.say(f"{whose} {e['group']} model is destroyed ({e['left_in_group']} left in its group).", 3)

    def on_mortal_wounds(self, e: dict[str, Any]) -> None:
        # The trace does not mark where held harm starts; it is what comes after
        # the last sequence's own mortal wounds, so count those.
        if self.own_mortal > 0:
            self.own_mortal -= 1
        elif self.held and not self.held_told:
            self.held_told = True
            self.lines += ["", "After every attack: the harm held until now is resolved."]
        # The trace names the side relative to the pool: its target, or its own unit.
        side = e.get("side")
        if self.pool is not None and self.pool.against == "attacker":
            side = "target" if side == "attacker" else "attacker"
        resolved = self.words.mortal_resolved[0 if e.get("spill") else 1]
        harm = self.words.noun(self.words.mortal_wounds, e["amount"])
        self.say(f"{harm} on {self.side_name(side)}, {resolved}.")

    def on_roll(self, e: dict[str, Any]) -> None:
        verdict = "fails" if e["failed"] else "passes"
        if self.check is not None:
            # A healing or lasting effect's own test (a power's: 1d12 + Skill against its Difficulty).
            c, roll = self.check, e["roll"]
            shown = f"d{c.die} {roll}"
            if c.modifier:
                named = f"{self.words.modifiers} {abs(c.modifier)}" if self.words.modifiers else str(abs(c.modifier))
                shown += f" {'-' if c.modifier < 0 else '+'} {named} = {roll + c.modifier}"
            self.say(f"{shown}, needs {c.target}: {verdict}.")
            return
        rolls = self.source.rolls if self.source else None
        fails_on = ""
        if rolls:
            fails_on = " (fails on a 1)" if rolls.fail_at_most == 1 else f" (fails on 1-{rolls.fail_at_most})"
        if e["failed"]:
            self.own_mortal += 1
        self.say(f"Roll {e['roll']}{fails_on}: {verdict}.")

    def summary(self, replay: Mapping[str, Any]) -> None:
        """The trial's counters and both sides' losses; how it ended in words, not codes."""
        counters = replay.get("counters", {})
        parts = self.ends.told(counters)
        parts += [
            f"{self.labels.get(k, k.replace('_', ' '))} {v}" for k, v in counters.items() if k not in self.ends.hidden
        ]
        losses = ["damage", "models_destroyed"]
        if "attacker_damage" in replay and "attacker_damage" not in self.ends.hidden:
            losses += ["attacker_damage", "attacker_models_destroyed"]
        parts += [f"{self.labels.get(k, k.replace('_', ' '))} {replay.get(k, 0)}" for k in losses]
        self.lines += ["", "In all: " + ", ".join(parts) + "."]
