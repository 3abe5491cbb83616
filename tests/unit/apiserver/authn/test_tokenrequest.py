"""TokenRequest: defaults, validation and bound objects, worded as kube-apiserver words them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from flotilla.apiserver import errors
from flotilla.apiserver.authn import jws
from flotilla.apiserver.authn.serviceaccounts import ISSUER, ServiceAccountKey, TokenIssuer
from flotilla.apiserver.http.handlers.tokenrequest import token_request
from tests.unit.apiserver.authn.objects import Objects, pod, service_account

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PRIVATE = ec.generate_private_key(ec.SECP256R1())
ISSUER_KEY = TokenIssuer(ServiceAccountKey(PRIVATE, jws.key_id(PRIVATE)))


@pytest.fixture
def objects() -> Objects:
    found = Objects()
    found.add(service_account())
    return found


def request(objects: Objects, spec: dict[str, Any] | None = None, **meta: str) -> dict[str, Any]:
    body = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "metadata": meta,
        "spec": spec or {},
    }
    return token_request(body, "default", "robot", objects, ISSUER_KEY, NOW)


def claims(answer: dict[str, Any]) -> dict[str, Any]:
    _, payload, _, _ = jws.split_compact(answer["status"]["token"])
    found: dict[str, Any] = orjson.loads(payload)
    return found


def test_defaults_are_one_hour_and_the_api_audience(objects: Objects) -> None:
    """Without a spec the token lasts 3600 s for the issuer's audience; the answer echoes the spec."""
    answer = request(objects)
    assert answer["spec"] == {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": None}
    assert answer["status"]["expirationTimestamp"] == "2026-06-01T13:00:00Z"
    assert answer["metadata"]["name"] == "robot" and answer["metadata"]["namespace"] == "default"
    assert claims(answer)["exp"] - claims(answer)["iat"] == 3600


@pytest.mark.parametrize(
    ("seconds", "message"),
    [
        (599, "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"),
        ((1 << 32) + 1, r"may not specify a duration larger than 2\^32 seconds"),
        ("600", "must be an integer number of seconds"),
    ],
)
def test_expiration_outside_the_bounds_is_invalid(objects: Objects, seconds: object, message: str) -> None:
    """Under 600 s or over 2^32 s is 422 Invalid naming spec.expirationSeconds."""
    with pytest.raises(errors.Invalid, match=message) as raised:
        request(objects, {"expirationSeconds": seconds})
    assert raised.value.message.startswith('TokenRequest.authentication.k8s.io "robot" is invalid')


def test_audiences_are_carried_into_the_token(objects: Objects) -> None:
    """Asked audiences replace the default."""
    assert claims(request(objects, {"audiences": ["vault", "s3"]}))["aud"] == ["vault", "s3"]


def test_a_missing_service_account_is_not_found(objects: Objects) -> None:
    """The token is for a ServiceAccount that must exist."""
    body = {"spec": {}}
    with pytest.raises(errors.NotFound, match='serviceaccounts "ghost" not found'):
        token_request(body, "default", "ghost", objects, ISSUER_KEY, NOW)


def test_names_in_the_body_must_match_the_url(objects: Objects) -> None:
    """metadata.name/namespace, if given, must be the ServiceAccount's."""
    with pytest.raises(errors.Invalid, match="must match the service account name if specified"):
        request(objects, name="other")
    with pytest.raises(errors.Invalid, match="must match the service account namespace if specified"):
        request(objects, namespace="other")


def test_binding_to_a_pod_checks_its_account_and_uid(objects: Objects) -> None:
    """A pod-bound token needs the pod to run as the account; a stale uid is a conflict."""
    objects.add(pod("web-1", node="node-a"))
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "web-1"}
    bound = claims(request(objects, {"boundObjectRef": ref}))["kubernetes.io"]
    assert bound["pod"] == {"name": "web-1", "uid": "pod-uid"}
    assert bound["node"] == {"name": "node-a"}
    with pytest.raises(errors.Conflict, match="does not match the UID in record"):
        request(objects, {"boundObjectRef": {**ref, "uid": "stale"}})
    objects.add(pod("web-2", account="other"))
    with pytest.raises(errors.BadRequest, match="to pod running with different serviceaccount name"):
        request(objects, {"boundObjectRef": {**ref, "name": "web-2"}})
    with pytest.raises(errors.NotFound, match='pods "web-3" not found'):
        request(objects, {"boundObjectRef": {**ref, "name": "web-3"}})


def test_binding_to_other_kinds_is_refused(objects: Objects) -> None:
    """Only core Pods, Secrets and Nodes can hold a token."""
    with pytest.raises(
        errors.BadRequest, match="cannot bind token to object of type apps/v1, Kind=Deployment"
    ):
        request(objects, {"boundObjectRef": {"kind": "Deployment", "apiVersion": "apps/v1", "name": "d"}})
