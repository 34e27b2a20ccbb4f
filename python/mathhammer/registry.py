"""Finding and loading plugins: rulesets and keywords by name.

Plugins are found through the ``mathhammer`` entry-point group and loaded by
pluggy.
A plugin that fails to import (even by calling ``sys.exit``), implements a
hook mathhammer does not have, or raises or registers something wrong inside
a registration hook, is recorded as broken with its error and keeps nothing
it registered; every other plugin keeps working.
Two plugins registering one ruleset name, or one keyword name in a ruleset,
disable only that name: using it is an error naming both plugins.

Environment knobs:
    ``MATHHAMMER_LOAD_PLUGINS=a,b``: load only these entry points.
    ``MATHHAMMER_DISABLED_PLUGINS=a,b``: block these (``pm.set_blocked``).
    ``MATHHAMMER_TRACE_PLUGINS=1``: print every hook call to stderr.
"""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import pluggy

from mathhammer import hookspecs
from mathhammer.exceptions import PluginConflictError, PluginError, PluginWarning, UnknownRulesetError
from mathhammer.hookspecs import HOOK_API_VERSION
from mathhammer.importers import Importer
from mathhammer.keywords import KeywordSpec, KeywordTable, conflict_message
from mathhammer.ruleset import Ruleset

ENTRY_POINT_GROUP = "mathhammer"

RulesetRegistrar = Callable[[Ruleset], None]
KeywordRegistrar = Callable[[KeywordSpec], None]


@dataclass
class BrokenPlugin:
    """A plugin that could not be used, and why."""

    name: str
    error: str


@dataclass
class PluginInfo:
    """Where a loaded plugin came from."""

    name: str
    distribution: str | None
    version: str | None


