"""Every limit mathhammer enforces, as the Rust core defines them.

Each keeps a typing mistake from becoming an hour-long run or an exhausted
memory, and sits far above any real datasheet.
Rulesets check scenario fields against these, so an error names the field;
``docs/scenario-files.md`` quotes them (a test keeps the two equal).
"""

from __future__ import annotations

from mathhammer import _core

__all__ = [
    "MAX_ATTACKS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_MODELS",
    "MAX_MODIFIER",
    "MAX_ROLL_COMBINATIONS",
    "MAX_ROUNDS",
    "MAX_SIDES",
    "MAX_TOKENS_PER_TRIAL",
    "MAX_TRIALS",
    "MAX_VALUE",
]

MAX_DICE: int = _core.MAX_DICE
"""The most dice one dice expression may roll (``100D6``)."""
MAX_SIDES: int = _core.MAX_SIDES
"""The most sides a die in a dice expression may have."""
MAX_CONSTANT: int = _core.MAX_CONSTANT
"""The largest constant term of a dice expression (the ``+1`` of ``D6+1``, or a plain number)."""
MAX_MODELS: int = _core.MAX_MODELS
"""The most models a side may hold, and the most models one weapon profile may give attacks to."""
MAX_ATTACKS: int = _core.MAX_ATTACKS
"""The most attack dice one trial's attacks may roll (models times their most Attacks), before extra hits."""
MAX_TOKENS_PER_TRIAL: int = _core.MAX_TOKENS_PER_TRIAL
"""The most attack dice one trial may create, extra hits (such as Sustained Hits) included."""
MAX_VALUE: int = _core.MAX_VALUE
"""The largest value a reported number may reach in one trial: wounds of a side, damage, any counter."""
MAX_MODIFIER: int = _core.MAX_MODIFIER
"""The largest modifier, AP or bonus, either way."""
MAX_ROUNDS: int = _core.MAX_ROUNDS
"""The most rounds a fight may last."""
MAX_ROLL_COMBINATIONS: int = _core.MAX_ROLL_COMBINATIONS
"""The most combinations of faces one roll of several dice may have."""
MAX_TRIALS: int = _core.MAX_TRIALS
"""The most trials one run may ask for."""
