"""AdmissionReview: what a webhook is sent, what it answers, and what its answer means (no I/O).

`admission_review` builds the `admission.k8s.io/v1` (or `v1beta1`, for webhooks that accept only
that) request body. `read_response` checks the answer as kube-apiserver does — same review
version, the request's uid, patches only from mutating webhooks and always with a `patchType` —
and raises `WebhookCallError` when it is unusable, which the webhook's `failurePolicy` then decides
on. `denial` turns a refusal into the error the client sees, worded as kube-apiserver 1.32 words it
(`admission webhook "<name>" denied the request: <message>`, with the webhook's status code, 400
when it gives none). `apply_patch` applies a `JSONPatch` answer.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

import orjson

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.registry.patch.errors import PatchError
from flotilla.apiserver.registry.patch.json_patch import apply_operations, decode_operations
from flotilla.apiserver.users import UserInfo
from flotilla.client.webhookcalls import WebhookCallError

ADMISSION_GROUP = "admission.k8s.io"
REVIEW_VERSIONS = ("v1", "v1beta1")
"""The AdmissionReview versions this server can send, in order of preference."""


class WebhookStatusError(errors.APIError):
    """A refusal whose `Status` (code, reason, details) the webhook chose; rendered as it gave it."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(str(status.get("message", "")))
        self.code = int(status["code"])
        self.reason = str(status.get("reason") or "")
        self._status = status

    def status(self) -> dict[str, Any]:
        return dict(self._status)


def internal_error(message: str) -> errors.InternalError:
    """kube's `NewInternalError`: the message prefixed, and repeated as the only cause."""
    return errors.InternalError(f"Internal error occurred: {message}", causes=[{"message": message}])


@dataclass(frozen=True, slots=True)
class ReviewSubject:
    """What a webhook is told about the request it reviews."""

    operation: str
    kind: GroupVersionKind
    group: str
    version: str
    resource: str
    subresource: str
    name: str
    namespace: str
    user: UserInfo
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    dry_run: bool
    options: dict[str, Any] = field(default_factory=dict)


def review_version(accepted: tuple[str, ...]) -> str | None:
    """The first AdmissionReview version the webhook lists that this server can send."""
    return next((version for version in accepted if version in REVIEW_VERSIONS), None)


def admission_review(uid: str, subject: ReviewSubject, version: str = "v1") -> dict[str, Any]:
    kind = {"group": subject.kind.group, "version": subject.kind.version, "kind": subject.kind.kind}
    resource = {"group": subject.group, "version": subject.version, "resource": subject.resource}
    request: dict[str, Any] = {"uid": uid, "kind": kind, "resource": resource}
    if subject.subresource:
        request["subResource"] = subject.subresource
    request["requestKind"] = dict(kind)
    request["requestResource"] = dict(resource)
    if subject.subresource:
        request["requestSubResource"] = subject.subresource
    if subject.name:
        request["name"] = subject.name
    if subject.namespace:
        request["namespace"] = subject.namespace
    request.update(
        operation=subject.operation,
        userInfo=subject.user.to_json(),
        object=subject.obj,
        oldObject=subject.old,
        dryRun=subject.dry_run,
        options=subject.options or None,
    )
    return {"kind": "AdmissionReview", "apiVersion": f"{ADMISSION_GROUP}/{version}", "request": request}


@dataclass(frozen=True, slots=True)
class AdmissionResponse:
    allowed: bool
    result: dict[str, Any] | None
    patch: bytes
    patch_type: str
    warnings: tuple[str, ...]


def _invalid(detail: str) -> WebhookCallError:
    return WebhookCallError(f"received invalid webhook response: {detail}")


