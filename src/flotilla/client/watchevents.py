"""The events of a watch: one JSON object per line of a chunked response.

`EventLines` cuts a stream of chunks into lines, `watch_event` decodes one into a `WatchEvent`;
`Client.watch` yields them, and `Informer` turns them into a cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: str  # ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
    object: dict[str, Any]


class EventLines:
    """A watch stream's events are lines, arriving in chunks cut anywhere. Split here rather than by
    aiohttp's readline, which refuses lines over 512 KiB: an object between that and the 1.5 MiB
    the API allows ended its informer's watch with aiohttp's own LineTooLong."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` completes, without their line feeds."""
        if b"\n" not in chunk:
            self._partial.append(chunk)
            return []
        if self._partial:
            self._partial.append(chunk)
            chunk = b"".join(self._partial)
            self._partial = []
        *lines, rest = chunk.split(b"\n")
        if rest:
            self._partial.append(rest)
        return lines

    def rest(self) -> bytes:
        """What followed the last line feed."""
        return b"".join(self._partial)


def watch_event(line: bytes) -> WatchEvent:
    event = orjson.loads(line)
    return WatchEvent(str(event.get("type", "")), event.get("object") or {})
