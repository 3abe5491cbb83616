"""decode_object: real kubectl bodies, the envelope, and Go's JSON rules for absent and zero fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flotilla.apiserver.encoding.protobuf import (
    MAGIC,
    ProtobufError,
    UnsupportedKindError,
    decode_object,
    supported_kinds,
)
from tests.unit.apiserver.encoding.protobuf.encoder import (
    bytes_field,
    envelope,
    map_entry,
    message_field,
    string_field,
    tag,
    varint,
    varint_field,
)

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_CASES = sorted(path.stem for path in GOLDEN.glob("*.pb"))


def _metadata(name: str) -> bytes:
    return message_field(1, string_field(1, name))


def _deployment(*spec_fields: bytes) -> dict[str, Any]:
    return decode_object(envelope("apps/v1", "Deployment", _metadata("web") + message_field(2, *spec_fields)))


def test_golden_files_cover_the_kubectl_generators() -> None:
    """The recorded bodies include every kubectl command the brief names, so none silently went missing."""
    assert len(GOLDEN_CASES) >= 29
    assert {"configmap", "secret_generic", "deployment", "token", "can_i_resource", "whoami"} <= set(
        GOLDEN_CASES
    )


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_kubectl_body_decodes_to_kubectls_own_json(case: str) -> None:
    """A body kubectl sent decodes to the JSON kubectl prints for the same object, keys in the same order."""
    expected = json.loads((GOLDEN / f"{case}.json").read_text())
    decoded = decode_object((GOLDEN / f"{case}.pb").read_bytes())
    assert decoded == expected
    assert list(decoded) == list(expected)
    assert json.dumps(decoded) == json.dumps(expected)


def test_supported_kinds_lists_every_kind_of_the_brief() -> None:
    """Every kind of the brief decodes, DeleteOptions under both of its API versions."""
    kinds = supported_kinds()
    assert ("v1", "ConfigMap") in kinds
    assert ("apps/v1", "Deployment") in kinds
    assert ("autoscaling/v2", "HorizontalPodAutoscaler") in kinds
    assert ("meta.k8s.io/v1", "DeleteOptions") in kinds
    assert ("v1", "DeleteOptions") in kinds
    assert ("authorization.k8s.io/v1", "SelfSubjectRulesReview") in kinds
    assert len(kinds) == 40


def test_result_starts_with_kind_and_api_version_from_the_envelope() -> None:
    """raw carries no TypeMeta; the envelope's typeMeta supplies it, kind first as Go prints it."""
    decoded = decode_object(envelope("v1", "Namespace", _metadata("team-a")))
    assert list(decoded)[:2] == ["kind", "apiVersion"]
    assert decoded["apiVersion"] == "v1"
    assert decoded["kind"] == "Namespace"


def test_body_without_magic_is_rejected() -> None:
    """Anything not starting with k8s\\0 is not a Kubernetes protobuf body."""
    with pytest.raises(ProtobufError, match="magic bytes"):
        decode_object(b'{"kind":"ConfigMap"}')


def test_unknown_kind_raises_unsupported_kind_error_with_kubernetes_wording() -> None:
    """The server answers 415 for kinds without a table; the error names the kind like Go's GVK string."""
    with pytest.raises(
        UnsupportedKindError, match=r"^no protobuf decoding known for example.com/v1, Kind=Widget$"
    ):
        decode_object(envelope("example.com/v1", "Widget", b""))


def test_unsupported_kind_error_is_a_protobuf_error_carrying_the_kind() -> None:
    """Callers that only catch ProtobufError still catch it; those that care can read the kind."""
    with pytest.raises(ProtobufError) as caught:
        decode_object(envelope("v1", "Binding", b""))
    assert isinstance(caught.value, UnsupportedKindError)
    assert (caught.value.api_version, caught.value.kind) == ("v1", "Binding")


def test_truncated_body_is_rejected() -> None:
    """A body cut short anywhere raises ProtobufError rather than decoding part of the object."""
    body = (GOLDEN / "deployment.pb").read_bytes()
    with pytest.raises(ProtobufError, match="truncated"):
        decode_object(body[:-7])


