"""Response header values that carry what a client sent: Warning headers by kube's rules, and a last
guard that no header value can break a response.

aiohttp refuses to send a header value holding a control character (it would allow header
injection) and drops the connection instead — after the request's work is done, so a client that
created an object gets no answer at all. Warnings are where client text reaches headers most: an
unknown field's name, a webhook's warning. They are written as kube-apiserver's warning recorder
writes them: `299 - "text"`, each text once, control characters escaped (kube drops such a
warning; escaping keeps it readable and the header valid), quotes and backslashes escaped; and at
most 4 KiB of them — past that, each warning is cut to 256 characters and they are written in order
until the 4 KiB are used. Any other header value (an echoed `Audit-Id`…) is escaped the same way
just before the headers are sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from aiohttp import web

MAX_WARNING_BYTES = 4 * 1024
"""kube's limit on all Warning headers of one response together."""

TRUNCATED_WARNING_CHARS = 256
"""What each warning is cut to once they do not fit in MAX_WARNING_BYTES."""

# What aiohttp refuses in a header (C0 controls but tab, DEL), and what Go's unicode.IsControl adds
# (C1 controls), and lone surrogates (undecodable request bytes, which cannot be encoded back).
_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")


def escape_unsafe(text: str) -> str:
    """`text` with control characters written as `\\xNN` / `\\uNNNN` and lone surrogates as U+FFFD."""
    return _UNSAFE.sub(_escaped, text) if _is_unsafe(text) else text


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def _warning_value(text: str) -> str:
    quoted = escape_unsafe(text).replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{quoted}"'


def warning_values(texts: Iterable[str]) -> list[str]:
    """The `Warning` header values of a response's warnings, by kube's warning recorder's rules."""
    unique = list(dict.fromkeys(text for text in texts if text))
    values = [_warning_value(text) for text in unique]
    if sum(len(value.encode()) for value in values) <= MAX_WARNING_BYTES:
        return values
    kept: list[str] = []
    written = 0
    for text in unique:
        if written >= MAX_WARNING_BYTES:
            break
        value = _warning_value(text[:TRUNCATED_WARNING_CHARS])
        kept.append(value)
        written += len(value.encode())
    return kept


async def make_headers_safe(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """An `on_response_prepare` hook: escape whatever a header value holds that cannot be sent."""
    items = list(response.headers.items())
    if any(_is_unsafe(value) for _, value in items):
        response.headers.clear()
        for name, value in items:
            response.headers.add(name, escape_unsafe(value))


def _is_unsafe(value: str) -> bool:
    return not (value.isascii() and value.isprintable()) and _UNSAFE.search(value) is not None
