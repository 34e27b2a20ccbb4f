"""Finding and loading plugins: rulesets and keywords by name.

Plugins are found through the ``mathhammer`` entry-point group and loaded by
pluggy.
A plugin that fails to import, or raises inside a registration hook, is
recorded as broken with its error, and every other plugin keeps working.

Environment knobs:
    ``MATHHAMMER_LOAD_PLUGINS=a,b``: load only these entry points.
    ``MATHHAMMER_DISABLED_PLUGINS=a,b``: block these (``pm.set_blocked``).
    ``MATHHAMMER_TRACE_PLUGINS=1``: print every hook call to stderr.
"""

from __future__ import annotations

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
from mathhammer.keywords import KeywordSpec, KeywordTable
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

    @classmethod
    def from_plugins(cls, plugins: Iterable[tuple[str, object]]) -> Registry:
        """A registry of the given ``(name, plugin)`` pairs; no entry points are read."""
        registry = cls(manager=new_manager())
        for name, plugin in plugins:
            if registry.refuses(name, plugin):
                continue
            registry.manager.register(plugin, name=name)
            registry.plugins.append(PluginInfo(name, None, None))
        registry.collect()
        return registry

    def ruleset(self, name: str, *, source: str | None = None) -> Ruleset:
        """The ruleset called ``name``.

        Raises:
            UnknownRulesetError: listing the rulesets that are installed.
        """
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
        """Call the registration hooks of every registered plugin, one plugin at a time."""
        for hook_name, add in (
            ("mathhammer_register_rulesets", self._add_ruleset),
            ("mathhammer_register_keywords", self._add_keyword),
        ):
            for impl in getattr(self.manager.hook, hook_name).get_hookimpls():
                plugin = impl.plugin_name
                # Call each plugin on its own, through pluggy (so tracing sees
                # it), to know who registered what and to isolate failures.
                others = [p for p in self.manager.get_plugins() if p is not impl.plugin]
                caller = self.manager.subset_hook_caller(hook_name, remove_plugins=others)

                def register(item: Any, _plugin: str = plugin, _add: Callable[[str, Any], None] = add) -> None:
                    _add(_plugin, item)

                try:
                    caller(register=register)
                except (PluginConflictError, PluginError):
                    raise
                except Exception as exc:  # a broken plugin must not take the others down
                    self.broken.append(BrokenPlugin(plugin, f"{hook_name} raised {type(exc).__name__}: {exc}"))

    def _add_ruleset(self, plugin: str, ruleset: Ruleset) -> None:
        if not isinstance(ruleset, Ruleset):
            raise PluginError(f"plugin {plugin!r} registered {ruleset!r}, which is not a Ruleset")
        if ruleset.name in self.rulesets:
            raise PluginConflictError(
                f"ruleset {ruleset.name!r} is registered by both plugin {self.ruleset_origin[ruleset.name]!r} "
                f"and plugin {plugin!r}; uninstall or block one (MATHHAMMER_DISABLED_PLUGINS)"
            )
        self.rulesets[ruleset.name] = ruleset
        self.ruleset_origin[ruleset.name] = plugin

    def _add_keyword(self, plugin: str, spec: KeywordSpec) -> None:
        if not isinstance(spec, KeywordSpec):
            raise PluginError(f"plugin {plugin!r} registered {spec!r}, which is not a KeywordSpec")
        table = self.keyword_table(spec.ruleset)
        key = spec.name.casefold()
        if key in {k.casefold() for k in table.specs}:
            other = next(table.origin[k] for k in table.specs if k.casefold() == key)
            raise PluginConflictError(
                f"keyword {spec.name!r} of ruleset {spec.ruleset!r} is registered by both plugin {other!r} "
                f"and plugin {plugin!r}; uninstall or block one (MATHHAMMER_DISABLED_PLUGINS)"
            )
        table.specs[spec.name] = spec
        table.origin[spec.name] = plugin
        table.distribution[spec.name] = self.distribution(plugin)

    def distribution(self, plugin: str) -> str | None:
        """The distribution that installed ``plugin``, or ``None`` for one registered in-process."""
        return next((info.distribution for info in self.plugins if info.name == plugin), None)


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

    Raises:
        PluginConflictError: when two plugins claim one ruleset or keyword name.
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
            if registry.refuses(ep.name, plugin):
                continue
            registry.manager.register(plugin, name=ep.name)
        except Exception as exc:  # a broken plugin must not take the others down
            registry.broken.append(BrokenPlugin(ep.name, f"import failed: {type(exc).__name__}: {exc}"))
            continue
        registry.plugins.append(PluginInfo(ep.name, dist.name if dist else None, dist.version if dist else None))
    try:
        registry.manager.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"a plugin implements a hook mathhammer does not have: {exc}") from exc
    registry.collect()
    return registry


_default: Registry | None = None


def default_registry() -> Registry:
    """The registry of installed plugins, loaded once per process."""
    global _default
    if _default is None:
        _default = load_registry()
    return _default
