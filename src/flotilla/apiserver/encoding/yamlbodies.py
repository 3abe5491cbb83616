"""YAML request bodies read as kube-apiserver reads them, with aliases bounded before they expand.

kube-apiserver turns a YAML body into JSON (sigs.k8s.io/yaml over go-yaml) before decoding it, so a
YAML body means exactly what its JSON would: map keys that are numbers or booleans become strings
(`1: a` is `"1": "a"`; other keys are refused), timestamps stay the strings they were written as,
integers past 64 bits become floats, and NaN or infinity cannot be sent at all.

Aliases are where YAML is dangerous: a few hundred bytes of nested anchors expand to gigabytes.
PyYAML's composer shares an aliased node instead of copying it, so the document is read into a node
graph first and measured over that graph without expanding anything: how deep it nests, how many
bytes of JSON it would expand to, and go-yaml's own rule against "excessive aliasing" (past 1,000
decoded nodes, aliases may account for at most 99% of them, falling to 10% for documents of
millions). Only a document within all three bounds is constructed, and converting it to JSON
values (which copies what aliases share) is then bounded too. An alias of a node inside itself
(`&a [*a]`) is refused as go-yaml refuses it.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Any

import yaml

from flotilla.apiserver import errors
from flotilla.apiserver.registry.objectbounds import (
    INT64_MIN,
    MAX_DEPTH,
    MAX_OBJECT_BYTES,
    UINT64_MAX,
    too_deep,
    too_large,
)

# go-yaml's thresholds (decode.go, allowedAliasRatio): counts of decoded nodes.
_ALIAS_RATIO_LOW = 400_000
_ALIAS_RATIO_HIGH = 4_000_000
_MIN_DECODES = 1_000
_MIN_ALIAS_DECODES = 100

_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader with go-yaml's readings: timestamps and unknown tags are plain values, and map
    keys are JSON keys as soon as they are read (so `1` and `true` stay two keys, as in go-yaml)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            where = f"line {key_node.start_mark.line + 1}, column {key_node.start_mark.column + 1}"
            mapping[map_key(key, where)] = self.construct_object(value_node, deep=deep)
        return mapping


def _construct_by_kind(loader: Any, node: yaml.Node) -> Any:
    """A node with a tag no constructor knows (`!thing`) is read by its kind, as go-yaml reads it."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
_Loader.add_constructor(None, _construct_by_kind)


@dataclass
class YAMLDocument:
    """A decoded YAML body: its JSON value and the keys given twice in one mapping."""

    value: Any
    duplicate_fields: list[str] = field(default_factory=list)


def decode_yaml_document(body: bytes, max_depth: int = MAX_DEPTH) -> YAMLDocument:
    """The JSON value of a one-document YAML body; 400 when it is not valid YAML or cannot be JSON,
    400 when nested or aliased past the bounds, 413 when it would expand past MAX_OBJECT_BYTES."""
    loader = _Loader(body)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return YAMLDocument(None)
            duplicates = measure(node, max_depth).duplicates
            data = loader.construct_document(node)
        except yaml.YAMLError as exc:
            raise errors.BadRequest(
                f"the body of the request is not valid YAML: {yaml_problem(exc)}"
            ) from exc
        except RecursionError as exc:  # PyYAML's pure-Python parser, when libyaml is missing
            raise too_deep(limit=max_depth) from exc
    finally:
        loader.dispose()
    return YAMLDocument(to_json_value(data, ""), duplicates)


def yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong, worded as go-yaml words it (`yaml: line 2: did not find expected ',' or ']'`):
    PyYAML's own text names the input as Python sees it (`in "<byte string>", line 2, column 1`)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""
        # A context that says what was expected is kept; one that says what was being parsed is not.
        context = exc.context if exc.context and not exc.context.startswith("while ") else ""
        return f"yaml: {where}{context + ', ' if context else ''}{exc.problem}"
    if isinstance(exc, yaml.reader.ReaderError):
        return f"yaml: {exc.reason} at byte {exc.position}"
    return "yaml: the document cannot be read"


@dataclass
class GraphSize:
    """What a node graph expands to: nodes decoded (go-yaml's count), JSON bytes, nesting depth."""

    nodes: int
    json_bytes: int
    depth: int
    duplicates: list[str] = field(default_factory=list)


@dataclass
class _Stats:
    nodes: int = 1
    json_bytes: int = 2
    depth: int = 1


