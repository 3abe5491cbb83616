"""Writing JSON values as protobuf messages that a table of fields describes.

Some protobuf messages are JSON documents in another form — gnostic's OpenAPI messages are the
one this server writes (`openapiv2.py`). A `Message` names, for each JSON key, the field number
and the kind of value it holds; `encode` walks a JSON object through it. Kinds cover proto3
scalars, repeated scalars, embedded and repeated messages, JSON objects used as maps (gnostic's
repeated `Named…` pairs), free-form values (gnostic's `Any`, holding YAML text) and vendor
extensions (`x-` keys, gathered into one repeated field). Fields are written in field-number
order, as Go's marshaller does. A key the message has no field for raises ValueError, a value of
the wrong JSON type TypeError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from flotilla.apiserver.encoding.protobuf.writer import MessageWriter

Kind = Callable[[MessageWriter, int, Any], None]
"""Writes one JSON value as field `number` of a message."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message: JSON key → (field number, kind); `extensions`: the field `x-` keys go to."""

    name: str
    fields: dict[str, tuple[int, Kind]] = field(default_factory=dict)
    extensions: int | None = None


def encode(message: Message, value: Any) -> bytes:
    """One JSON object as `message`'s bytes."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{message.name} must be a JSON object, not {type(value).__name__}")
    writer = MessageWriter()
    fields: list[tuple[int, Kind, Any]] = []
    extensions: list[tuple[str, Any]] = []
    for key, item in value.items():
        if message.extensions is not None and key.startswith("x-"):
            extensions.append((key, item))
            continue
        known = message.fields.get(key)
        if known is None:
            raise ValueError(f"{message.name} has no field {key!r}")
        fields.append((known[0], known[1], item))
    if extensions and message.extensions is not None:
        fields.append((message.extensions, _vendor_extensions, extensions))
    for number, kind, item in sorted(fields, key=lambda entry: entry[0]):
        kind(writer, number, item)
    return writer.getvalue()


def string(writer: MessageWriter, number: int, value: Any) -> None:
    writer.string(number, _text(value))


def strings(writer: MessageWriter, number: int, value: Any) -> None:
    for item in _items(value):
        writer.length_delimited(number, _text(item).encode())


def boolean(writer: MessageWriter, number: int, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, not {value!r}")
    writer.boolean(number, value)


def int64(writer: MessageWriter, number: int, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, not {value!r}")
    writer.int64(number, value)


def double(writer: MessageWriter, number: int, value: Any) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(f"expected a number, not {value!r}")
    writer.double(number, float(value))


def any_value(writer: MessageWriter, number: int, value: Any) -> None:
    """gnostic's `Any` (a default, an example): the value as YAML text."""
    writer.message(number, any_bytes(value))


def any_values(writer: MessageWriter, number: int, value: Any) -> None:
    for item in _items(value):
        writer.message(number, any_bytes(item))


def any_bytes(value: Any) -> bytes:
    """gnostic's `Any`: field 2 holds the value as YAML text — its compact JSON, which is YAML."""
    inner = MessageWriter()
    inner.length_delimited(2, orjson.dumps(value))
    return inner.getvalue()


def message(of: Message) -> Kind:
    """An embedded message."""

    def write(writer: MessageWriter, number: int, value: Any) -> None:
        writer.message(number, encode(of, value))

    return write


def messages(of: Message) -> Kind:
    """A repeated message, from a JSON list."""

    def write(writer: MessageWriter, number: int, value: Any) -> None:
        for item in _items(value):
            writer.message(number, encode(of, item))

    return write


def built(message_bytes: Callable[[Any], bytes]) -> Kind:
    """An embedded message that a function writes (a oneof wrapper, a map)."""

    def write(writer: MessageWriter, number: int, value: Any) -> None:
        writer.message(number, message_bytes(value))

    return write


def named_pairs(value_bytes: Callable[[Any], bytes], number: int = 1) -> Callable[[Any], bytes]:
    """A JSON object as repeated `{1: name, 2: value}` pairs in field `number` of a wrapping message."""

    def message_bytes(value: Any) -> bytes:
        writer = MessageWriter()
        write_named_pairs(writer, number, entries(value), value_bytes)
        return writer.getvalue()

    return message_bytes


def write_named_pairs(
    writer: MessageWriter,
    number: int,
    pairs: list[tuple[str, Any]],
    value_bytes: Callable[[Any], bytes],
) -> None:
    for name, item in pairs:
        pair = MessageWriter()
        pair.string(1, name)
        pair.message(2, value_bytes(item))
        writer.message(number, pair.getvalue())


def _vendor_extensions(writer: MessageWriter, number: int, value: Any) -> None:
    write_named_pairs(writer, number, value, any_bytes)


def entries(value: Any) -> list[tuple[str, Any]]:
    """The pairs of a JSON object, in document order."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a JSON object, not {value!r}")
    return [(str(key), item) for key, item in value.items()]


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {value!r}")
    return value


def _items(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, not {value!r}")
    return value
