"""Army-list importers for 40k: BattleScribe (``.ros``, ``.rosz``), NewRecruit and ListForge JSON.

Registered through ``mathhammer_register_importers``; ``mathhammer import LIST``
uses the first that recognises the file.
"""

from __future__ import annotations

from mathhammer.plugin import ImporterRegistrar, hookimpl
from mathhammer_wh40k.importers.battlescribe import Ros, Rosz
from mathhammer_wh40k.importers.listforge import LISTFORGE
from mathhammer_wh40k.importers.newrecruit import NEWRECRUIT


@hookimpl
def mathhammer_register_importers(register: ImporterRegistrar) -> None:
    register(Rosz())
    register(Ros())
    register(LISTFORGE)
    register(NEWRECRUIT)
