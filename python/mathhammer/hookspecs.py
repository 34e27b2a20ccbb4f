"""Every hook a mathhammer plugin can implement.

A plugin is a module (or object) found through the ``mathhammer`` entry-point
group and marked up with :data:`mathhammer.hookimpl`.
Rulesets and keywords are registered through callbacks, so one plugin can
provide several and a conflict can name both plugins involved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from mathhammer.importers import ImporterRegistrar
    from mathhammer.registry import KeywordRegistrar, RulesetRegistrar

hookspec = pluggy.HookspecMarker("mathhammer")
hookimpl = pluggy.HookimplMarker("mathhammer")

HOOK_API_VERSION = 1
"""The version of the hook API these specs make up.

It changes only when a hook changes in a way existing plugins would notice
(adding an argument does not: implementations may take fewer). A plugin
written for another version says so with ``MATHHAMMER_HOOK_API = <version>``
at module level and is skipped, by name and with a warning.
"""


# -------------------------------------------------------------------------
# Registration hooks: called once, when the plugin registry is built
# -------------------------------------------------------------------------


@hookspec
def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
    """Register the rulesets this plugin provides.

    Call ``register(ruleset)`` once per ruleset, where ``ruleset`` satisfies
    :class:`mathhammer.ruleset.Ruleset`.
    A ruleset name may be registered by one plugin only; a second disables the
    name, and using it raises :class:`~mathhammer.exceptions.PluginConflictError`
    naming both plugins.

    :param register: Callable accepting a ``Ruleset``.

    .. versionadded:: 0.1
    """


@hookspec
def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
    """Register weapon keywords (abilities) this plugin provides.

    Call ``register(keyword)`` once per keyword, where ``keyword`` is a
    :class:`mathhammer.keywords.KeywordSpec` naming its ruleset.
    Names are unique within a ruleset, not across rulesets: 40k's Hazardous and
    the d12 system's Hazardous X are different keywords.
    A duplicate within one ruleset disables that keyword, and using it raises
    :class:`~mathhammer.exceptions.PluginConflictError` naming both plugins.

    :param register: Callable accepting a ``KeywordSpec``.

    .. versionadded:: 0.1
    """


@hookspec
def mathhammer_register_importers(register: ImporterRegistrar) -> None:
    """Register the army-list importers this plugin provides.

    Call ``register(importer)`` once per list format, where ``importer``
    satisfies :class:`mathhammer.importers.Importer`: it recognises its files
    and reads one into an :class:`~mathhammer.importers.ImportedList` of
    scenario tables for its ruleset. ``mathhammer import`` tries the importers
    in registration order and uses the first that recognises the file.
    An importer name may be registered by one plugin only; a second disables
    the name, and the conflict is reported naming both plugins.

    :param register: Callable accepting an ``Importer``.

    .. versionadded:: 0.2
    """