def test_compressed_envelope_is_rejected() -> None:
    """Kubernetes never sets contentEncoding on request bodies; if it is set, the body cannot be read."""
    with pytest.raises(ProtobufError, match="contentEncoding 'gzip'"):
        decode_object(envelope("v1", "ConfigMap", b"", content_encoding="gzip"))


def test_envelope_with_json_content_type_embeds_the_json_object() -> None:
    """runtime.Unknown may carry JSON; the object is taken as is, with the envelope's apiVersion and kind."""
    raw = b'{"metadata":{"name":"x"},"data":{"a":"b"}}'
    decoded = decode_object(envelope("v1", "ConfigMap", raw, content_type="application/json"))
    assert decoded == {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}, "data": {"a": "b"}}


def test_envelope_with_foreign_content_type_is_rejected() -> None:
    """Only protobuf and JSON payloads can be decoded."""
    with pytest.raises(ProtobufError, match="unsupported contentType 'application/cbor'"):
        decode_object(envelope("v1", "ConfigMap", b"", content_type="application/cbor"))


def test_wire_type_mismatch_names_the_field_path() -> None:
    """A varint where a string belongs is rejected with the JSON path of the field."""
    body = envelope("v1", "ConfigMap", message_field(1, varint_field(1, 5)))
    with pytest.raises(ProtobufError, match=r"wire-type mismatch at metadata.name: field 1 is string"):
        decode_object(body)


def test_wire_type_mismatch_on_a_message_field_is_rejected() -> None:
    """A varint where a nested message belongs cannot be decoded."""
    with pytest.raises(ProtobufError, match="wire-type mismatch at spec: field 2 is length-delimited"):
        decode_object(envelope("apps/v1", "Deployment", varint_field(2, 1)))


def test_unknown_fields_are_skipped_at_every_level() -> None:
    """Fields a newer client knows but our tables do not are ignored, whatever their wire type."""
    unknown = varint_field(900, 1) + bytes_field(901, b"\x01\x02") + tag(902, 5) + b"\x00\x00\x00\x00"
    body = envelope("v1", "ConfigMap", message_field(1, string_field(1, "cm"), unknown) + unknown)
    assert decode_object(body) == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "cm", "creationTimestamp": None},
    }


def test_pointer_field_present_with_zero_value_is_kept() -> None:
    """replicas is *int32: an explicit 0 is sent and must not be mistaken for unset."""
    assert _deployment(varint_field(1, 0))["spec"]["replicas"] == 0


def test_pointer_field_absent_is_omitted() -> None:
    """A nil pointer under omitempty does not appear at all."""
    assert "replicas" not in _deployment()["spec"]


def test_value_scalar_zero_under_omitempty_is_omitted() -> None:
    """paused is a plain bool with omitempty: false on the wire shows nothing, as in Go."""
    assert "paused" not in _deployment(varint_field(7, 0))["spec"]
    assert _deployment(varint_field(7, 1))["spec"]["paused"] is True


def test_value_scalar_without_omitempty_shows_its_zero_even_when_absent() -> None:
    """ContainerPort.containerPort has no omitempty, so Go prints 0 for a port message without it."""
    container = message_field(2, string_field(1, "app"), message_field(6, string_field(1, "http")))
    spec = _deployment(message_field(3, message_field(2, container)))["spec"]
    assert spec["template"]["spec"]["containers"][0]["ports"] == [{"name": "http", "containerPort": 0}]


def test_value_structs_always_show_and_zero_time_is_null() -> None:
    """Non-pointer structs are never omitted by encoding/json: `status: {}`, `creationTimestamp: null`."""
    decoded = _deployment()
    assert decoded["status"] == {}
    assert decoded["metadata"] == {"name": "web", "creationTimestamp": None}
    assert decoded["spec"]["template"] == {
        "metadata": {"creationTimestamp": None},
        "spec": {"containers": None},
    }


def test_nullable_field_without_omitempty_is_null_when_absent() -> None:
    """PodSpec.containers is a slice without omitempty: absent means a nil slice, printed as null."""
    assert _deployment()["spec"]["template"]["spec"]["containers"] is None


