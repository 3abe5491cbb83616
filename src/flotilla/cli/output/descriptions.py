"""What `flotilla describe` prints for any object: kubectl's generic description, made readable.

kubectl describes a kind it has no special describer for (every custom resource) by walking the
object: `Name`, `Namespace`, `Labels`, `Annotations`, then every remaining field in key order as
`Field Name:  value`, nested fields indented by two spaces, camelCase keys turned into words
(`apiVersion` → `API Version`), `metadata.managedFields` left out, and the object's Events last.
This module renders the same layout for every kind, with two changes for readability: each item
of a list of objects starts with `- ` (kubectl runs the items together), and a `conditions` list
becomes a table (Type, Status, Last Transition, Reason, Message) as kubectl's own describers print
conditions.

Lines are aligned as kubectl's describe tabwriter aligns them (2 spaces of padding, `tabwriter.py`);
tables are aligned on their own so that a wide table does not push the values after it.
Everything here is pure: the object, its events and the clock come in, text goes out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.duration import since, timestamp
from flotilla.cli.output.printers import cell_text
from flotilla.cli.output.tabwriter import DESCRIBE_PADDING, align

NONE = "<none>"
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
MAX_ANNOTATION_LENGTH = 140
"""Longer annotations are shortened, as kubectl does, so one value cannot flood the screen."""
_ACRONYMS = {"API", "URL", "UID", "OSB", "GUID", "IP", "TLS", "CIDR", "ID"}
_WORD = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""camelCase words; an acronym's plural stays one word (`podIPs` → `pod`, `IPs`)."""
_INDENT = "  "
_HEADER_FIELDS = ("name", "namespace", "labels", "annotations", "managedFields")