def _decode(raw: bytes) -> dict[str, Any]:
    """The answer as JSON; what the Go client's decoder rejects fails the call."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise WebhookCallError(
            f"failed to call webhook: couldn't get version/kind; json parse error: {exc}"
        ) from None
    if not isinstance(body, dict):
        raise WebhookCallError(
            "failed to call webhook: couldn't get version/kind; json parse error: "
            "the response is not a JSON object"
        )
    if not body.get("kind"):
        text = raw.decode(errors="replace")
        raise WebhookCallError(f"failed to call webhook: Object 'Kind' is missing in '{text}'")
    return body


def _gvk_text(body: dict[str, Any]) -> str:
    """A review's group, version and kind as Go prints a GroupVersionKind."""
    api_version = str(body.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={body.get('kind')}"


def _patch_bytes(response: dict[str, Any]) -> bytes:
    patch = response.get("patch")
    if patch in (None, ""):
        return b""
    if not isinstance(patch, str):
        raise WebhookCallError("failed to call webhook: response.patch must be a base64 string")
    try:
        return base64.b64decode(patch, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookCallError("failed to call webhook: illegal base64 data in response.patch") from None


def read_response(raw: bytes, *, uid: str, version: str, mutating: bool) -> AdmissionResponse:
    """The webhook's answer, checked as kube's `VerifyAdmissionResponse` checks it."""
    body = _decode(raw)
    response = body.get("response")
    if not isinstance(response, dict):
        raise _invalid("webhook response was absent")
    if version == "v1":
        if response.get("uid") != uid:
            raise _invalid(f'expected response.uid="{uid}", got "{response.get("uid", "")}"')
        if body.get("apiVersion") != f"{ADMISSION_GROUP}/v1" or body.get("kind") != "AdmissionReview":
            expected = f"{ADMISSION_GROUP}/v1, Kind=AdmissionReview"
            raise _invalid(f"expected webhook response of {expected}, got {_gvk_text(body)}")
    patch = _patch_bytes(response)
    patch_type = response.get("patchType")
    if mutating and version == "v1":
        if patch and patch_type is None:
            raise _invalid("webhook returned response.patch but not response.patchType")
        if not patch and patch_type is not None:
            raise _invalid("webhook returned response.patchType but not response.patch")
        if patch_type is not None and not patch_type:
            raise _invalid(f'webhook returned invalid response.patchType of "{patch_type}"')
    elif mutating:
        # v1beta1 never checked patchType; the only patch type there is is JSONPatch.
        patch_type = "JSONPatch" if patch else None
    else:
        if patch:
            raise _invalid("validating webhook may not return response.patch")
        if patch_type is not None:
            raise _invalid("validating webhook may not return response.patchType")
    allowed = response.get("allowed", False)
    result = response.get("status")
    warnings = response.get("warnings") or []
    if not isinstance(allowed, bool):
        raise _invalid("response.allowed must be a boolean")
    if result is not None and not isinstance(result, dict):
        raise _invalid("response.status must be a Status object")
    if not isinstance(warnings, list) or not all(isinstance(text, str) for text in warnings):
        raise _invalid("response.warnings must be a list of strings")
    return AdmissionResponse(
        allowed=allowed,
        result=result,
        patch=patch,
        patch_type=str(patch_type or ""),
        warnings=tuple(text for text in warnings if text.strip()),
    )


def denial(webhook_name: str, result: dict[str, Any] | None) -> WebhookStatusError:
    """The error a refusal becomes: the webhook's Status, its message prefixed as kube prefixes it."""
    given = result or {}
    code = given.get("code")
    if not isinstance(code, int) or isinstance(code, bool) or code < 400:
        code = 400
    message, reason = str(given.get("message") or ""), str(given.get("reason") or "")
    denied_by = f'admission webhook "{webhook_name}" denied the request'
    if message:
        text = f"{denied_by}: {message}"
    elif reason:
        text = f"{denied_by}: {reason}"
    else:
        text = f"{denied_by} without explanation"
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": text,
    }
    if reason:
        status["reason"] = reason
    if isinstance(given.get("details"), dict):
        status["details"] = given["details"]
    status["code"] = code
    return WebhookStatusError(status)


def decode_patch(patch: bytes) -> list[Any]:
    """The operations of a JSONPatch answer; undecodable ones fail the call."""
    try:
        operations = orjson.loads(patch)
    except orjson.JSONDecodeError as exc:
        raise WebhookCallError(f"received undecodable patch in webhook response: {exc}") from None
    if not isinstance(operations, list):
        raise WebhookCallError(
            "received undecodable patch in webhook response: a JSON patch must be a list of operations"
        )
    return operations


def apply_patch(obj: dict[str, Any], operations: list[Any]) -> dict[str, Any]:
    """`obj` with a webhook's JSON patch applied (a new dict); a patch that does not apply is a 500.

    Within the same bounds as a client's JSON patch (kube's copy limit is process-wide too): a
    webhook that answers with copies doubling a value cannot freeze the server either."""
    try:
        patched = apply_operations(orjson.loads(orjson.dumps(obj)), decode_operations(operations))
    except PatchError as exc:
        raise internal_error(exc.message) from None
    if not isinstance(patched, dict) or not isinstance(patched.get("metadata"), dict):
        raise internal_error("the patched object is not an object with metadata")
    return patched
