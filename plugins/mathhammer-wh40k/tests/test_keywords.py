"""The 40k keywords this distribution ships, and the known traps, against closed forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mathhammer_sustained_hits
import pytest

import mathhammer
from mathhammer import Registry, Result
from mathhammer.plugin import VersionChoice
from mathhammer.testing import assert_mean
from mathhammer_wh40k import Attacker, Context, ModelProfile, Scenario, Target, Weapon, plugin
from mathhammer_wh40k.keywords import anti, cleave, heavy, lance, lethal_hits, melta, rapid_fire, torrent, twin_linked
from mathhammer_wh40k.model import Modifiers

N = 30  # attacks


@pytest.fixture
def registry(make_registry: Callable[..., Registry]) -> Registry:
    modules = [anti, cleave, heavy, lance, lethal_hits, melta, rapid_fire, torrent, twin_linked]
    return make_registry(
        ("wh40k", plugin),
        ("sustained-hits", mathhammer_sustained_hits),
        *((m.__name__.rsplit(".", 1)[-1], m) for m in modules),
    )


def run(
    registry: Registry,
    *keywords: str,
    target_keywords: tuple[str, ...] = (),
    models: int = 300,
    context: Context | None = None,
    rules: VersionChoice | None = None,
    attacker_keywords: tuple[str, ...] = (),
    **weapon: Any,
) -> Result:
    w: dict[str, Any] = dict(name="Gun", attacks="1", skill=3, strength=4, damage="1", count=N, keywords=keywords)
    w.update(weapon)
    scenario = Scenario(
        attacker=Attacker(weapons=(Weapon(**w),), keywords=attacker_keywords),
        target=Target("T", toughness=4, keywords=target_keywords, models=(ModelProfile("M", wounds=1, count=models),)),
        context=context or Context(),
        rules=rules or VersionChoice(),
    )
    return mathhammer.simulate(scenario, trials=200_000, seed=11, registry=registry)


def test_lethal_hits_critical_hits_wound_automatically(registry: Registry) -> None:
    r = run(registry, "Lethal Hits")
    assert_mean(r["wounds"], N * (1 / 6 + 3 / 6 * 3 / 6))


def test_sustained_and_lethal_only_the_critical_itself_wounds_automatically(registry: Registry) -> None:
    r = run(registry, "Sustained Hits 1", "Lethal Hits")
    assert_mean(r["hits"], N * (4 / 6 + 1 / 6))
    # The critical wounds automatically; its extra hit and the ordinary hits roll 4+.
    assert_mean(r["wounds"], N * (1 / 6 + (3 / 6 + 1 / 6) * 3 / 6))


def test_torrent_hits_automatically_and_never_sustains(registry: Registry) -> None:
    r = run(registry, "Torrent", "Sustained Hits 2", "Lethal Hits", skill=6)
    assert r["hits"].pmf[N] == 1.0
    assert_mean(r["wounds"], N * 3 / 6)


def test_critical_hits_on_5_plus_with_sustained_and_lethal(registry: Registry) -> None:
    r = run(registry, "Sustained Hits 1", "Lethal Hits", modifiers=Modifiers(critical_hit=5))
    crit, plain = 2 / 6, 2 / 6  # 5-6 critical; 3-4 ordinary hits on BS3+
    assert_mean(r["hits"], N * (crit * 2 + plain))
    assert_mean(r["wounds"], N * (crit + (crit + plain) * 3 / 6))


@pytest.mark.parametrize(
    ("version", "p_wound"),
    [
        ("failures", 1 - (3 / 6) ** 2),
        # Fishing re-rolls the ordinary wounds (4 and 5) too, keeping only 6s from the first roll.
        ("fish", 1 / 6 + 5 / 6 * 3 / 6),
    ],
)
def test_twin_linked(registry: Registry, version: str, p_wound: float) -> None:
    r = run(registry, "Twin-linked", auto_hit=True, skill=None, rules=VersionChoice(rules={"Twin-linked": version}))
    assert_mean(r["wounds"], N * p_wound)
    assert r.rule_versions["Twin-linked"] == version


def test_anti_keyword_makes_criticals_that_always_wound(registry: Registry) -> None:
    hit = dict(auto_hit=True, skill=None, strength=1)  # S1 vs T4 needs 6+
    assert_mean(run(registry, "Anti-Infantry 4+", target_keywords=("Infantry",), **hit)["wounds"], N * 3 / 6)
    assert_mean(run(registry, "Anti-Infantry 4+", target_keywords=("Vehicle",), **hit)["wounds"], N * 1 / 6)


def test_restricted_abilities_apply_only_against_their_keyword(registry: Registry) -> None:
    assert_mean(
        run(registry, "Lethal Hits: Vehicle", target_keywords=("Vehicle",))["wounds"], N * (1 / 6 + 3 / 6 * 3 / 6)
    )
    assert_mean(run(registry, "Lethal Hits: Vehicle", target_keywords=("Infantry",))["wounds"], N * 4 / 6 * 3 / 6)


def test_duplicate_abilities_do_not_stack(registry: Registry) -> None:
    assert_mean(run(registry, "Sustained Hits 1", "sustained hits 1")["hits"], N * 5 / 6)
    with pytest.raises(mathhammer.ScenarioError, match=r"keywords\[1\]: 'Sustained Hits 2' repeats"):
        run(registry, "Sustained Hits 1", "Sustained Hits 2")
    both = run(
        registry,
        "Anti-Infantry 4+",
        "Anti-Vehicle 2+",
        auto_hit=True,
        skill=None,
        strength=1,
        target_keywords=("Vehicle",),
    )
    assert_mean(both["wounds"], N * 5 / 6)  # Anti-X against different keywords are different abilities


def exact_damage(values: list[int], attacks: int, p: float, wounds: int) -> tuple[float, float]:
    """Exact expected damage and models destroyed for ``attacks`` attacks, each
    unsaved with probability ``p`` and doing one of ``values`` (equally likely),
    into fresh models of ``wounds`` wounds, excess lost: a dynamic programme over
    the wounds left on the model being worked on."""
    states = {wounds: 1.0}  # wounds left on the front model -> probability
    damage = destroyed = 0.0
    for _ in range(attacks):
        nxt: dict[int, float] = {}
        for front, q in states.items():
            nxt[front] = nxt.get(front, 0.0) + q * (1 - p)
            for d in values:
                w = q * p / len(values)
                dealt = min(d, front)
                damage += w * dealt
                left = front - dealt
                if left == 0:
                    destroyed += w
                    left = wounds
                nxt[left] = nxt.get(left, 0.0) + w
        states = nxt
    return damage, destroyed


@pytest.mark.parametrize(
    ("halve", "reduction", "values"),
    [(False, 0, [2, 3, 4]), (True, 0, [1, 2, 2]), (False, 1, [1, 2, 3]), (True, 1, [1, 1, 1])],
)
def test_damage_reduction_and_halving(registry: Registry, halve: bool, reduction: int, values: list[int]) -> None:
    # D3+1 into W2 models: halved (rounding up) 1, 2, 2; less 1: 1, 2, 3; both: never below 1.
    target = Target("T", 4, (ModelProfile("M", wounds=2, count=60, halve_damage=halve, damage_reduction=reduction),))
    weapon = Weapon("Gun", "1", None, 8, "D3+1", count=N, auto_hit=True)
    scenario = Scenario(attacker=Attacker(weapons=(weapon,)), target=target)
    r = mathhammer.simulate(scenario, trials=200_000, seed=9, registry=registry)
    damage, destroyed = exact_damage(values, N, 5 / 6, 2)
    assert_mean(r["damage"], damage)
    assert_mean(r["models_destroyed"], destroyed)


@pytest.mark.parametrize("half", [False, True])
def test_melta_adds_damage_at_half_range(registry: Registry, half: bool) -> None:
    r = run(
        registry,
        "Melta 2",
        count=1,
        auto_hit=True,
        skill=None,
        strength=10,
        damage="D6",
        context=Context(half_range=half),
    )
    pool = mathhammer.compile_scenario(
        Scenario(
            attacker=Attacker(weapons=(Weapon("M", "1", None, 10, "D6", auto_hit=True, keywords=("Melta 2",)),)),
            target=Target("T", 4, (ModelProfile("M", wounds=20),)),
            context=Context(half_range=half),
        ),
        registry=registry,
    ).plan.sequences[0]
    assert (pool.damage, pool.damage_bonus) == ("D6", 2 if half else 0)  # type: ignore[union-attr]
    assert r["damage"].pmf.size <= 2  # W1 models: excess damage is lost


@pytest.mark.parametrize(("half", "attacks"), [(False, N), (True, 2 * N)])
def test_rapid_fire_adds_attacks_at_half_range(registry: Registry, half: bool, attacks: int) -> None:
    assert run(registry, "Rapid Fire 1", context=Context(half_range=half))["attacks"].mean == attacks


@pytest.mark.parametrize(("version", "engaged", "net"), [("11e", False, 1), ("11e", True, -1), ("10e", True, 0)])
def test_heavy(registry: Registry, version: str, engaged: bool, net: int) -> None:
    # A VEHICLE may fire while engaged, at -1 to hit; 11th edition's Heavy needs the
    # unit unengaged, 10th's only that it Remained Stationary.
    r = run(
        registry,
        "Heavy",
        skill=4,
        context=Context(stationary=True, engaged=engaged),
        rules=VersionChoice(rules={"Heavy": version}),
        attacker_keywords=("Vehicle",),
    )
    assert_mean(r["hits"], N * (3 + net) / 6)
    assert_mean(run(registry, "Heavy", skill=4)["hits"], N * 3 / 6)


def test_lance_after_charging(registry: Registry) -> None:
    assert_mean(run(registry, "Lance", auto_hit=True, skill=None, context=Context(charged=True))["wounds"], N * 4 / 6)


@pytest.mark.parametrize(("models", "attacks"), [(4, N), (5, 2 * N), (11, 3 * N)])
def test_cleave_adds_attacks_per_five_models(registry: Registry, models: int, attacks: int) -> None:
    assert run(registry, "Cleave 1", models=models)["attacks"].mean == attacks


@pytest.fixture
def situational(make_registry: Callable[..., Registry]) -> Registry:
    from mathhammer_wh40k.keywords import hazardous, ignores_cover, indirect_fire, pistol, precision, psychic

    modules = [hazardous, ignores_cover, indirect_fire, pistol, precision, psychic, torrent]
    import mathhammer_devastating_wounds

    return make_registry(
        ("wh40k", plugin),
        ("devastating-wounds", mathhammer_devastating_wounds),
        *((m.__name__.rsplit(".", 1)[-1], m) for m in modules),
    )


def in_cover(version: str) -> dict[str, Any]:
    return dict(context=Context(in_cover=True), rules=VersionChoice(rules={"Cover": version}))


@pytest.mark.parametrize(
    ("version", "hit_mod", "p_hit"),
    [
        ("11e", 0, 3 / 6),  # BS3+ becomes 4+
        ("11e", -1, 2 / 6),  # and -1 to hit still applies: 11th's cover is outside the cap
        ("11e-modifier", 0, 3 / 6),
        ("11e-modifier", -1, 3 / 6),  # inside the cap: -2 becomes -1
        ("10e", 0, 4 / 6),  # 10th's cover is a save bonus, not a hit penalty
    ],
)
def test_cover_versions_on_the_hit_roll(situational: Registry, version: str, hit_mod: int, p_hit: float) -> None:
    r = run(situational, modifiers=Modifiers(hit=hit_mod), **in_cover(version))
    assert_mean(r["hits"], N * p_hit)
    assert r.rule_versions["Cover"] == version


@pytest.mark.parametrize(("save", "ap", "p_fail"), [(4, 0, 2 / 6), (3, 0, 2 / 6), (3, -1, 2 / 6), (2, -2, 2 / 6)])
def test_ten_e_cover_adds_one_to_the_save_but_not_for_3_plus_against_ap_0(
    situational: Registry, save: int, ap: int, p_fail: float
) -> None:
    target = Target("T", toughness=4, models=(ModelProfile("M", wounds=1, count=300, save=save),))
    scenario = Scenario(
        attacker=Attacker(weapons=(Weapon("Gun", "1", None, 8, "1", ap=ap, count=N, auto_hit=True),)),
        target=target,
        **in_cover("10e"),
    )
    r = mathhammer.simulate(scenario, trials=200_000, seed=3, registry=situational)
    # 4+ with +1: fails on 1-2; 3+ against AP0: no bonus, fails on 1-2; 3+ with AP-1 and +1: fails
    # on 1-2; 2+ with AP-2 and +1: 3+, fails on 1-2.
    assert_mean(r["failed_saves"], r["wounds"].mean * p_fail)


def test_ignores_cover_and_stealth(situational: Registry) -> None:
    assert_mean(run(situational, "Ignores Cover", **in_cover("11e"))["hits"], N * 4 / 6)
    stealthy = run(situational, target_keywords=("Stealth",))
    assert_mean(stealthy["hits"], N * 3 / 6)  # 11th: Stealth grants cover
    ten = run(situational, target_keywords=("Stealth",), rules=VersionChoice(edition="10e"))
    assert_mean(ten["hits"], N * 3 / 6)  # 10th: -1 to hit
    assert ten.rule_versions["Stealth"] == "10e"


def test_psychic_ignores_harmful_hit_modifiers_in_11e_only(situational: Registry) -> None:
    harmed = dict(modifiers=Modifiers(hit=-1), context=Context(in_cover=True))
    assert_mean(run(situational, "Psychic", **harmed)["hits"], N * 4 / 6)
    ten = run(situational, "Psychic", rules=VersionChoice(rules={"Psychic": "10e", "Cover": "11e"}), **harmed)
    assert_mean(ten["hits"], N * 2 / 6)


@pytest.mark.parametrize(
    ("version", "stationary", "spotted", "p_hit"),
    [
        ("11e", False, False, 1 / 6),  # 1-5 fail
        ("11e", True, True, 3 / 6),  # 1-3 fail; BS2+ worsened by cover to 3+
        ("10e-2023", False, False, 4 / 6),  # -1: BS2+ hits on 3+ (10th's cover is on the save)
        ("10e-2024", False, False, 3 / 6),  # and an unmodified 1-3 always fails
    ],
)
def test_indirect_fire(situational: Registry, version: str, stationary: bool, spotted: bool, p_hit: float) -> None:
    cover = "10e" if version.startswith("10e") else "11e"
    context = Context(target_visible=False, stationary=stationary, spotted=spotted)
    rules = VersionChoice(rules={"Indirect Fire": version, "Cover": cover})
    r = run(situational, "Indirect Fire", skill=2, context=context, rules=rules)
    assert_mean(r["hits"], N * p_hit)
    assert_mean(run(situational, "Indirect Fire", skill=2, rules=rules)["hits"], N * 5 / 6)  # visible: as usual


def test_indirect_fire_forbids_rerolls_in_11e_and_torrent_in_10e_2024(situational: Registry) -> None:
    hidden = Context(target_visible=False)
    r = run(situational, "Indirect Fire", context=hidden, modifiers=Modifiers(reroll_hits="failures"), skill=2)
    assert_mean(r["hits"], N * 1 / 6)
    with pytest.raises(mathhammer.ScenarioError, match="Torrent weapons cannot shoot indirectly"):
        run(situational, "Indirect Fire", "Torrent", context=hidden, rules=VersionChoice(edition="10e"))


def test_only_pistols_shoot_while_engaged(situational: Registry) -> None:
    engaged = Context(engaged=True)
    assert_mean(run(situational, "Pistol", context=engaged)["hits"], N * 4 / 6)
    assert_mean(run(situational, "Close-quarters", context=engaged)["hits"], N * 4 / 6)
    with pytest.raises(mathhammer.ScenarioError, match="'Gun' is not a Pistol"):
        run(situational, context=engaged)
    assert_mean(run(situational, context=engaged, attacker_keywords=("Monster",))["hits"], N * 3 / 6)


def attached(
    registry: Registry, *keywords: str, visible: bool = True, dice: tuple[int, ...] = (6, 1)
) -> dict[str, Any]:
    target = Target(
        "Squad with a Hero",
        toughness=4,
        models=(ModelProfile("Trooper", wounds=1, count=10), ModelProfile("Hero", wounds=3, character=True)),
    )
    weapon = Weapon("Gun", "1", None, 8, "3", auto_hit=True, keywords=keywords)
    scenario = Scenario(attacker=Attacker(weapons=(weapon,)), target=target, context=Context(character_visible=visible))
    return mathhammer.replay(scenario, list(dice), registry=registry)


def test_precision_sends_the_attack_to_the_character(situational: Registry) -> None:
    destroyed = [e["group"] for e in attached(situational, "Precision")["events"] if e["event"] == "model_destroyed"]
    assert destroyed == ["Hero"]
    unseen = attached(situational, "Precision", visible=False)["events"]
    assert [e["group"] for e in unseen if e["event"] == "model_destroyed"] == ["Trooper"]
    plain = [e["group"] for e in attached(situational)["events"] if e["event"] == "model_destroyed"]
    assert plain == ["Trooper"]


def test_precision_devastating_mortal_wounds_go_to_the_character_first(situational: Registry) -> None:
    # A critical wound (6) with Devastating Wounds: 3 mortal wounds on the Hero.
    events = attached(situational, "Precision", "Devastating Wounds", dice=(6,))["events"]
    assert [e["group"] for e in events if e["event"] == "model_destroyed"] == ["Hero"]


@pytest.mark.parametrize(
    ("version", "keywords", "mean"),
    [
        ("11e", (), N * 2 / 6 * 1),
        ("11e", ("Vehicle",), N * 2 / 6 * 3),
        ("10e-2024", (), N * 1 / 6 * 3),
    ],
)
def test_hazardous_mortal_wounds_the_attacker_suffers(
    situational: Registry, version: str, keywords: tuple[str, ...], mean: float
) -> None:
    r = run(situational, "Hazardous", attacker_keywords=keywords, rules=VersionChoice(rules={"Hazardous": version}))
    assert_mean(r["attacker_mortal_wounds"], mean)
    assert "attacker_damage" not in r.stages  # no attacker models listed: only counted


def test_hazardous_against_the_attackers_own_models(situational: Registry) -> None:
    weapon = Weapon("Plasma", "1", 3, 8, "2", count=5, keywords=("Hazardous",))
    attacker = Attacker(weapons=(weapon,), models=(ModelProfile("Marine", wounds=2, count=5),))
    scenario = Scenario(attacker=attacker, target=Target("T", 4, (ModelProfile("M", wounds=1, count=20),)))
    r = mathhammer.simulate(scenario, trials=200_000, seed=2, registry=situational)
    # Five hazard rolls failing on 1-2, one mortal wound each, spilling over W2 models.
    assert_mean(r["attacker_damage"], 5 * 2 / 6)
    assert r["attacker_models_destroyed"].mean > 0


@pytest.fixture
def everything(registry_all: Registry) -> Registry:
    return registry_all


def test_mortal_wounds_in_addition_come_with_lethal_hits_too(everything: Registry) -> None:
    r = run(everything, "Lethal Hits", mortal_wounds="1")
    assert_mean(r["mortal_wounds"], r["wounds"].mean)
    assert_mean(r["mortal_wounds"], N * (1 / 6 + 3 / 6 * 3 / 6))


def test_lethal_hits_can_be_declined(everything: Registry) -> None:
    r = run(everything, "Lethal Hits", rules=VersionChoice(rules={"Lethal Hits": "roll"}))
    assert_mean(r["wounds"], N * 4 / 6 * 3 / 6)
    assert r.rule_versions["Lethal Hits"] == "roll"


def bodyguard(registry: Registry, version: str, *keywords: str, **weapon: Any) -> Result:
    target = Target(
        "Squad with a Hero",
        toughness=4,
        models=(ModelProfile("Guard", wounds=1, count=10, save=2), ModelProfile("Hero", wounds=40, character=True)),
    )
    w: dict[str, Any] = dict(name="Gun", attacks="1", skill=None, strength=4, damage="1", count=N, auto_hit=True)
    w.update(weapon)
    scenario = Scenario(
        attacker=Attacker(weapons=(Weapon(keywords=("Precision", *keywords), **w),)),
        target=target,
        rules=VersionChoice(rules={"Devastating Wounds": version}),
    )
    return mathhammer.simulate(scenario, trials=50_000, seed=5, registry=registry)


@pytest.mark.parametrize("version", ["11e", "10e-2023-06", "10e-2023-09", "10e-2024", "10e-2024-spill"])
def test_precision_keeps_devastating_wounds_on_the_character_in_every_version(
    everything: Registry, version: str
) -> None:
    # Critical wounds on 2+: every wound is a Devastating one, and the Hero (W40)
    # soaks all of them, even those held until every other attack.
    r = bodyguard(everything, version, "Devastating Wounds", modifiers=Modifiers(critical_wound=2))
    assert r["models_destroyed"].mean == 0.0


def test_precision_does_not_steer_other_mortal_wounds(everything: Registry) -> None:
    r = bodyguard(everything, "11e", mortal_wounds="1")
    assert r["models_destroyed"].mean > 1.0  # mortal wounds in addition go to the Guards


def test_hazardous_10e_2023_character_bearer_takes_three_mortal_wounds(everything: Registry) -> None:
    weapon = Weapon("Plasma", "1", 3, 8, "2", keywords=("Hazardous",))
    lord = Attacker(weapons=(weapon,), models=(ModelProfile("Lord", wounds=5, character=True),))
    s = Scenario(
        attacker=lord,
        target=Target("T", 4, (ModelProfile("M", wounds=1, count=5),)),
        rules=VersionChoice(rules={"Hazardous": "10e-2023"}),
    )
    r = mathhammer.simulate(s, trials=100_000, seed=1, registry=everything)
    assert r["attacker_models_destroyed"].mean == 0.0
    assert_mean(r["attacker_damage"], 3 / 6)
    trooper = Attacker(weapons=(weapon,))
    with pytest.raises(mathhammer.ScenarioError, match="destroys the bearer: list the attacker's models"):
        mathhammer.compile_scenario(Scenario(attacker=trooper, target=s.target, rules=s.rules), registry=everything)


def test_heavy_is_for_ranged_weapons(everything: Registry) -> None:
    r = run(everything, "Heavy", type="melee", skill=4, context=Context(stationary=True))
    assert_mean(r["hits"], N * 3 / 6)


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("Sustained Hits", r"Sustained Hits needs a value, as in Sustained Hits 1"),
        ("Melta D3", r"Melta takes a whole number from 1 to 100, not 'd3'"),
        ("Cleave 1000", r"Cleave takes a whole number from 1 to 100"),
        ("Rapid Fire", r"Rapid Fire needs a value"),
    ],
)
def test_keyword_values_are_checked_where_they_are_written(everything: Registry, keyword: str, message: str) -> None:
    with pytest.raises(mathhammer.ScenarioError, match=rf"keywords\[0\]: '{keyword}': {message}"):
        run(everything, keyword)


def test_blast_x_is_eleventh_editions(everything: Registry) -> None:
    # Chosen by nothing, Blast 2 follows 11th edition, the one version that prints it.
    assert run(everything, "Blast 2").rule_versions["Blast"] == "11e"
    # A scenario choosing a version without an X is refused, naming its field and value.
    message = r"field rules\.Blast: is '10e', which selects Blast version '10e'"
    with pytest.raises(mathhammer.ScenarioError, match=message):
        run(everything, "Blast 2", rules=VersionChoice(rules={"Blast": "10e"}))


def test_a_weapons_rule_table_is_checked(everything: Registry) -> None:
    target = Target("T", 4, (ModelProfile("M", wounds=1, count=5),))
    for table, message in [
        ({"Blsat": "11e"}, r"rules\.Blsat: 'Blsat' is not a rule"),
        ({"Blast": "12e"}, r"rules\.Blast: '12e' is not a version of 'Blast'"),
    ]:
        weapon = Weapon("Gun", "1", 3, 4, "1", rules=table)
        with pytest.raises(mathhammer.ScenarioError, match=rf"attacker\.weapons\[0\]\.{message}"):
            mathhammer.compile_scenario(
                Scenario(attacker=Attacker(weapons=(weapon,)), target=target), registry=everything
            )


@pytest.mark.parametrize(
    "spelling", ["sustained hits 1", "[SUSTAINED HITS 1]", "Sustained Hits: 1", "[Sustained Hits:1]"]
)
def test_a_keyword_is_spelt_as_datasheets_spell_it(registry: Registry, spelling: str) -> None:
    def plan(keyword: str) -> dict[str, Any]:
        weapon = Weapon(name="Gun", attacks="1", skill=3, strength=4, damage="1", count=N, keywords=(keyword,))
        scenario = Scenario(
            attacker=Attacker(weapons=(weapon,)),
            target=Target("T", toughness=4, keywords=("Vehicle",), models=(ModelProfile("M", wounds=1, count=9),)),
        )
        return mathhammer.compile_scenario(scenario, registry=registry).plan.to_dict()

    assert plan(spelling) == plan("Sustained Hits 1")
    assert plan("[LETHAL HITS: VEHICLE]") == plan("Lethal Hits")  # words after a colon restrict the target
