"""ListForge's JSON export: the roster tree of :mod:`.json_roster`.

Recognised as a JSON document with a top-level ``roster`` object and a
``generatedBy`` that names ListForge (its exports write ``List Forge`` at the
document's top level).
"""

from __future__ import annotations

from mathhammer_wh40k.importers.json_roster import JsonExport, names_listforge

LISTFORGE = JsonExport("listforge", "ListForge JSON export", names_listforge)
