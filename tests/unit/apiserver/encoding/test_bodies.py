"""Request bodies: the media types a write arrives in, and reading each within the size and depth bounds."""

from __future__ import annotations

import orjson
import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import (
    IN_LOOP_BODY_BYTES,
    JSON,
    PROTOBUF,
    YAML,
    decode_body,
    decode_json_or_yaml,
    media_type_of,
    read_body,
    read_json_or_yaml,
)
from flotilla.apiserver.registry.objectbounds import MAX_BODY_BYTES, MAX_DEPTH
from tests.unit.apiserver.encoding.protobuf.encoder import envelope

CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}}
CONFIG_MAP_YAML = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: '1'\n"


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


@pytest.mark.parametrize(
    ("content_type", "media"),
    [
        ("application/json", JSON),
        ("Application/JSON; charset=utf-8", JSON),
        (" application/yaml ;q=1", YAML),
        (None, ""),
        ("", ""),
    ],
)
def test_the_media_type_is_the_content_type_without_parameters_in_lower_case(
    content_type: str | None, media: str
) -> None:
    """Parameters (charset…) and case do not change what a body is."""
    assert media_type_of(content_type) == media


@pytest.mark.parametrize("content_type", [JSON, "application/json; charset=utf-8", None, ""])
def test_json_is_the_default_and_decodes_to_plain_data(content_type: str | None) -> None:
    """A JSON body, or one without a Content-Type, decodes to its object."""
    assert decode_body(orjson.dumps(CONFIG_MAP), content_type).obj == CONFIG_MAP


def test_yaml_decodes_to_what_its_json_would() -> None:
    """The same object sent as YAML decodes to the same data."""
    assert decode_body(CONFIG_MAP_YAML, YAML).obj == CONFIG_MAP


def test_protobuf_decodes_through_its_envelope() -> None:
    """kubectl's protobuf envelope (here wrapping JSON) decodes to the object, kind and apiVersion first."""
    body = envelope("v1", "ConfigMap", orjson.dumps({"metadata": {"name": "settings"}}), content_type=JSON)
    assert decode_body(body, PROTOBUF).obj == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "settings"},
    }


def test_a_protobuf_kind_without_a_decoder_is_415_asking_for_json() -> None:
    """A kind the protobuf decoder does not know is 415 with the fix: send it as JSON."""
    with pytest.raises(errors.UnsupportedMediaType) as refused:
        decode_body(envelope("example.com/v1", "Widget", b""), PROTOBUF)
    assert refused.value.message.endswith(f"send this kind as {JSON}")


def test_a_body_that_is_not_protobuf_is_400() -> None:
    """Bytes without the Kubernetes protobuf magic are a bad request, not a server error."""
    with pytest.raises(errors.BadRequest, match="could not be decoded as protobuf"):
        decode_body(b"not protobuf", PROTOBUF)


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/merge-patch+json"])
def test_any_other_media_type_is_415_listing_the_accepted_ones(content_type: str) -> None:
    """Only JSON, YAML and protobuf are objects; the 415 names all three."""
    with pytest.raises(errors.UnsupportedMediaType) as refused:
        decode_body(b"{}", content_type)
    assert all(media in refused.value.message for media in (JSON, YAML, PROTOBUF))


@pytest.mark.parametrize("body", [b"", b"  \n"])
def test_an_empty_json_body_is_400_saying_what_to_send(body: bytes) -> None:
    """An empty body is a bad request that says to send the object."""
    with pytest.raises(errors.BadRequest, match="the request body is empty; send the object as JSON or YAML"):
        decode_body(body, JSON)


def test_invalid_json_is_400_with_where_it_broke() -> None:
    """A body that is not JSON is 400, with the parser's position."""
    with pytest.raises(errors.BadRequest, match=r"the body of the request is not valid JSON: .*line 1"):
        decode_body(b'{"metadata": ', JSON)


@pytest.mark.parametrize("content_type", [JSON, YAML, PROTOBUF])
def test_a_body_over_3_mib_is_413_before_it_is_decoded(content_type: str) -> None:
    """The size bound comes first, whatever the media type (nothing over it is parsed)."""
    with pytest.raises(errors.RequestEntityTooLarge, match="limit is 3145728 bytes"):
        decode_body(b" " * (MAX_BODY_BYTES + 1), content_type)


