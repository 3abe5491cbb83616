"""Regenerate the protobuf field descriptors (`src/flotilla/apiserver/encoding/protobuf/descriptors/`)
from a kubectl binary.

A tool, not a test: run it by hand when a kind is added or kubectl moves to a new minor version.

    .venv/bin/python tests/unit/apiserver/encoding/protobuf/extract_tables.py [KUBECTL]

Why a kubectl binary: it is the client whose bodies we must read, and it carries both halves of what
the decoder needs. (1) gogo-protobuf registers every API package's `generated.proto` as a gzipped
`FileDescriptorProto`: field numbers, proto types, map entries, and the Go field name (gogo's
`customname` option). (2) Go keeps the runtime type data of every struct that `encoding/json`
reflects on: field order, Go kind (pointer or value) and the full struct tag (`json:"name,omitempty"`).
Reading both from the same binary gives tables that match that client exactly; the numbers also
match the `generated.proto` files published in k8s.io/api (they never change between versions).

How the Go half is found, for a statically linked, non-PIE amd64 ELF built by Go 1.2x:
struct field names are "name records" (flags byte, varint length, name, varint tag length, tag).
Every record whose tag mentions `protobuf:"` is located; 8-byte words in .rodata that point at one
are `structField{name, typ, offset}` entries; walking back to offset 0 gives the start of a struct's
field array; the `structType` whose slice header points at that array gives the type's name and,
through its `uncommonType`, its package path. Type name offsets are relative to the start of
.rodata (`runtime.types`).
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from flotilla.apiserver.encoding.protobuf import wire

TABLES_DIR = (
    Path(__file__).resolve().parents[5]
    / "src"
    / "flotilla"
    / "apiserver"
    / "encoding"
    / "protobuf"
    / "descriptors"
)

# The kinds whose bodies we decode; every message reachable from them gets a table.
ROOT_MESSAGES = (
    *(
        f"k8s.io.api.core.v1.{kind}"
        for kind in (
            "ConfigMap",
            "Secret",
            "Namespace",
            "ServiceAccount",
            "Service",
            "Pod",
            "Node",
            "Event",
            "ResourceQuota",
            "LimitRange",
            "PersistentVolumeClaim",
        )
    ),
    *(f"k8s.io.api.apps.v1.{kind}" for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")),
    "k8s.io.api.batch.v1.Job",
    "k8s.io.api.batch.v1.CronJob",
    *(f"k8s.io.api.rbac.v1.{kind}" for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")),
    "k8s.io.api.policy.v1.PodDisruptionBudget",
    "k8s.io.api.policy.v1.Eviction",
    "k8s.io.api.networking.v1.Ingress",
    "k8s.io.api.networking.v1.NetworkPolicy",
    "k8s.io.api.scheduling.v1.PriorityClass",
    "k8s.io.api.coordination.v1.Lease",
    "k8s.io.api.certificates.v1.CertificateSigningRequest",
    "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
    "k8s.io.api.authorization.v1.SubjectAccessReview",
    "k8s.io.api.authorization.v1.LocalSubjectAccessReview",
    "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
    "k8s.io.api.authentication.v1.TokenRequest",
    "k8s.io.api.authentication.v1.SelfSubjectReview",
    "k8s.io.api.authentication.v1.TokenReview",
    "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "k8s.io.api.autoscaling.v1.Scale",
    "k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler",
    "k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler",
)

# Rendered by `wellknown.py` from their Go JSON marshallers, not from tables.
WELL_KNOWN = frozenset(
    {
        "meta.v1.Time",
        "meta.v1.MicroTime",
        "meta.v1.Duration",
        "meta.v1.FieldsV1",
        "resource.Quantity",
        "intstr.IntOrString",
        "runtime.RawExtension",
    }
)

_SHORT_PREFIXES = (
    ("k8s.io.apimachinery.pkg.apis.meta.v1.", "meta.v1."),
    ("k8s.io.apimachinery.pkg.api.resource.", "resource."),
    ("k8s.io.apimachinery.pkg.util.intstr.", "intstr."),
    ("k8s.io.apimachinery.pkg.runtime.", "runtime."),
    ("k8s.io.api.", ""),
)

# FieldDescriptorProto.type → our scalar names (11 = message, handled apart).
_SCALARS = {
    1: "DOUBLE",
    2: "FLOAT",
    3: "INT64",
    4: "UINT64",
    5: "INT32",
    8: "BOOL",
    9: "STRING",
    12: "BYTES",
    13: "UINT32",
}
_TYPE_MESSAGE = 11
_LABEL_REPEATED = 3
_GOGO_CUSTOMNAME = 65004
_MAP_ENTRY = 7
_GO_KIND_POINTER = 22
_GO_KIND_SLICE = 23
_GO_KIND_STRUCT = 25


def short_name(full_name: str) -> str:
    """`k8s.io.api.core.v1.Container` → `core.v1.Container`, `…apis.meta.v1.Time` → `meta.v1.Time`."""
    for prefix, replacement in _SHORT_PREFIXES:
        if full_name.startswith(prefix):
            return replacement + full_name[len(prefix) :]
    return full_name


# --- descriptors ------------------------------------------------------------------------------------


@dataclass
class ProtoField:
    name: str
    number: int
    repeated: bool
    type: int
    type_name: str
    go_name: str


@dataclass
class ProtoMessage:
    full_name: str
    go_package: str
    fields: list[ProtoField] = field(default_factory=list)
    map_entry: bool = False


def _parse_field(payload: bytes) -> ProtoField:
    values: dict[int, int | bytes] = {}
    go_name = ""
    for item in wire.iter_fields(payload):
        if item.number == 8 and isinstance(item.value, bytes):
            for option in wire.iter_fields(item.value):
                if option.number == _GOGO_CUSTOMNAME and isinstance(option.value, bytes):
                    go_name = option.value.decode()
        else:
            values[item.number] = item.value
    raw_name = values.get(1, b"")
    assert isinstance(raw_name, bytes)
    name = raw_name.decode()
    type_name = values.get(6, b"")
    assert isinstance(type_name, bytes)
    number, label, kind = values[3], values[4], values[5]
    assert isinstance(number, int)
    assert isinstance(label, int)
    assert isinstance(kind, int)
    return ProtoField(
        name=name,
        number=number,
        repeated=label == _LABEL_REPEATED,
        type=kind,
        type_name=type_name.decode().lstrip("."),
        go_name=go_name or name[:1].upper() + name[1:],
    )


def _parse_message(payload: bytes, scope: str, go_package: str, into: dict[str, ProtoMessage]) -> None:
    message = ProtoMessage(full_name="", go_package=go_package)
    nested: list[bytes] = []
    for item in wire.iter_fields(payload):
        if not isinstance(item.value, bytes):
            continue
        if item.number == 1:
            message.full_name = f"{scope}.{item.value.decode()}"
        elif item.number == 2:
            message.fields.append(_parse_field(item.value))
        elif item.number == 3:
            nested.append(item.value)
        elif item.number == _MAP_ENTRY:
            message.map_entry = any(
                o.number == _MAP_ENTRY and o.value == 1 for o in wire.iter_fields(item.value)
            )
    into[message.full_name] = message
    for child in nested:
        _parse_message(child, message.full_name, go_package, into)


def read_descriptors(binary: bytes) -> dict[str, ProtoMessage]:
    """Every message of every `k8s.io/...` generated.proto registered in the binary, by full name."""
    messages: dict[str, ProtoMessage] = {}
    for match in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00", binary):
        try:
            payload = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(
                binary[match.start() : match.start() + (1 << 21)]
            )
        except zlib.error:
            continue
        if payload[:1] != b"\x0a" or not payload[2:].startswith(b"k8s.io/"):  # FileDescriptorProto.name
            continue
        package, go_package, bodies = "", "", []
        for item in wire.iter_fields(payload):
            if not isinstance(item.value, bytes):
                continue
            if item.number == 2:
                package = item.value.decode()
            elif item.number == 4:
                bodies.append(item.value)
            elif item.number == 8:
                for option in wire.iter_fields(item.value):
                    if option.number == 11 and isinstance(option.value, bytes):
                        go_package = option.value.decode()
        for body in bodies:
            _parse_message(body, package, go_package, messages)
    return messages


# --- Go runtime type data --------------------------------------------------------------------------


@dataclass(frozen=True)
class GoField:
    name: str
    tag: str
    kind: int


class GoBinary:
    """Address translation and runtime-name reading for a statically linked Go ELF."""

    def __init__(self, binary: bytes) -> None:
        self.binary = binary
        self.segments: list[tuple[int, int, int]] = []
        program_headers = struct.unpack_from("<Q", binary, 0x20)[0]
        entry_size, count = struct.unpack_from("<HH", binary, 0x36)
        for index in range(count):
            kind, _, offset, address, _, size, _, _ = struct.unpack_from(
                "<IIQQQQQQ", binary, program_headers + index * entry_size
            )
            if kind == 1:
                self.segments.append((offset, address, size))
        self.rodata_offset, self.rodata_address, self.rodata_size = self._section(".rodata")

    def _section(self, wanted: str) -> tuple[int, int, int]:
        headers = struct.unpack_from("<Q", self.binary, 0x28)[0]
        entry_size, count, names_index = struct.unpack_from("<HHH", self.binary, 0x3A)
        names_offset = struct.unpack_from("<Q", self.binary, headers + names_index * entry_size + 0x18)[0]
        for index in range(count):
            base = headers + index * entry_size
            name_at = struct.unpack_from("<I", self.binary, base)[0]
            end = self.binary.index(b"\0", names_offset + name_at)
            if self.binary[names_offset + name_at : end].decode() == wanted:
                address, offset, size = struct.unpack_from("<QQQ", self.binary, base + 0x10)
                return offset, address, size
        raise SystemExit(f"no {wanted} section: not a Go ELF binary")

    def offset_of(self, address: int) -> int | None:
        for offset, start, size in self.segments:
            if start <= address < start + size:
                return address - start + offset
        return None

    def address_of(self, offset: int) -> int:
        for start_offset, start, size in self.segments:
            if start_offset <= offset < start_offset + size:
                return offset - start_offset + start
        raise ValueError(offset)

    def varint(self, offset: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = self.binary[offset]
            value |= (byte & 0x7F) << shift
            offset += 1
            shift += 7
            if byte < 0x80:
                return value, offset

    def name_record(self, address: int) -> tuple[str, str] | None:
        """The (name, tag) of the runtime name record at `address`, or None if it is not one."""
        offset = self.offset_of(address)
        if offset is None:
            return None
        flags = self.binary[offset]
        length, start = self.varint(offset + 1)
        if length > 512:
            return None
        name = self.binary[start : start + length]
        tag = b""
        if flags & 2:
            tag_length, tag_start = self.varint(start + length)
            tag = self.binary[tag_start : tag_start + tag_length]
        try:
            return name.decode(), tag.decode()
        except UnicodeDecodeError:
            return None

    def type_name(self, type_address: int) -> tuple[str, str]:
        """(package path, `pkg.Name`) of the runtime `_type` at `type_address`."""
        offset = self.offset_of(type_address)
        assert offset is not None
        flags = self.binary[offset + 20]
        name_offset = struct.unpack_from("<i", self.binary, offset + 40)[0]
        record = self.name_record(self.rodata_address + name_offset)
        name = record[0] if record else ""
        if flags & 2:  # tflagExtraStar: the stored name is "*T"
            name = name[1:]
        package = ""
        if flags & 1:  # tflagUncommon: package path follows the struct type
            package_offset = struct.unpack_from("<i", self.binary, offset + 80)[0]
            if package_offset:
                package_record = self.name_record(self.rodata_address + package_offset)
                package = package_record[0] if package_record else ""
        return package, name

    def type_kind(self, type_address: int) -> int:
        offset = self.offset_of(type_address)
        assert offset is not None
        return self.binary[offset + 23] & 0x1F


def _tagged_name_addresses(go: GoBinary) -> set[int]:
    """Addresses of name records whose struct tag carries a `protobuf:"…"` key."""
    found: set[int] = set()
    binary = go.binary
    for match in re.finditer(rb'protobuf:"', binary):
        for tag_start in range(match.start(), max(match.start() - 400, 0), -1):
            record = _record_ending_at(binary, tag_start, match.start())
            if record is not None:
                found.add(go.address_of(record))
                break
    return found


def _record_ending_at(binary: bytes, tag_start: int, key: int) -> int | None:
    """If a name record's tag starts at `tag_start` (covering `key`), return the record's offset."""
    for width in (1, 2):
        if width == 1:
            tag_length = binary[tag_start - 1]
            if tag_length >= 0x80:
                continue
        else:
            low, high = binary[tag_start - 2], binary[tag_start - 1]
            if low < 0x80 or high >= 0x80:
                continue
            tag_length = (low & 0x7F) | (high << 7)
        tag_end = tag_start + tag_length
        if tag_end <= key or binary[tag_end - 1 : tag_end] != b'"':
            continue
        name_end = tag_start - width
        for name_length in range(1, 80):
            name_start = name_end - name_length
            if binary[name_start - 1] == name_length and re.fullmatch(
                rb"[A-Za-z_][A-Za-z0-9_]*", binary[name_start:name_end]
            ):
                return name_start - 2
    return None


def read_go_structs(go: GoBinary) -> dict[tuple[str, str], list[GoField]]:
    """Go structs that have protobuf-tagged fields, by (package path, type name)."""
    tagged = _tagged_name_addresses(go)
    binary = go.binary
    start, end = go.rodata_offset, go.rodata_offset + go.rodata_size
    arrays: dict[int, list[GoField]] = {}
    for offset in range(start, end - 24, 8):
        if struct.unpack_from("<Q", binary, offset)[0] not in tagged:
            continue
        first = offset
        while struct.unpack_from("<Q", binary, first + 16)[0] != 0 and offset - first < 24 * 256:
            first -= 24
        if first in arrays:
            continue
        fields: list[GoField] = []
        position, last_offset = first, -1
        while True:
            name_address, type_address, field_offset = struct.unpack_from("<QQQ", binary, position)
            if position != first and field_offset <= last_offset and field_offset == 0:
                break
            record = go.name_record(name_address)
            if record is None or go.offset_of(type_address) is None:
                break
            fields.append(GoField(record[0], record[1], go.type_kind(type_address)))
            last_offset = field_offset
            position += 24
        arrays[go.address_of(first)] = fields
    structs: dict[tuple[str, str], list[GoField]] = {}
    for offset in range(start, end - 16, 8):
        address, length = struct.unpack_from("<QQ", binary, offset)
        fields_found = arrays.get(address)
        if fields_found is None or length != len(fields_found):
            continue
        type_address = go.address_of(offset - 56)
        if go.type_kind(type_address) != _GO_KIND_STRUCT:
            continue
        structs[go.type_name(type_address)] = fields_found
    return structs


# --- tables ---------------------------------------------------------------------------------------


@dataclass
class TableField:
    number: int
    json_name: str
    type: str
    flags: list[str]


def _json_tag(tag: str) -> tuple[str, set[str]]:
    found = re.search(r'json:"([^"]*)"', tag)
    if not found:
        return "", set()
    name, *options = found.group(1).split(",")
    return name, set(options)


def build_tables(
    messages: dict[str, ProtoMessage], structs: dict[tuple[str, str], list[GoField]]
) -> tuple[dict[str, list[TableField]], set[str]]:
    """Tables for every message reachable from ROOT_MESSAGES, and the names of list-wrapper messages."""
    tables: dict[str, list[TableField]] = {}
    list_wrappers: set[str] = set()
    pending = list(ROOT_MESSAGES)
    while pending:
        full_name = pending.pop()
        name = short_name(full_name)
        if name in tables or name in WELL_KNOWN:
            continue
        message = messages[full_name]
        go_name = full_name.rsplit(".", 1)[1]
        package_name = message.go_package.rsplit("/", 1)[1]
        go_fields = structs.get((message.go_package, f"{package_name}.{go_name}"))
        if go_fields is None:
            (only,) = message.fields  # a Go named slice type: one repeated field, no struct
            if not only.repeated or only.type == _TYPE_MESSAGE:
                raise SystemExit(f"no Go struct found for {full_name}")
            tables[name] = [TableField(only.number, only.name, _SCALARS[only.type], ["REPEATED"])]
            list_wrappers.add(name)
            continue
        by_go_name = {go_field.name: go_field for go_field in go_fields}
        proto_by_go_name = {proto_field.go_name: proto_field for proto_field in message.fields}
        rows: list[TableField] = []
        for go_field in go_fields:
            proto_field = proto_by_go_name.get(go_field.name)
            if proto_field is None:
                continue  # TypeMeta and other fields protobuf does not carry
            json_name, options = _json_tag(go_field.tag)
            row = TableField(proto_field.number, json_name, "", [])
            if proto_field.type == _TYPE_MESSAGE:
                target = messages[proto_field.type_name]
                if target.map_entry:
                    key, value = target.fields
                    row.type = f"MapOf({_SCALARS[key.type]}, {_value_type(value, pending)})"
                else:
                    row.type = json.dumps(short_name(proto_field.type_name))
                    pending.append(proto_field.type_name)
                    if go_field.kind == _GO_KIND_SLICE and not proto_field.repeated:
                        list_wrappers.add(short_name(proto_field.type_name))
            else:
                row.type = _SCALARS[proto_field.type]
            if proto_field.repeated and not row.type.startswith("MapOf"):
                row.flags.append("REPEATED")
            if go_field.kind == _GO_KIND_POINTER:
                row.flags.append("POINTER")
            if "omitempty" in options:
                row.flags.append("OMITEMPTY")
            if "inline" in options:
                row.flags.append("INLINE")
            rows.append(row)
        missing = {f.go_name for f in message.fields} - set(by_go_name)
        if missing:
            raise SystemExit(f"{full_name}: proto fields without Go fields: {sorted(missing)}")
        tables[name] = rows
    for wrapper in list_wrappers:
        fields = messages[_full_name(wrapper, messages)].fields
        if len(fields) != 1 or not fields[0].repeated:
            raise SystemExit(f"{wrapper} is a Go slice but not a single repeated field")
    return tables, list_wrappers


def _value_type(value: ProtoField, pending: list[str]) -> str:
    if value.type == _TYPE_MESSAGE:
        pending.append(value.type_name)
        return json.dumps(short_name(value.type_name))
    return _SCALARS[value.type]


def _full_name(name: str, messages: dict[str, ProtoMessage]) -> str:
    return next(full for full in messages if short_name(full) == name)


# --- output ---------------------------------------------------------------------------------------

_MODULE_TITLES = {
    "meta": "meta/v1 (ObjectMeta, LabelSelector, DeleteOptions, Condition)",
    "core": "core/v1 outside the pod template (Service, Node, Event, quotas, claims)",
    "core_pod": "core/v1 pod template: PodSpec, Container, probes, affinity, security contexts",
    "core_volume": "core/v1 volume sources of a pod",
    "apps": "apps/v1",
    "batch": "batch/v1",
    "rbac": "rbac.authorization.k8s.io/v1",
    "policy": "policy/v1",
    "networking": "networking.k8s.io/v1",
    "scheduling": "scheduling.k8s.io/v1",
    "coordination": "coordination.k8s.io/v1",
    "certificates": "certificates.k8s.io/v1",
    "authorization": "authorization.k8s.io/v1",
    "authentication": "authentication.k8s.io/v1",
    "autoscaling": "autoscaling/v1 and autoscaling/v2",
}


def _module_of(name: str, volume_messages: set[str], pod_messages: set[str]) -> str:
    group = name.split(".", 1)[0]
    if group != "core":
        return group
    if name in volume_messages:
        return "core_volume"
    if name in pod_messages:
        return "core_pod"
    return "core"


def _reachable(root: str, tables: dict[str, list[TableField]]) -> set[str]:
    seen: set[str] = set()
    pending = [root]
    while pending:
        name = pending.pop()
        if name in seen or name not in tables:
            continue
        seen.add(name)
        for row in tables[name]:
            pending.extend(re.findall(r'"([^"]+)"', row.type))
    return seen


def render_modules(
    messages: dict[str, ProtoMessage],
    tables: dict[str, list[TableField]],
    list_wrappers: set[str],
    source: str,
) -> dict[str, str]:
    """Module name → Python source, messages in descriptor order."""
    volume_messages = _reachable("core.v1.VolumeSource", tables)
    pod_messages = _reachable("core.v1.PodSpec", tables) - volume_messages
    order = [short_name(full) for full in messages]
    by_module: dict[str, list[str]] = {}
    for name in order:
        if name in tables:
            by_module.setdefault(_module_of(name, volume_messages, pod_messages), []).append(name)
    sources: dict[str, str] = {}
    for module, names in by_module.items():
        used = {"Field", "Message"}
        body: list[str] = []
        for name in names:
            body.append(f"    {json.dumps(name)}: (")
            for row in tables[name]:
                flags = " | ".join(row.flags)
                used.update(row.flags)
                used.update(re.findall(r"\b[A-Z][A-Z0-9]+\b", row.type))
                if row.type.startswith("MapOf"):
                    used.add("MapOf")
                arguments = [str(row.number), json.dumps(row.json_name), row.type] + (
                    [flags] if flags else []
                )
                body.append(f"        Field({', '.join(arguments)}),")
            body.append("    ),")
        wrappers = sorted(name for name in list_wrappers if name in names)
        imports = ", ".join(sorted(used))
        text = [
            f'"""Protobuf field tables for {_MODULE_TITLES[module]}.',
            "",
            f"Generated from {source} by tests/unit/apiserver/encoding/protobuf/extract_tables.py;",
            "do not edit by hand.",
            '"""',
            "",
            "from collections.abc import Mapping",
            "from typing import Final",
            "",
            f"from flotilla.apiserver.encoding.protobuf.model import {imports}",
            "",
            "MESSAGES: Final[Mapping[str, Message]] = {",
            *body,
            "}",
        ]
        if wrappers:
            text += [
                "",
                "# Go named slice types (`type ExtraValue []string`): on the wire a message with one",
                "# repeated field, in JSON just the array.",
                f"LIST_WRAPPERS: Final = frozenset({{{', '.join(json.dumps(w) for w in wrappers)}}})",
            ]
        sources[module] = "\n".join(text) + "\n"
    return sources


def main(argv: list[str]) -> None:
    kubectl = Path(argv[1]) if len(argv) > 1 else Path(shutil.which("kubectl") or "kubectl").resolve()
    binary = kubectl.read_bytes()
    messages = read_descriptors(binary)
    structs = read_go_structs(GoBinary(binary))
    tables, list_wrappers = build_tables(messages, structs)
    version = json.loads(
        subprocess.run([kubectl, "version", "--client", "-o", "json"], capture_output=True, check=True).stdout
    )
    source = f"kubectl {version['clientVersion']['gitVersion']}"
    for module, text in render_modules(messages, tables, list_wrappers, source).items():
        (TABLES_DIR / f"{module}.py").write_text(text)
        print(f"{module}: {text.count('Field(')} fields")
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--quiet", "--fix", "--select", "I", TABLES_DIR], check=True)
    subprocess.run([*ruff, "format", "--quiet", TABLES_DIR], check=True)


if __name__ == "__main__":
    main(sys.argv)
