"""Weapon abilities that never change one attack calculation, accepted as printed so
datasheets load whole; the Result lists each with its reason.

- One Shot: the weapon fires once per battle; a calculation is one firing.
- Extra Attacks: the bearer attacks with it on top of another weapon; list every
  weapon the model attacks with and each is counted. In 10th edition other rules
  cannot change its attacks; scenario modifiers are the user's to leave off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathhammer.plugin import KeywordSpec, hookimpl

if TYPE_CHECKING:
    from mathhammer.plugin import KeywordRegistrar

ONE_SHOT = KeywordSpec.without_effect(
    "wh40k", "One Shot", "it limits the weapon to one firing per battle, and this calculation is one firing"
)
EXTRA_ATTACKS = KeywordSpec.without_effect(
    "wh40k",
    "Extra Attacks",
    "it lets the bearer attack with this weapon as well as another; every weapon listed attacks here",
)


@hookimpl
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    register(ONE_SHOT)
    register(EXTRA_ATTACKS)