def test_a_body_of_exactly_3_mib_is_read() -> None:
    """The bound is inclusive: a body of exactly MAX_BODY_BYTES decodes."""
    padding = MAX_BODY_BYTES - len(orjson.dumps({"p": ""}))
    assert len(decode_body(orjson.dumps({"p": "x" * padding}), JSON).obj["p"]) == padding


@pytest.mark.parametrize("content_type", [JSON, YAML])
def test_nesting_is_read_to_128_levels_and_refused_past_them(content_type: str) -> None:
    """MAX_DEPTH levels decode; one more is 400 (orjson and the schema walkers stop not far beyond)."""
    assert decode_body(nested(MAX_DEPTH), content_type).obj is not None
    with pytest.raises(errors.BadRequest, match=f"nested at most {MAX_DEPTH} levels deep"):
        decode_body(nested(MAX_DEPTH + 1), content_type)


def test_integers_past_64_bits_become_floats_as_in_kube() -> None:
    """Up to 2^64-1 an integer stays an integer; past it, a float (Go's JSON does the same)."""
    decoded = decode_body(b'{"fits": 18446744073709551615, "past": 18446744073709551616}', JSON).obj
    assert decoded["fits"] == 2**64 - 1
    assert isinstance(decoded["past"], float)


@pytest.mark.parametrize("content_type", [JSON, YAML])
def test_keys_given_twice_are_found_only_when_asked_and_the_last_wins(content_type: str) -> None:
    """Strict field validation asks for duplicate keys, at any depth; the object keeps the last value."""
    body = (
        b'{"a": 1, "b": {"c": 1, "c": 2}, "a": 3}'
        if content_type == JSON
        else b"a: 1\nb:\n  c: 1\n  c: 2\na: 3\n"
    )
    found = decode_body(body, content_type, find_duplicates=True)
    assert found.obj == {"a": 3, "b": {"c": 2}}
    assert sorted(found.duplicate_fields) == ["a", "c"]
    assert decode_body(body, content_type).duplicate_fields == []


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (CONFIG_MAP_YAML, YAML),  # YAML is always read in a worker thread
        (orjson.dumps({**CONFIG_MAP, "data": {"a": "x" * IN_LOOP_BODY_BYTES}}), JSON),  # big, strict
        (orjson.dumps(CONFIG_MAP), JSON),  # small: on the loop
    ],
)
async def test_reading_off_the_loop_decodes_the_same_as_decoding_on_it(
    body: bytes, content_type: str
) -> None:
    """read_body moves costly bodies to a worker thread; what it returns does not depend on where."""
    assert await read_body(body, content_type, find_duplicates=True) == decode_body(
        body, content_type, find_duplicates=True
    )


async def test_a_body_too_big_for_a_thread_is_refused_on_the_loop() -> None:
    """read_body does not hand an oversized body to a thread: it is 413 at once."""
    with pytest.raises(errors.RequestEntityTooLarge):
        await read_body(b" " * (MAX_BODY_BYTES + 1), YAML)


def test_patches_and_apply_configurations_may_be_json_or_yaml() -> None:
    """decode_json_or_yaml reads JSON when it is JSON, YAML otherwise."""
    assert decode_json_or_yaml(orjson.dumps(CONFIG_MAP)) == CONFIG_MAP
    assert decode_json_or_yaml(CONFIG_MAP_YAML) == CONFIG_MAP


def test_a_patch_keeps_the_size_bound_and_may_be_given_more_depth() -> None:
    """A JSON patch wraps objects, so its caller may allow more levels; the 3 MiB bound stays."""
    deeper = nested(MAX_DEPTH + 2)
    with pytest.raises(errors.BadRequest):
        decode_json_or_yaml(deeper)
    assert decode_json_or_yaml(deeper, max_depth=MAX_DEPTH + 2) is not None
    with pytest.raises(errors.RequestEntityTooLarge):
        decode_json_or_yaml(b" " * (MAX_BODY_BYTES + 1))


async def test_reading_a_yaml_patch_off_the_loop_decodes_the_same() -> None:
    """read_json_or_yaml gives what decode_json_or_yaml gives, JSON or YAML."""
    for body in (orjson.dumps(CONFIG_MAP), CONFIG_MAP_YAML):
        assert await read_json_or_yaml(body) == decode_json_or_yaml(body)
