"""How a protobuf field table describes one Kubernetes message and the Go struct behind it.

Kubernetes' protobuf messages are generated from Go structs, and the JSON a Kubernetes server shows
is what `encoding/json` makes of those structs. Decoding protobuf into that JSON therefore needs, per
field, both halves: the wire side (field number, scalar or message type, repeated, map) and the Go
side (the JSON name, whether the Go field is a pointer, whether its tag says `omitempty`, whether it
is embedded `inline`). A `Field` carries exactly that; a message is a tuple of `Field`s in Go struct
order, which is the order the JSON keys come out in.

Message types are named by Go package and type, as Kubernetes people say them: `core.v1.Container`,
`apps.v1.DeploymentSpec`, `meta.v1.ObjectMeta`, `resource.Quantity`, `intstr.IntOrString`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Scalar(enum.Enum):
    """The proto scalar types Kubernetes messages use; each knows which wire type carries it."""

    STRING = "string"
    BYTES = "bytes"
    BOOL = "bool"
    INT32 = "int32"
    INT64 = "int64"
    UINT32 = "uint32"
    UINT64 = "uint64"
    DOUBLE = "double"
    FLOAT = "float"


STRING = Scalar.STRING
BYTES = Scalar.BYTES
BOOL = Scalar.BOOL
INT32 = Scalar.INT32
INT64 = Scalar.INT64
UINT32 = Scalar.UINT32
UINT64 = Scalar.UINT64
DOUBLE = Scalar.DOUBLE
FLOAT = Scalar.FLOAT


@dataclass(frozen=True, slots=True)
class MapOf:
    """A proto map (on the wire: repeated entries `{1: key, 2: value}`), a JSON object in Kubernetes."""

    key: Scalar
    value: Scalar | str


FieldType = Scalar | str | MapOf
"""A scalar, a message name (`"core.v1.Container"`), or a map."""


class Flag(enum.Flag):
    """The Go-side facts about a field that decide how it shows in JSON."""

    NONE = 0
    REPEATED = enum.auto()
    """A proto `repeated` field: a Go slice, a JSON array."""
    POINTER = enum.auto()
    """The Go field is a pointer: absent means nil, a present zero value still shows."""
    OMITEMPTY = enum.auto()
    """The JSON tag says `omitempty`: nil pointers, empty slices, maps and strings, 0 and false vanish."""
    INLINE = enum.auto()
    """An embedded struct tagged `json:",inline"`: its keys are merged into the enclosing object."""


REPEATED = Flag.REPEATED
POINTER = Flag.POINTER
OMITEMPTY = Flag.OMITEMPTY
INLINE = Flag.INLINE


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message: its wire number, JSON name, type and Go-side flags."""

    number: int
    json_name: str
    type: FieldType
    flags: Flag = Flag.NONE

    @property
    def nullable(self) -> bool:
        """Whether Go's zero value of this field is nil (pointer, slice, map or `[]byte`)."""
        return bool(self.flags & (POINTER | REPEATED)) or isinstance(self.type, MapOf) or self.type is BYTES


Message = tuple[Field, ...]
"""A message's fields in Go struct order."""
