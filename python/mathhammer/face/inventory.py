"""What ``mathhammer plugins`` shows: the installed rulesets, their keywords and the plugins behind them.

:func:`describe` gathers it as plain data (what ``--json`` prints) and
:func:`render` lays it out for people: each keyword with its one-line
description, its rule versions and the distribution it came from, marking
keywords that are not among the ruleset's own (a third party's additions).
"""

from __future__ import annotations

from typing import Any

from mathhammer.hookspecs import HOOK_API_VERSION
from mathhammer.keywords import KeywordSpec, KeywordTable
from mathhammer.registry import Registry


def _rule(spec: KeywordSpec) -> dict[str, Any] | None:
    if spec.rule is None:
        return None
    rule = spec.rule
    return {
        "name": rule.name,
        "default": rule.default,
        "versions": dict(rule.versions),
        "editions": dict(rule.editions),
    }


def _keyword(registry: Registry, table: KeywordTable, name: str) -> dict[str, Any]:
    spec = table.specs[name]
    ruleset = registry.rulesets.get(table.ruleset)
    own_names = getattr(ruleset, "own_keywords", None)
    plugin = table.origin.get(name)
    info = next((p for p in registry.plugins if p.name == plugin), None)
    return {
        "ruleset": table.ruleset,
        "name": name,
        "description": spec.description,
        "own": None if own_names is None else name in own_names,
        "rule": _rule(spec),
        "plugin": plugin,
        "distribution": info.distribution if info else None,
        "version": info.version if info else None,
    }


def describe(registry: Registry) -> dict[str, Any]:
    """Everything ``mathhammer plugins`` reports, as JSON-ready data.

    Keys: ``hook_api_version``; ``rulesets`` (``name``, ``title``, ``version``,
    ``plugin``, ``distribution``); ``keywords`` (``ruleset``, ``name``,
    ``description``, ``own``: whether the ruleset counts it among its own, or
    ``null`` when the ruleset does not say, ``rule``: its versions or ``null``,
    ``plugin``, ``distribution``, ``version``); ``plugins`` (``name``,
    ``distribution``, ``version``); ``broken`` (``name``, ``error``); ``conflicts``
    (one message per ruleset or keyword name two plugins registered, so neither is used).
    """
    rulesets = []
    for name, ruleset in sorted(registry.rulesets.items()):
        plugin = registry.ruleset_origin.get(name)
        rulesets.append(
            {
                "name": name,
                "title": ruleset.title,
                "version": str(ruleset.version),
                "plugin": plugin,
                "distribution": registry.distribution(plugin) if plugin else None,
            }
        )
    keywords = [
        _keyword(registry, table, name)
        for table in sorted(registry.keywords.values(), key=lambda t: t.ruleset)
        for name in sorted(table.specs, key=str.casefold)
    ]
    return {
        "hook_api_version": HOOK_API_VERSION,
        "rulesets": rulesets,
        "keywords": keywords,
        "plugins": [{"name": p.name, "distribution": p.distribution, "version": p.version} for p in registry.plugins],
        "broken": [{"name": b.name, "error": b.error} for b in registry.broken],
        "conflicts": registry.conflict_messages(),
    }


def _versions(rule: dict[str, Any]) -> str:
    names = ", ".join(f"{v} (default)" if v == rule["default"] else v for v in rule["versions"])
    return f"rule versions: {names}"


def render(data: dict[str, Any]) -> str:
    """``describe``'s data as the text ``mathhammer plugins`` prints."""
    lines: list[str] = []
    titles = {r["name"]: r["title"] for r in data["rulesets"]}
    for r in data["rulesets"]:
        where = f"from {r['distribution']}" if r["distribution"] else "registered in-process"
        lines.append(f"{r['name']}: {r['title']} {r['version']}  (plugin {r['plugin']}, {where})")
        lines += _keyword_lines([k for k in data["keywords"] if k["ruleset"] == r["name"]], r["title"])
        lines.append("")
    orphans = sorted({k["ruleset"] for k in data["keywords"]} - set(titles))
    for name in orphans:
        lines.append(f"{name}: not installed; keywords registered for it:")
        lines += _keyword_lines([k for k in data["keywords"] if k["ruleset"] == name], name)
        lines.append("")
    if not data["rulesets"] and not orphans:
        lines += ["no rulesets are installed: pip install mathhammer-wh40k, for one", ""]
    lines.append("plugins:")
    for p in data["plugins"]:
        where = f"{p['distribution']} {p['version']}" if p["distribution"] else "registered in-process"
        lines.append(f"  {p['name']:<24} {where}")
    for b in data["broken"]:
        state = "SKIPPED" if b["error"].startswith("skipped") else "BROKEN"
        lines.append(f"  {b['name']:<24} {state}: {b['error']}")
    if not data["plugins"] and not data["broken"]:
        lines.append("  (none)")
    if data["conflicts"]:
        lines.append("conflicts:")
        lines += [f"  {message}" for message in data["conflicts"]]
    lines.append(f"hook API version {data['hook_api_version']}")
    return "\n".join(lines)


def _keyword_lines(keywords: list[dict[str, Any]], title: str) -> list[str]:
    if not keywords:
        return ["  (no keywords)"]
    width = max(len(k["name"]) for k in keywords) + 2
    lines = []
    for k in keywords:
        mark = "*" if k["own"] is False else " "
        lines.append(f"  {k['name'] + mark:<{width}} {k['description'] or '(no description)'}")
        pad = " " * (width + 3)
        lines.append(f"{pad}from {k['distribution'] or 'a plugin registered in-process'} (plugin {k['plugin']})")
        if k["rule"] is not None:
            lines.append(f"{pad}{_versions(k['rule'])}")
            lines += [f"{pad}  {version}: {said}" for version, said in k["rule"]["versions"].items()]
    if any(k["own"] is False for k in keywords):
        lines.append(f"  * not one of {title}'s own keywords: an addition by a third-party plugin")
    return lines
