"""AdmissionReview requests are built, and answers checked and interpreted, as kube-apiserver does."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.admission.review import (
    ReviewSubject,
    WebhookCallError,
    admission_review,
    apply_patch,
    decode_patch,
    denial,
    read_response,
    review_version,
)
from flotilla.apiserver.users import UserInfo

UID = "0f6c1e0a-3d0f-4a43-9d52-5a6c2f8a9b11"


def answer(response: dict[str, Any], *, api_version: str = "admission.k8s.io/v1") -> bytes:
    return json.dumps({"apiVersion": api_version, "kind": "AdmissionReview", "response": response}).encode()


def encoded(operations: list[dict[str, Any]]) -> str:
    return base64.b64encode(json.dumps(operations).encode()).decode()


def test_a_status_update_review_names_the_subresource_in_both_resource_fields() -> None:
    """subResource and requestSubResource are set for subresource requests; names and user carried over."""
    subject = ReviewSubject(
        operation="UPDATE",
        kind=GroupVersionKind("apps", "v1", "Deployment"),
        group="apps",
        version="v1",
        resource="deployments",
        subresource="status",
        name="web",
        namespace="shop",
        user=UserInfo("alice", ("devs",)),
        obj={"metadata": {"name": "web"}},
        old={"metadata": {"name": "web"}},
        dry_run=False,
        options={"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"},
    )
    request = admission_review(UID, subject)["request"]
    assert (request["subResource"], request["requestSubResource"]) == ("status", "status")
    assert request["requestResource"] == {"group": "apps", "version": "v1", "resource": "deployments"}
    assert request["userInfo"] == {"username": "alice", "groups": ["devs"]}
    assert (request["uid"], request["name"], request["namespace"]) == (UID, "web", "shop")


def test_the_review_version_is_the_first_listed_one_this_server_speaks() -> None:
    """v1 and v1beta1 are understood; unknown versions are skipped; none known means none."""
    assert review_version(("v2", "v1beta1", "v1")) == "v1beta1"
    assert review_version(("v1",)) == "v1"
    assert review_version(("v2",)) is None


def test_an_allowed_answer_with_patch_and_warnings_is_read() -> None:
    """The patch is base64-decoded; warnings are kept in order, blank ones dropped."""
    operations = [{"op": "add", "path": "/metadata/labels", "value": {}}]
    response = read_response(
        answer(
            {
                "uid": UID,
                "allowed": True,
                "patchType": "JSONPatch",
                "patch": encoded(operations),
                "warnings": ["careful", " "],
            }
        ),
        uid=UID,
        version="v1",
        mutating=True,
    )
    assert response.allowed and response.patch_type == "JSONPatch"
    assert json.loads(response.patch) == operations
    assert response.warnings == ("careful",)


@pytest.mark.parametrize(
    ("body", "mutating", "reason"),
    [
        (
            answer({"uid": "other", "allowed": True}),
            False,
            'expected response.uid="' + UID + '", got "other"',
        ),
        (
            answer({"uid": UID, "allowed": True}, api_version="admission.k8s.io/v1beta1"),
            False,
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got "
            "admission.k8s.io/v1beta1, Kind=AdmissionReview",
        ),
        (
            answer({"uid": UID, "allowed": True, "patch": encoded([])}),
            True,
            "response.patch but not response.patchType",
        ),
        (
            answer({"uid": UID, "allowed": True, "patchType": "JSONPatch"}),
            True,
            "response.patchType but not response.patch",
        ),
        (
            answer({"uid": UID, "allowed": True, "patch": encoded([])}),
            False,
            "validating webhook may not return response.patch",
        ),
        (
            json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).encode(),
            False,
            "webhook response was absent",
        ),
        (b"not json", False, "couldn't get version/kind; json parse error"),
    ],
)
def test_unusable_answers_are_call_failures(body: bytes, mutating: bool, reason: str) -> None:
    """Wrong uid or version, patch without type (or reverse), validator patches, garbage: the call failed."""
    with pytest.raises(WebhookCallError) as failed:
        read_response(body, uid=UID, version="v1", mutating=mutating)
    assert reason in failed.value.reason


def test_a_v1beta1_answer_is_read_leniently() -> None:
    """v1beta1 never checked uid or patchType; a patch there is a JSONPatch."""
    body = answer(
        {"uid": "whatever", "allowed": True, "patch": encoded([])}, api_version="admission.k8s.io/v1beta1"
    )
    assert read_response(body, uid=UID, version="v1beta1", mutating=True).patch_type == "JSONPatch"


def test_a_denial_without_status_is_a_400_without_explanation() -> None:
    """No code means 400, no message or reason means `without explanation`, and no reason is invented."""
    status = denial("policy.example.com", None).status()
    assert status["code"] == 400
    assert (
        status["message"] == 'admission webhook "policy.example.com" denied the request without explanation'
    )
    assert "reason" not in status


def test_a_denial_uses_the_reason_when_there_is_no_message() -> None:
    """The reason stands in for a missing message; codes below 400 become 400."""
    refused = denial("policy.example.com", {"code": 200, "reason": "NotAllowed"})
    assert refused.code == 400
    assert refused.message == 'admission webhook "policy.example.com" denied the request: NotAllowed'
    assert refused.status()["reason"] == "NotAllowed"


def test_a_denial_keeps_the_webhooks_details() -> None:
    """Details (such as causes) the webhook gives are passed on."""
    details = {"causes": [{"field": "spec.replicas", "message": "too many"}]}
    status = denial(
        "p.example.com", {"code": 422, "reason": "Invalid", "message": "no", "details": details}
    ).status()
    assert (status["code"], status["details"]) == (422, details)


def test_a_json_patch_applies_to_a_copy() -> None:
    """The original object is left alone; the result carries the change."""
    original = {"metadata": {"name": "a"}}
    patched = apply_patch(
        original, decode_patch(b'[{"op": "add", "path": "/metadata/labels", "value": {"x": "1"}}]')
    )
    assert patched == {"metadata": {"name": "a", "labels": {"x": "1"}}}
    assert original == {"metadata": {"name": "a"}}


def test_a_patch_that_does_not_apply_is_an_internal_error() -> None:
    """Replacing a missing path fails the request with a 500 regardless of the failure policy."""
    with pytest.raises(errors.InternalError, match="Internal error occurred"):
        apply_patch({"metadata": {}}, [{"op": "replace", "path": "/spec/replicas", "value": 1}])


def test_a_patch_that_is_not_a_list_cannot_be_decoded() -> None:
    """A JSON object is no JSON patch: the call failed, and the failure policy decides."""
    with pytest.raises(WebhookCallError, match="received undecodable patch in webhook response"):
        decode_patch(b'{"op": "add"}')