def test_negative_int32_and_int64_decode_with_their_sign() -> None:
    """Negative numbers travel as ten-byte varints and come back negative, for int32 and int64 alike."""
    pod_spec = message_field(2, string_field(1, "c")) + varint_field(4, -30)
    spec = _deployment(varint_field(1, -1), message_field(3, message_field(2, pod_spec)))["spec"]
    assert spec["replicas"] == -1
    assert spec["template"]["spec"]["terminationGracePeriodSeconds"] == -30


def test_repeated_numbers_are_read_packed_and_unpacked() -> None:
    """supplementalGroups (repeated int64) accepts both encodings and concatenates them in order."""
    packed = bytes_field(4, varint(1000) + varint(2000))
    security_context = message_field(14, packed + varint_field(4, 3000))
    pod_spec = message_field(2, string_field(1, "c")) + security_context
    spec = _deployment(message_field(3, message_field(2, pod_spec)))["spec"]
    assert spec["template"]["spec"]["securityContext"]["supplementalGroups"] == [1000, 2000, 3000]


def test_repeated_occurrences_of_a_singular_message_merge() -> None:
    """Proto semantics: a message field sent twice is merged, not replaced."""
    decoded = _deployment(message_field(4, string_field(1, "Recreate")), varint_field(5, 9), message_field(4))
    assert decoded["spec"]["strategy"] == {"type": "Recreate"}
    assert decoded["spec"]["minReadySeconds"] == 9


def test_last_occurrence_of_a_scalar_wins() -> None:
    """Proto semantics: a scalar sent twice takes the later value."""
    assert _deployment(varint_field(1, 2), varint_field(1, 5))["spec"]["replicas"] == 5


def test_secret_data_bytes_become_base64_and_map_keys_sort() -> None:
    """map<string, bytes> values are base64 strings, and keys come out sorted like Go's encoding/json."""
    raw = (
        _metadata("s")
        + map_entry(2, "z", bytes_field(2, b"\xff\x00"))
        + map_entry(2, "a", bytes_field(2, b"hi"))
    )
    decoded = decode_object(envelope("v1", "Secret", raw))
    assert list(decoded["data"].items()) == [("a", "aGk="), ("z", "/wA=")]


def test_map_entry_without_value_holds_the_zero_value() -> None:
    """A map entry whose value field is absent maps its key to the value type's zero."""
    raw = _metadata("cm") + message_field(2, string_field(1, "empty"))
    assert decode_object(envelope("v1", "ConfigMap", raw))["data"] == {"empty": ""}


def test_inline_struct_merges_its_keys_into_the_parent() -> None:
    """Volume embeds VolumeSource inline: emptyDir appears beside name, not under volumeSource."""
    volume = message_field(
        1, string_field(1, "scratch"), message_field(2, message_field(2, string_field(1, "Memory")))
    )
    pod = envelope("v1", "Pod", _metadata("p") + message_field(2, volume))
    assert decode_object(pod)["spec"]["volumes"] == [{"name": "scratch", "emptyDir": {"medium": "Memory"}}]


def test_int_or_string_renders_as_number_or_string() -> None:
    """Service targetPort is an IntOrString: type 0 gives its intVal, type 1 its strVal."""
    by_number = message_field(
        1, string_field(1, "a"), varint_field(3, 80), message_field(4, varint_field(2, 8080))
    )
    by_name = message_field(
        1,
        string_field(1, "b"),
        varint_field(3, 443),
        message_field(4, varint_field(1, 1), string_field(3, "https")),
    )
    service = decode_object(envelope("v1", "Service", _metadata("s") + message_field(2, by_number, by_name)))
    assert [port["targetPort"] for port in service["spec"]["ports"]] == [8080, "https"]


