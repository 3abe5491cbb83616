"""YAML bodies read as kube reads them, with aliases measured over the node graph before they expand."""

from __future__ import annotations

import time
import tracemalloc

import pytest
import yaml

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.yamlbodies import (
    allowed_alias_ratio,
    decode_yaml_document,
    go_float32_text,
    measure,
)
from flotilla.apiserver.registry.objectbounds import MAX_DEPTH, MAX_OBJECT_BYTES


def alias_bomb(levels: int, fan_out: int = 9) -> bytes:
    """The D3 body: each level a list of `fan_out` aliases of the level before (fan_out**levels leaves)."""
    lines = ["metadata: {name: bomb}", "a0: &a0 [" + ", ".join(['"xxxxxxxx"'] * fan_out) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * fan_out) + "]")
    return ("\n".join(lines) + "\n").encode()


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    """7 levels of 9 aliases (47 million nodes expanded) in a few hundred bytes: refused, in little
    time and memory, with go-yaml's reason."""
    body = alias_bomb(7)
    assert len(body) < 600
    tracemalloc.start()
    started = time.process_time()
    with pytest.raises(errors.BadRequest, match="excessive aliasing"):
        decode_yaml_document(body)
    spent = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert spent < 0.5
    assert peak < 5 * 1024 * 1024


def test_the_graph_is_measured_as_go_yaml_counts_it() -> None:
    """Expanded node count: each alias is one node more than what it names (go-yaml decodes alias
    nodes too); bytes and depth are those of the expanded JSON."""
    size = measure(yaml.compose(b"a: &x [1, 2]\nb: *x\nc: [*x, *x]\n"))
    # root map (1) + a, b, c keys (3) + x defined (3) + alias b (1+3) + list c (1) + 2 aliases (2*(1+3))
    assert size.nodes == 1 + 3 + 3 + 4 + 1 + 8
    assert size.depth == 3
    assert size.json_bytes >= len(b'{"a":[1,2],"b":[1,2],"c":[[1,2],[1,2]]}')


def test_moderate_aliasing_is_allowed() -> None:
    """A small document that aliases a lot stays under go-yaml's threshold of 1,000 decoded nodes."""
    body = b"base: &b {x: 1, y: 2}\n" + b"".join(b"k%d: *b\n" % i for i in range(100))
    value = decode_yaml_document(body).value
    assert value["k99"] == {"x": 1, "y": 2}
    value["k99"]["x"] = 3
    assert value["k0"]["x"] == 1, "aliases are copied, not shared, once decoded"


def test_allowed_alias_ratio_falls_from_99_to_10_percent() -> None:
    assert allowed_alias_ratio(1_000) == 0.99
    assert allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)
    assert allowed_alias_ratio(4_000_000) == 0.10


def test_few_aliases_of_a_big_value_are_413_before_they_expand() -> None:
    """Under the alias-count rule, but 900 copies of 40 KB: measured in bytes, refused as too large."""
    body = b"s: &s " + b"x" * 40_000 + b"\nl: [" + b", ".join([b"*s"] * 900) + b"]\n"
    with pytest.raises(errors.RequestEntityTooLarge, match=str(MAX_OBJECT_BYTES)):
        decode_yaml_document(body)


def test_an_anchor_that_contains_its_own_alias_is_400() -> None:
    with pytest.raises(errors.BadRequest, match="alias of itself"):
        decode_yaml_document(b"a: &a [1, *a]\n")


def test_nesting_past_the_limit_is_400() -> None:
    fits = b"a: " + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1)
    assert decode_yaml_document(fits).value is not None
    deeper = b"a: " + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    with pytest.raises(errors.BadRequest, match="nested too deeply"):
        decode_yaml_document(deeper)


def test_keys_and_values_mean_what_their_json_would() -> None:
    """Number and boolean keys become strings (two keys, not one), timestamps stay strings, integers
    past 64 bits become floats, unknown tags read by kind, !!binary decodes, !!set is a map of nulls."""
    body = (
        b"data: {1: a, true: b, 1.5: c, 1000000.0: d}\n"
        b"when: 2001-12-14\n"
        b"big: 18446744073709551616\n"
        b"max: 18446744073709551615\n"
        b"tagged: !thing 3\n"
        b"bin: !!binary aGVsbG8=\n"
        b"set: !!set {x, y}\n"
    )
    value = decode_yaml_document(body).value
    assert value["data"] == {"1": "a", "true": "b", "1.5": "c", "1e+06": "d"}
    assert value["when"] == "2001-12-14"
    assert value["big"] == 1.8446744073709552e19 and isinstance(value["big"], float)
    assert value["max"] == 18446744073709551615
    assert value["tagged"] == "3"
    assert value["bin"] == "hello"
    assert value["set"] == {"x": None, "y": None}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"~: 1\n", "map key at line 1, column 1 is null"),
        (b"? [1]\n: a\n", "is a list or map"),
        (b"a: .nan\n", "not a number JSON can hold"),
        (b"a: -.inf\n", "not a number JSON can hold"),
        (b"a: [1\n", "not valid YAML"),
        (b"---\na: 1\n---\nb: 2\n", "expected a single document"),
    ],
)
def test_what_json_cannot_hold_is_400_with_the_place_and_the_fix(body: bytes, message: str) -> None:
    with pytest.raises(errors.BadRequest, match=message):
        decode_yaml_document(body)


def test_keys_given_twice_are_reported_for_strict_validation() -> None:
    document = decode_yaml_document(b"a: 1\nb: {c: 1, c: 2}\na: 3\n<<: {d: 1}\n")
    assert sorted(document.duplicate_fields) == ["a", "c"]
    assert document.value["a"] == 3


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.5, "1.5"),
        (0.1, "0.1"),
        (100.0, "100"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (1e300, ".inf"),
        (float("nan"), ".nan"),
    ],
)
def test_float_keys_are_spelled_as_go_formats_a_32_bit_float(number: float, text: str) -> None:
    assert go_float32_text(number) == text