@dataclass
class Registry:
    """The rulesets and keywords of a set of plugins.

    Build one with :func:`load_registry` (installed plugins) or
    :meth:`from_plugins` (given objects, as tests do).
    """

    manager: pluggy.PluginManager
    rulesets: dict[str, Ruleset] = field(default_factory=dict)
    ruleset_origin: dict[str, str] = field(default_factory=dict)
    keywords: dict[str, KeywordTable] = field(default_factory=dict)
    broken: list[BrokenPlugin] = field(default_factory=list)
    plugins: list[PluginInfo] = field(default_factory=list)
    conflicts: dict[str, list[str]] = field(default_factory=dict)
    """Ruleset names two or more plugins registered (disabled), to those plugins."""
    importers: dict[str, Importer] = field(default_factory=dict)
    """Army-list importers by name, in registration order."""
    importer_conflicts: dict[str, list[str]] = field(default_factory=dict)
    """Importer names two or more plugins registered (disabled), to those plugins."""
    _importer_origin: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_plugins(cls, plugins: Iterable[tuple[str, object]]) -> Registry:
        """A registry of the given ``(name, plugin)`` pairs; no entry points are read."""
        registry = cls(manager=new_manager())
        for name, plugin in plugins:
            if registry.refuses(name, plugin):
                continue
            registry._register(name, plugin, PluginInfo(name, None, None))
        registry._drop_unknown_hooks()
        registry.collect()
        return registry

    def _register(self, name: str, plugin: object, info: PluginInfo) -> None:
        try:
            self.manager.register(plugin, name=name)
        except Exception as exc:  # pluggy refuses a hook implementation taking arguments the hook lacks
            self.broken.append(BrokenPlugin(name, f"cannot be registered: {type(exc).__name__}: {exc}"))
            return
        self.plugins.append(info)

    def _drop_unknown_hooks(self) -> None:
        """Unregister, as broken, each plugin that implements a hook mathhammer does not have (a misspelling).

        This is ``pm.check_pending()`` plugin by plugin: one plugin's typo must
        not stop every command, ``mathhammer plugins`` included.
        """
        known = [name for name in vars(self.manager.hook) if not name.startswith("_")]
        specified = [n for n in known if getattr(self.manager.hook, n).has_spec()]
        for name in known:
            caller = getattr(self.manager.hook, name)
            if caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if impl.optionalhook or self.manager.get_plugin(impl.plugin_name) is None:
                    continue
                close = difflib.get_close_matches(name, specified, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.broken.append(
                    BrokenPlugin(impl.plugin_name, f"implements hook {name!r}, which mathhammer does not have{hint}")
                )
                self.manager.unregister(name=impl.plugin_name)
                self.plugins = [p for p in self.plugins if p.name != impl.plugin_name]

    def ruleset(self, name: str, *, source: str | None = None) -> Ruleset:
        """The ruleset called ``name``.

        Raises:
            UnknownRulesetError: listing the rulesets that are installed.
        """
        if name in self.conflicts:
            raise PluginConflictError(conflict_message(f"ruleset {name!r}", self.conflicts[name]))
        try:
            return self.rulesets[name]
        except KeyError:
            known = ", ".join(sorted(self.rulesets)) or "none"
            hint = f" ({len(self.broken)} plugin(s) failed to load: see `mathhammer plugins`)" if self.broken else ""
            raise UnknownRulesetError(
                f"unknown ruleset {name!r}; installed rulesets: {known}{hint}", source=source, field="ruleset"
            ) from None

    def refuses(self, name: str, plugin: object) -> bool:
        """Whether ``plugin`` declares a hook API other than this one; if so it is recorded as broken, with a warning.

        A plugin declares the hook API it was written for with a module-level
        ``MATHHAMMER_HOOK_API = <version>``; one that declares none is taken to fit.
        """
        wanted = getattr(plugin, "MATHHAMMER_HOOK_API", HOOK_API_VERSION)
        if wanted == HOOK_API_VERSION:
            return False
        why = (
            f"skipped: it needs hook API version {wanted!r}, and this mathhammer provides version {HOOK_API_VERSION}; "
            "install a release of the plugin made for it, or a mathhammer that provides its version"
        )
        self.broken.append(BrokenPlugin(name, why))
        warnings.warn(f"plugin {name!r} {why}", PluginWarning, stacklevel=3)
        return True

    def keyword_table(self, ruleset: str) -> KeywordTable:
        """The keywords registered for ``ruleset`` (possibly none)."""
        return self.keywords.setdefault(ruleset, KeywordTable(ruleset))

    def collect(self) -> None:
        """Call the registration hooks of every registered plugin, one plugin at a time.

        What a plugin registers is kept only if all its registration hooks
        return normally and every item is of the right type: a plugin that
        raises part way keeps nothing, rather than half its rules.
        """
        staged: dict[str, list[tuple[Callable[[str, Any], None], Any]]] = {}
        failed: dict[str, str] = {}
        hooks: tuple[tuple[str, Callable[[str, Any], None], type], ...] = (
            ("mathhammer_register_rulesets", self._add_ruleset, Ruleset),
            ("mathhammer_register_keywords", self._add_keyword, KeywordSpec),
            ("mathhammer_register_importers", self._add_importer, Importer),
        )
        for hook_name, add, kind in hooks:
            for impl in getattr(self.manager.hook, hook_name).get_hookimpls():
                plugin = impl.plugin_name
                if plugin in failed:
                    continue
                # Call each plugin on its own, through pluggy (so tracing sees
                # it), to know who registered what and to isolate failures.
                others = [p for p in self.manager.get_plugins() if p is not impl.plugin]
                caller = self.manager.subset_hook_caller(hook_name, remove_plugins=others)
                items = staged.setdefault(plugin, [])
                wrong: list[str] = []

                def register(
                    item: Any,
                    _items: list[tuple[Callable[[str, Any], None], Any]] = items,
                    _add: Callable[[str, Any], None] = add,
                    _kind: type = kind,
                    _wrong: list[str] = wrong,
                ) -> None:
                    if not isinstance(item, _kind):
                        _wrong.append(f"registered {item!r}, which is not a {_kind.__name__}")
                        raise PluginError(_wrong[-1])
                    _items.append((_add, item))

                try:
                    caller(register=register)
                except (Exception, SystemExit) as exc:  # a broken plugin must not take the others down
                    failed[plugin] = f"{hook_name} raised {type(exc).__name__}: {exc}"
                if wrong and plugin not in failed:  # the plugin caught the error register raised
                    failed[plugin] = f"{hook_name} {wrong[0]}"
        for plugin, error in failed.items():
            # Its other hooks (batch hooks, ...) must not run either.
            self.manager.unregister(name=plugin)
            self.plugins = [p for p in self.plugins if p.name != plugin]
            self.broken.append(BrokenPlugin(plugin, f"{error}; nothing it registered is used"))
        for plugin, items in staged.items():
            if plugin not in failed:
                for add, item in items:
                    add(plugin, item)

    def _add_ruleset(self, plugin: str, ruleset: Ruleset) -> None:
        _add_unique(ruleset.name, ruleset, plugin, self.rulesets, self.ruleset_origin, self.conflicts)

    def _add_importer(self, plugin: str, importer: Importer) -> None:
        _add_unique(importer.name, importer, plugin, self.importers, self._importer_origin, self.importer_conflicts)

    def _add_keyword(self, plugin: str, spec: KeywordSpec) -> None:
        self.keyword_table(spec.ruleset).add(spec, plugin, self.distribution(plugin))

    def distribution(self, plugin: str) -> str | None:
        """The distribution that installed ``plugin``, or ``None`` for one registered in-process."""
        return next((info.distribution for info in self.plugins if info.name == plugin), None)

    def conflict_messages(self) -> list[str]:
        """One line per name two plugins registered, naming them: rulesets, importers, then keywords."""
        lines = [conflict_message(f"ruleset {name!r}", plugins) for name, plugins in self.conflicts.items()]
        lines += [conflict_message(f"importer {name!r}", plugins) for name, plugins in self.importer_conflicts.items()]
        for table in self.keywords.values():
            for specs, plugins in table.conflicts.values():
                lines.append(conflict_message(f"keyword {specs[0].name!r} of ruleset {table.ruleset!r}", plugins))
        return lines


def _add_unique(
    name: str,
    item: Any,
    plugin: str,
    items: dict[str, Any],
    origin: dict[str, str],
    conflicts: dict[str, list[str]],
) -> None:
    """Add ``item`` as ``name`` from ``plugin``, unless another plugin has the name: then neither
    plugin wins, the name is disabled (recorded in ``conflicts``) and every other name works."""
    if name in conflicts:
        conflicts[name].append(plugin)
    elif name in items:
        conflicts[name] = [origin.pop(name), plugin]
        del items[name]
    else:
        items[name] = item
        origin[name] = plugin


def new_manager() -> pluggy.PluginManager:
    """A plugin manager with mathhammer's hookspecs and nothing registered."""
    pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    if os.environ.get("MATHHAMMER_TRACE_PLUGINS"):
        pm.trace.root.setwriter(sys.stderr.write)
        pm.enable_tracing()
    return pm


def _names(variable: str) -> set[str] | None:
    value = os.environ.get(variable)
    if value is None:
        return None
    return {n.strip() for n in value.split(",") if n.strip()}


def load_registry(entry_points_: Iterable[EntryPoint] | None = None) -> Registry:
    """A registry of the installed plugins (entry-point group ``mathhammer``).

    Args:
        entry_points_: Entry points to load instead of the installed ones.

    Broken plugins are recorded in :attr:`Registry.broken`, names two plugins
    claim in :attr:`Registry.conflicts` and :attr:`KeywordTable.conflicts`.
    """
    registry = Registry(manager=new_manager())
    only = _names("MATHHAMMER_LOAD_PLUGINS")
    blocked = _names("MATHHAMMER_DISABLED_PLUGINS") or set()
    for name in blocked:
        registry.manager.set_blocked(name)
    eps = entry_points(group=ENTRY_POINT_GROUP) if entry_points_ is None else entry_points_
    for ep in sorted(eps, key=lambda e: e.name):
        if (only is not None and ep.name not in only) or registry.manager.is_blocked(ep.name):
            continue
        dist = getattr(ep, "dist", None)
        try:
            plugin = ep.load()
        except (Exception, SystemExit) as exc:  # a broken plugin must not take the others down
            registry.broken.append(BrokenPlugin(ep.name, f"import failed: {type(exc).__name__}: {exc}"))
            continue
        if registry.refuses(ep.name, plugin):
            continue
        info = PluginInfo(ep.name, dist.name if dist else None, dist.version if dist else None)
        registry._register(ep.name, plugin, info)
    registry._drop_unknown_hooks()
    registry.collect()
    return registry


_default: Registry | None = None


def default_registry() -> Registry:
    """The registry of installed plugins, loaded once per process."""
    global _default
    if _default is None:
        _default = load_registry()
    return _default