def test_times_render_as_rfc3339() -> None:
    """Lease renewTime is a MicroTime with six fractional digits; ObjectMeta timestamps are whole seconds."""
    metadata = message_field(1, string_field(1, "leader"), message_field(9, varint_field(1, 1704164645)))
    spec = message_field(2, message_field(4, varint_field(1, 1704164645), varint_field(2, 123456789)))
    lease = decode_object(envelope("coordination.k8s.io/v1", "Lease", metadata + spec))
    assert lease["metadata"]["deletionTimestamp"] == "2024-01-02T03:04:05Z"
    assert lease["spec"]["renewTime"] == "2024-01-02T03:04:05.123456Z"


def test_list_wrapper_map_values_render_as_arrays() -> None:
    """SubjectAccessReview extra maps to ExtraValue, a Go []string, so each value is a JSON array."""
    extra = map_entry(5, "scopes", message_field(2, string_field(1, "read"), string_field(1, "write")))
    spec = message_field(2, string_field(3, "alice"), extra)
    review = decode_object(envelope("authorization.k8s.io/v1", "SubjectAccessReview", _metadata("") + spec))
    assert review["spec"] == {"user": "alice", "extra": {"scopes": ["read", "write"]}}


def test_delete_options_decode_under_both_api_versions() -> None:
    """DeleteOptions is registered in every group; meta.k8s.io/v1 and v1 bodies decode alike."""
    raw = varint_field(1, 0) + string_field(4, "Foreground") + string_field(5, "All")
    for api_version in ("v1", "meta.k8s.io/v1"):
        decoded = decode_object(envelope(api_version, "DeleteOptions", raw))
        assert decoded == {
            "kind": "DeleteOptions",
            "apiVersion": api_version,
            "gracePeriodSeconds": 0,
            "propagationPolicy": "Foreground",
            "dryRun": ["All"],
        }


def test_eviction_carries_its_delete_options() -> None:
    """policy/v1 Eviction nests DeleteOptions (a pointer) under deleteOptions."""
    raw = _metadata("web-1") + message_field(
        2, varint_field(1, 30), message_field(2, string_field(1, "uid-1"))
    )
    eviction = decode_object(envelope("policy/v1", "Eviction", raw))
    assert eviction["deleteOptions"] == {"gracePeriodSeconds": 30, "preconditions": {"uid": "uid-1"}}


def test_hpa_v2_metric_quantities_are_strings() -> None:
    """autoscaling/v2 targets hold Quantities, which show as their string form."""
    target = message_field(2, string_field(1, "AverageValue"), message_field(3, string_field(1, "500m")))
    metric = message_field(4, string_field(1, "Resource"), message_field(4, string_field(1, "cpu"), target))
    spec = message_field(2, varint_field(3, 4), metric)
    hpa = decode_object(envelope("autoscaling/v2", "HorizontalPodAutoscaler", _metadata("web") + spec))
    assert hpa["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}},
        }
    ]


def test_invalid_utf8_in_strings_is_replaced_like_go() -> None:
    """encoding/json writes U+FFFD for invalid UTF-8 in Go strings; so do we, instead of failing."""
    decoded = decode_object(envelope("v1", "ConfigMap", message_field(1, bytes_field(1, b"bad\xffname"))))
    assert decoded["metadata"]["name"] == "bad\ufffdname"


def test_magic_constant_is_k8s_and_nul() -> None:
    """The exported magic matches the four bytes Kubernetes writes."""
    assert bytes([0x6B, 0x38, 0x73, 0x00]) == MAGIC


@settings(max_examples=300, deadline=None)
@given(case=st.sampled_from(GOLDEN_CASES), data=st.data())
def test_corrupted_bodies_raise_only_protobuf_error(case: str, data: st.DataObject) -> None:
    """Flipping, cutting or inserting bytes in a real body either still decodes or raises ProtobufError."""
    body = bytearray((GOLDEN / f"{case}.pb").read_bytes())
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        position = data.draw(st.integers(min_value=len(MAGIC), max_value=len(body) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            body[position] = data.draw(st.integers(min_value=0, max_value=255))
        elif action == "cut":
            del body[position:]
        else:
            body[position:position] = data.draw(st.binary(min_size=1, max_size=12))
        if len(body) <= len(MAGIC):
            break
    try:
        decoded = decode_object(bytes(body))
    except ProtobufError:
        return
    assert isinstance(decoded, dict)
