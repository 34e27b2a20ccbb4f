"""Links to the page that carry a whole scenario, as the page itself writes them.

The fragment is ``#v=<format>&s=<data>``: the scenario and the run's options
as JSON, compressed with raw DEFLATE (the browser's
``CompressionStream("deflate-raw")``) and written in base64url without
padding. The fragment never reaches the server, so a link says nothing to it
until the page sends the run. :data:`LINK_VERSION` changes when the data's
meaning does; the page refuses, by name, a link of another format.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

LINK_VERSION = 1
"""The format of the data in a link (``LINK_VERSION`` in ``static/app.js`` too)."""


def fragment(
    scenario: dict[str, Any], *, evaluator: str = "auto", trials: int | None = None, seed: int | None = None
) -> str:
    """The ``#v=...&s=...`` fragment of a link that opens ``scenario`` and runs it with these options."""
    payload = {"scenario": scenario, "run": {"evaluator": evaluator, "trials": trials, "seed": seed}}
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # negative window bits: raw DEFLATE, no zlib header
    data = packer.compress(json.dumps(payload).encode()) + packer.flush()
    return f"#v={LINK_VERSION}&s={base64.urlsafe_b64encode(data).decode().rstrip('=')}"


def read_fragment(text: str) -> dict[str, Any]:
    """The scenario and run options of a link's fragment (``#v=1&s=...``).

    Raises:
        ValueError: for a fragment of another format, or data that does not decode.
    """
    fields = dict(part.partition("=")[::2] for part in text.lstrip("#").split("&"))
    if fields.get("v") != str(LINK_VERSION):
        raise ValueError(f"the link is of format {fields.get('v')!r}; this version reads format {LINK_VERSION}")
    data = fields.get("s", "")
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    payload: dict[str, Any] = json.loads(zlib.decompress(raw, -15))
    return payload
