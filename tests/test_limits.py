"""The limits: defined once by the core, exported by mathhammer.limits, documented from there."""

from __future__ import annotations

import re
from pathlib import Path

from mathhammer import _core, limits

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scenario-files.md"


def documented() -> dict[str, int]:
    rows = re.findall(r"^\| `(MAX_[A-Z_]+)` \| ([\d,]+) \|", DOCS.read_text(), re.MULTILINE)
    return {name: int(value.replace(",", "")) for name, value in rows}


def test_every_limit_is_the_cores_and_documented_with_its_value() -> None:
    exported = {name: getattr(limits, name) for name in limits.__all__}
    assert exported == {name: getattr(_core, name) for name in limits.__all__}
    assert documented() == exported