class Description:
    """A description being written: text lines aligned together, tables aligned on their own."""

    def __init__(self) -> None:
        self._chunks: list[list[str]] = [[]]
        self._item_starts = False

    def line(self, level: int, text: str) -> None:
        """One line; a tab separates a `Label:` from its value, to be aligned with its neighbours."""
        indent = _INDENT * level
        if self._item_starts and level > 0:
            indent = _INDENT * (level - 1) + "- "
            self._item_starts = False
        self._chunks[-1].append(indent + text)

    def start_item(self) -> None:
        """Mark the next line as the first of a list item (`- ` in place of its last indent)."""
        self._item_starts = True

    def field(self, level: int, label: str, value: str) -> None:
        self.line(level, f"{label}:\t{value}")

    def table(self, level: int, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
        """A table under the current line: header, dashes, rows, aligned among themselves."""
        indent = _INDENT * level
        lines = [indent + "\t".join(header), indent + "\t".join("-" * len(title) for title in header)]
        lines += [indent + "\t".join(cell_text(cell) for cell in row) for row in rows]
        self._chunks.append(lines)
        self._chunks.append([])

    def render(self) -> str:
        return "".join(f"{line}\n" for lines in self._chunks for line in align(lines, DESCRIBE_PADDING))


# --- labels ---------------------------------------------------------------------------------------


def smart_label(field: str) -> str:
    """A field name as words: `apiVersion` → `API Version`, `proxyURL` → `Proxy URL`.

    Keys that are data rather than field names (`app.kubernetes.io/name`, `nvidia.com/gpu`,
    anything but letters, digits and `-`) are kept as they are.
    """
    if not field or not all(character.isalnum() or character == "-" for character in field):
        return field
    parts = []
    for piece in field.split("-"):
        words = _WORD.findall(piece)
        parts.append(
            " ".join(
                word.upper() if word.upper() in _ACRONYMS else word[:1].upper() + word[1:] for word in words
            )
        )
    return "-".join(parts)


def _scalar(value: Any) -> str:
    """A value after its label; tabs would start a new aligned cell, so they become spaces."""
    return cell_text(value) if not isinstance(value, str) else value.replace("\t", " ")


# --- the object -----------------------------------------------------------------------------------


def _labels(description: Description, title: str, labels: Mapping[str, Any]) -> None:
    if not labels:
        description.field(0, title, NONE)
        return
    for position, key in enumerate(sorted(labels)):
        description.line(0, f"{title + ':' if position == 0 else ''}\t{key}={labels[key]}")


def _annotations(description: Description, annotations: Mapping[str, Any]) -> None:
    shown = {key: value for key, value in annotations.items() if key != LAST_APPLIED_ANNOTATION}
    if not shown:
        description.field(0, "Annotations", NONE)
        return
    for position, key in enumerate(sorted(shown)):
        text = f"{key}: {str(shown[key]).strip()}".replace("\n", " ")
        if len(text) > MAX_ANNOTATION_LENGTH:
            text = text[: MAX_ANNOTATION_LENGTH - 3] + "..."
        description.line(0, f"{'Annotations:' if position == 0 else ''}\t{text}")


def header(description: Description, obj: Mapping[str, Any]) -> None:
    """Name, Namespace, Labels and Annotations, as every kubectl description starts."""
    metadata = obj.get("metadata") or {}
    description.field(0, "Name", str(metadata.get("name") or ""))
    description.field(0, "Namespace", str(metadata.get("namespace") or ""))
    _labels(description, "Labels", metadata.get("labels") or {})
    _annotations(description, metadata.get("annotations") or {})


Skip = Callable[[str], bool]


def _is_conditions(key: str, value: Any) -> bool:
    return (
        key == "conditions"
        and isinstance(value, list)
        and bool(value)
        and all(isinstance(item, Mapping) and "type" in item for item in value)
    )


def conditions_table(
    description: Description, level: int, conditions: Sequence[Mapping[str, Any]], now: datetime
) -> None:
    description.table(
        level,
        ("Type", "Status", "Last Transition", "Reason", "Message"),
        [
            (
                str(condition.get("type") or ""),
                str(condition.get("status") or ""),
                since(condition.get("lastTransitionTime"), now),
                str(condition.get("reason") or ""),
                str(condition.get("message") or ""),
            )
            for condition in conditions
        ],
    )


def tree(
    description: Description, level: int, content: Mapping[str, Any], path: str, skip: Skip, now: datetime
) -> None:
    """Every field of `content` (a mapping) in key order, nested fields indented one level more."""
    for key in sorted(content):
        value = content[key]
        field_path = f"{path}.{key}"
        if skip(field_path):
            continue
        label = smart_label(key)
        if _is_conditions(key, value):
            description.line(level, f"{label}:")
            conditions_table(description, level + 1, value, now)
        elif isinstance(value, Mapping):
            if not value:
                description.field(level, label, NONE)
                continue
            description.line(level, f"{label}:")
            tree(description, level + 1, value, field_path, skip, now)
        elif isinstance(value, list):
            if not value:
                description.field(level, label, NONE)
                continue
            description.line(level, f"{label}:")
            _items(description, level + 1, value, field_path, skip, now)
        elif isinstance(value, str) and "\n" in value.strip():
            description.line(level, f"{label}:")
            for text in value.strip().splitlines():
                description.line(level + 1, text)
        else:
            description.field(level, label, _scalar(value))


def _items(
    description: Description, level: int, items: list[Any], path: str, skip: Skip, now: datetime
) -> None:
    for item in items:
        if isinstance(item, Mapping) and item:
            description.start_item()
            tree(description, level + 1, item, path, skip, now)
        else:
            description.line(level, _scalar(item))


def skip_paths(*paths: str) -> Skip:
    """A Skip leaving out exactly the given dotted paths (`.metadata.managedFields`)."""
    hidden = set(paths)
    return lambda path: path in hidden


def body(
    description: Description, obj: Mapping[str, Any], now: datetime, *, hide: Iterable[str] = ()
) -> None:
    """Every field but those of the header (and `hide`), as kubectl's generic describer lists them."""
    hidden = {f".metadata.{field}" for field in _HEADER_FIELDS} | set(hide)
    tree(description, 0, obj, "", skip_paths(*hidden), now)


# --- events ---------------------------------------------------------------------------------------


def _event_time(event: Mapping[str, Any]) -> Any:
    return (
        event.get("lastTimestamp")
        or event.get("eventTime")
        or (event.get("metadata") or {}).get("creationTimestamp")
    )


def _event_age(event: Mapping[str, Any], now: datetime) -> str:
    last = since(_event_time(event), now)
    count = event.get("count") or (event.get("series") or {}).get("count") or 1
    if isinstance(count, int) and count > 1:
        first = since(event.get("firstTimestamp") or _event_time(event), now)
        return f"{last} (x{count} over {first})"
    return last


def _event_source(event: Mapping[str, Any]) -> str:
    source = event.get("source") or {}
    component = str(source.get("component") or event.get("reportingComponent") or "")
    host = str(source.get("host") or "")
    return f"{component}, {host}" if component and host else component or host


def events_section(description: Description, events: Sequence[Mapping[str, Any]], now: datetime) -> None:
    """kubectl's Events table, oldest first; `Events: <none>` when there are none."""
    if not events:
        description.field(0, "Events", NONE)
        return
    ordered = sorted(events, key=lambda event: timestamp(_event_time(event)) or now)
    description.line(0, "Events:")
    description.table(
        1,
        ("Type", "Reason", "Age", "From", "Message"),
        [
            (
                str(event.get("type") or ""),
                str(event.get("reason") or ""),
                _event_age(event, now),
                _event_source(event),
                str(event.get("message") or "").strip(),
            )
            for event in ordered
        ],
    )
