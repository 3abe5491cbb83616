"""The generated field tables hang together and carry Kubernetes' real field numbers."""

from __future__ import annotations

import pytest

from flotilla.apiserver.encoding.protobuf.descriptors import KINDS, LIST_WRAPPERS, MESSAGES
from flotilla.apiserver.encoding.protobuf.model import INLINE, REPEATED, Field, MapOf, Scalar
from flotilla.apiserver.encoding.protobuf.wellknown import RENDERERS


def _referenced(field: Field) -> list[str]:
    if isinstance(field.type, MapOf):
        return [field.type.value] if isinstance(field.type.value, str) else []
    return [field.type] if isinstance(field.type, str) else []


def test_every_referenced_message_has_a_table_or_a_renderer() -> None:
    """No field points at a message the decoder cannot read."""
    missing = {
        (name, target)
        for name, fields in MESSAGES.items()
        for field in fields
        for target in _referenced(field)
        if target not in MESSAGES and target not in RENDERERS
    }
    assert missing == set()


def test_every_kind_maps_to_a_table() -> None:
    """Each supported kind's top-level message is present."""
    assert {message for message in KINDS.values() if message not in MESSAGES} == set()


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_field_numbers_and_json_names_are_unique_within_a_message(name: str) -> None:
    """Two fields never share a number or (inline structs aside) a JSON key."""
    fields = MESSAGES[name]
    numbers = [field.number for field in fields]
    json_names = [field.json_name for field in fields if not field.flags & INLINE]
    assert len(set(numbers)) == len(numbers)
    assert len(set(json_names)) == len(json_names)


def test_list_wrappers_are_single_repeated_scalars() -> None:
    """A Go named slice type is one repeated field on the wire, or it could not be shown as a bare array."""
    assert LIST_WRAPPERS
    for name in LIST_WRAPPERS:
        (field,) = MESSAGES[name]
        assert field.flags & REPEATED
        assert isinstance(field.type, Scalar)


@pytest.mark.parametrize(
    ("message", "json_name", "number"),
    [
        ("meta.v1.ObjectMeta", "name", 1),
        ("meta.v1.ObjectMeta", "creationTimestamp", 8),
        ("meta.v1.ObjectMeta", "managedFields", 17),
        ("meta.v1.OwnerReference", "apiVersion", 5),
        ("core.v1.Secret", "data", 2),
        ("core.v1.PodSpec", "initContainers", 20),
        ("core.v1.Container", "terminationMessagePolicy", 20),
        ("apps.v1.DeploymentSpec", "progressDeadlineSeconds", 9),
        ("certificates.v1.CertificateSigningRequestSpec", "signerName", 7),
        ("authentication.v1.TokenRequestSpec", "boundObjectRef", 3),
        ("authorization.v1.ResourceAttributes", "labelSelector", 9),
    ],
)
def test_field_numbers_match_kubernetes_generated_proto(message: str, json_name: str, number: int) -> None:
    """Spot checks against k8s.io/api's generated.proto guard the extractor against drift."""
    assert {field.json_name: field.number for field in MESSAGES[message]}[json_name] == number
