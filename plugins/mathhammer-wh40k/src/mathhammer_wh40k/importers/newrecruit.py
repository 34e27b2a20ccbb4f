"""NewRecruit's JSON export: the roster tree of :mod:`.json_roster`.

Recognised as a JSON document with a top-level ``roster`` object whose
``generatedBy`` (when present) does not name ListForge.
"""

from __future__ import annotations

from mathhammer_wh40k.importers.json_roster import JsonExport, names_listforge

NEWRECRUIT = JsonExport("newrecruit", "NewRecruit JSON export", lambda generated_by: not names_listforge(generated_by))
