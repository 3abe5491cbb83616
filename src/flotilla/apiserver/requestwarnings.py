"""Warnings a request collects on its way, sent back as `Warning: 299` headers with its response.

Any layer may warn — authentication about a malformed header, decoding about unknown fields,
admission webhooks — and the HTTP edge writes them out whatever the answer is, so the list lives on
the request itself, below every layer that adds to it.
"""

from __future__ import annotations

from aiohttp import web

WARNINGS_KEY = "flotilla.warnings"


def request_warnings(request: web.Request) -> list[str]:
    """The warnings of this request so far (the list itself: append to add one)."""
    found: list[str] = request.setdefault(WARNINGS_KEY, [])
    return found


def add_warning(request: web.Request, text: str) -> None:
    request_warnings(request).append(text)


def collected_warnings(request: web.Request) -> list[str]:
    """The warnings of this request, without creating the list when there are none."""
    found: list[str] = request.get(WARNINGS_KEY, [])
    return found
