"""JSON text written the way Go's `encoding/json` writes it.

Two strings Karmada produces with Go's encoder are compared byte for byte by tools and tests: the
applied-overrides annotations and the JSON documents a fieldOverrider rewrites inside a ConfigMap.
Go writes compact JSON (no spaces), keeps non-ASCII text as UTF-8, and escapes `<`, `>`, `&`, U+2028
and U+2029 so the text is safe inside HTML and JavaScript. Map keys are sorted by Go; struct fields
keep their declaration order, which callers express with the order of their dicts.
"""

from __future__ import annotations

import json
from typing import Any

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_GO_ESCAPE_TABLE = str.maketrans(_GO_ESCAPES)


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON with Go's escaping; `sort_keys` for values that are Go maps rather than structs."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    # The escaped characters can only occur inside JSON strings, so translating the whole text is safe.
    return text.translate(_GO_ESCAPE_TABLE)