def measure(root: yaml.Node, max_depth: int = MAX_DEPTH) -> GraphSize:
    """Measure the expansion of `root`'s graph without expanding it; raise when past a bound.

    One depth-first walk in document order, without entering aliases: the first time a node is
    met is where it is defined (anchored), every later time is an alias of it. A node's expanded
    size is its own plus its children's, an alias costing one node more than what it names (as in
    go-yaml, where an alias is a node of its own); sizes are remembered per node, so each node is
    measured once however often it is aliased.
    """
    stats: dict[int, _Stats] = {}
    duplicates: list[str] = []
    decoded = aliased = 0
    on_path: set[int] = set()
    # Each frame: the node, its children, the index of the next child, the stats being summed.
    stack: list[tuple[yaml.Node, list[yaml.Node], list[int], _Stats]] = []

    def enter(node: yaml.Node) -> _Stats | None:
        """Start on a node met for the first time; its stats at once when it is a scalar."""
        nonlocal decoded
        decoded += 1
        if isinstance(node, yaml.ScalarNode):
            done = _Stats(1, len(node.value) + 2, 0)
            stats[id(node)] = done
            return done
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
            _note_duplicates(node, duplicates)
        else:
            children = list(node.value)
        on_path.add(id(node))
        stack.append((node, children, [0], _Stats()))
        return None

    def add(total: _Stats, child: _Stats, is_alias: bool) -> None:
        total.nodes += child.nodes + (1 if is_alias else 0)
        total.json_bytes += child.json_bytes + 1  # a comma or colon beside each item
        total.depth = max(total.depth, child.depth + 1)

    finished = enter(root)
    while stack:
        node, children, position, total = stack[-1]
        if position[0] == len(children):
            stack.pop()
            on_path.discard(id(node))
            stats[id(node)] = total
            if total.json_bytes > MAX_OBJECT_BYTES:
                raise too_large(total.json_bytes, "the YAML body, with its aliases expanded,")
            if total.depth > max_depth:
                raise too_deep(limit=max_depth)
            if stack:
                add(stack[-1][3], total, is_alias=False)
            else:
                finished = total
            continue
        child = children[position[0]]
        position[0] += 1
        if id(child) in on_path:
            raise errors.BadRequest(
                "the body of the request is not valid YAML: an anchor's value contains an alias of itself, "
                "which would expand forever"
            )
        known = stats.get(id(child))
        if known is not None:
            # Met before: PyYAML shares a node only where the document aliases it.
            decoded += 1 + known.nodes
            aliased += known.nodes
            _check_aliasing(decoded, aliased)
            add(total, known, is_alias=True)
        else:
            scalar = enter(child)
            if scalar is not None:
                add(total, scalar, is_alias=False)
    assert finished is not None
    return GraphSize(finished.nodes, finished.json_bytes, finished.depth, duplicates)


def _check_aliasing(decoded: int, aliased: int) -> None:
    if decoded <= _MIN_DECODES or aliased <= _MIN_ALIAS_DECODES:
        return
    if aliased / decoded > allowed_alias_ratio(decoded):
        raise errors.BadRequest(
            "the body of the request is not valid YAML: document contains excessive aliasing "
            f"({aliased} of {decoded} nodes come from aliases); write the repeated parts out or "
            "send JSON"
        )


def allowed_alias_ratio(decoded: int) -> float:
    """go-yaml's allowance: 99% of a document up to 400,000 nodes, 10% past 4,000,000, linear between."""
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _note_duplicates(node: yaml.MappingNode, duplicates: list[str]) -> None:
    seen: set[str] = set()
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE_TAG:
            if key.value in seen:
                duplicates.append(key.value)
            seen.add(key.value)


def to_json_value(data: Any, path: str) -> Any:
    """Constructed YAML data as the JSON value kube makes of it (a copy: nothing stays shared)."""
    if isinstance(data, dict):
        return {key: to_json_value(value, _join(path, key)) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [to_json_value(item, f"{path}[{index}]") for index, item in enumerate(data)]
    if isinstance(data, set):
        # go-yaml reads `!!set {a, b}` as the map it is written as: {a: null, b: null}.
        return {map_key(key, path or "the root"): None for key in data}
    if isinstance(data, bool) or data is None or isinstance(data, str):
        return data
    if isinstance(data, int):
        return json_integer(data)
    if isinstance(data, float):
        if not math.isfinite(data):
            where = f" at {path}" if path else ""
            raise errors.BadRequest(
                f"the body of the request cannot be represented as JSON: {_float_text(data)}{where} is not "
                "a number JSON can hold; quote it to send a string"
            )
        return data
    if isinstance(data, bytes):
        # !!binary: go-yaml decodes it to a string, and JSON replaces what is not UTF-8.
        return data.decode("utf-8", errors="replace")
    raise errors.BadRequest(
        "the body of the request cannot be represented as JSON: unsupported YAML value at "
        + (path or "the root")
    )


def json_integer(value: int) -> int | float | str:
    """An integer as kube's decoders leave it: as is within 64 bits, else a float, else (past a
    float's range) the digits as a string, which is how go-yaml resolves such a literal."""
    if INT64_MIN <= value <= UINT64_MAX:
        return value
    try:
        return float(value)
    except OverflowError:
        return str(value)


def map_key(key: Any, where: str) -> str:
    """A YAML map key as a JSON object key: strings as they are, numbers and booleans in go-yaml's
    spelling; anything else (null, a list, a map) is refused, as sigs.k8s.io/yaml refuses it.
    `where` locates the key for the message (`line 3, column 1`)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return go_float32_text(key)
    if isinstance(key, bytes):
        return key.decode("utf-8", errors="replace")
    kind = "null" if key is None else "a list or map"
    raise errors.BadRequest(
        f"the body of the request cannot be represented as JSON: the map key at {where} is {kind}; "
        "keys must be strings, numbers or booleans (quote the key to make it a string)"
    )


def _join(path: str, key: Any) -> str:
    text = key if isinstance(key, str) else str(key)
    return f"{path}.{text}" if path else text


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    return ".inf" if value > 0 else "-.inf"


def go_float32_text(value: float) -> str:
    """Go's `strconv.FormatFloat(v, 'g', -1, 32)`, how sigs.k8s.io/yaml spells a float map key:
    the shortest digits that read back as the same 32-bit float, with an exponent when it is
    below -4 or at least 6 (`1.5`, `100`, `1e+06`, `1e-05`); infinities and NaN in YAML's words."""
    if not math.isfinite(value):
        return _float_text(value)
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # some builds refuse what others round to infinity
        single = math.copysign(math.inf, value)
    if not math.isfinite(single):
        return _float_text(single)
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    for precision in range(1, 10):
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, _, exponent_text = text.partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    exponent = int(exponent_text)
    if exponent < -4 or exponent >= 6:
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, fraction = digits[: exponent + 1], digits[exponent + 1 :]
    whole += "0" * (exponent + 1 - len(whole))
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"
