"""ListForge's JSON export: the roster tree of :mod:`.json_roster`.

Recognised as a JSON document with a top-level ``roster`` object whose
``generatedBy`` names ListForge.
"""

from __future__ import annotations

from mathhammer_wh40k.importers.json_roster import JsonExport

LISTFORGE = JsonExport("listforge", "ListForge JSON export", lambda generated_by: "listforge" in generated_by)
