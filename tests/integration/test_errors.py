"""Bad input gets the right Kubernetes Status: code, reason, field causes, never a 500."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.support.processes import ServerProcess


@pytest.fixture(scope="module")
def tls(server: ServerProcess) -> ssl.SSLContext:
    pki = server.data_dir / "pki"
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return context


def send(
    server: ServerProcess,
    tls: ssl.SSLContext,
    method: str,
    path: str,
    body: bytes | None = None,
    content_type: str = "application/json",
) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"{server.url}{path}", data=body, method=method, headers={"Content-Type": content_type}
    )
    try:
        with urllib.request.urlopen(request, context=tls, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def assert_status(body: dict[str, Any], code: int, reason: str) -> None:
    assert body["kind"] == "Status", body
    assert body["code"] == code and body["reason"] == reason, body
    assert body["status"] == "Failure"


CM = "/api/v1/namespaces/default/configmaps"


def test_malformed_json_is_400(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A body that is not JSON is a 400 BadRequest saying so."""
    code, body = send(server, tls, "POST", CM, b'{"metadata": {"name": ')
    assert code == 400
    assert_status(body, 400, "BadRequest")
    assert "not valid JSON" in body["message"]


def test_malformed_yaml_and_protobuf_are_400(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """Unreadable YAML and protobuf bodies are 400 too."""
    code, body = send(server, tls, "POST", CM, b"metadata: [unclosed", "application/yaml")
    assert code == 400 and "not valid YAML" in body["message"]
    code, body = send(server, tls, "POST", CM, b"k8s\x00\x0a\xff", "application/vnd.kubernetes.protobuf")
    assert code == 400 and "protobuf" in body["message"]


def test_unknown_content_type_is_415(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A body in a media type the server does not read is 415 listing the accepted ones."""
    code, body = send(server, tls, "POST", CM, b"name=x", "application/x-www-form-urlencoded")
    assert code == 415
    assert_status(body, 415, "UnsupportedMediaType")
    assert "application/json" in body["message"]


def test_strategic_merge_patch_on_a_custom_resource_is_415(
    server: ServerProcess, tls: ssl.SSLContext
) -> None:
    """Custom resources accept merge and JSON patches, not strategic merge patches."""
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.errors.example.com"},
        "spec": {
            "group": "errors.example.com",
            "scope": "Namespaced",
            "names": {"plural": "things", "singular": "thing", "kind": "Thing"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                    },
                }
            ],
        },
    }
    assert (
        send(
            server,
            tls,
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            json.dumps(crd).encode(),
        )[0]
        == 201
    )
    path = "/apis/errors.example.com/v1/namespaces/default/things"
    for _ in range(50):
        code, _ = send(server, tls, "POST", path, json.dumps({"metadata": {"name": "t"}}).encode())
        if code == 201:
            break
    assert code == 201
    code, body = send(
        server, tls, "PATCH", f"{path}/t", b'{"spec": {"a": 1}}', "application/strategic-merge-patch+json"
    )
    assert code == 415 and "application/merge-patch+json" in body["message"]


def test_body_over_3_mib_is_413(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A request body over 3 MiB is 413 RequestEntityTooLarge."""
    huge = json.dumps({"metadata": {"name": "huge"}, "data": {"k": "x" * (3 * 1024 * 1024 + 10)}}).encode()
    code, body = send(server, tls, "POST", CM, huge)
    assert code == 413
    assert_status(body, 413, "RequestEntityTooLarge")


def test_invalid_object_is_422_with_causes(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A bad name is 422 Invalid with a FieldValueInvalid cause on metadata.name."""
    code, body = send(server, tls, "POST", CM, json.dumps({"metadata": {"name": "Not_Valid"}}).encode())
    assert code == 422
    assert_status(body, 422, "Invalid")
    assert body["details"]["kind"] == "ConfigMap"
    assert {"reason": "FieldValueInvalid", "field": "metadata.name"}.items() <= body["details"]["causes"][
        0
    ].items()


def test_missing_name_is_422_required(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """Neither name nor generateName is 422 with a Required cause."""
    code, body = send(server, tls, "POST", CM, json.dumps({"metadata": {}}).encode())
    assert code == 422
    assert body["details"]["causes"][0]["reason"] == "FieldValueRequired"


def test_duplicate_create_is_409_already_exists(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """Creating an existing name is 409 AlreadyExists naming the resource."""
    payload = json.dumps({"metadata": {"name": "twice"}}).encode()
    assert send(server, tls, "POST", CM, payload)[0] == 201
    code, body = send(server, tls, "POST", CM, payload)
    assert code == 409
    assert_status(body, 409, "AlreadyExists")
    assert body["message"] == 'configmaps "twice" already exists'


def test_wrong_kind_and_namespace_mismatch_are_400(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A body of another kind, or for another namespace, is 400 BadRequest."""
    code, body = send(
        server, tls, "POST", CM, json.dumps({"kind": "Secret", "metadata": {"name": "k"}}).encode()
    )
    assert code == 400 and "does not match the expected kind" in body["message"]
    other = json.dumps({"metadata": {"name": "k", "namespace": "kube-system"}}).encode()
    code, body = send(server, tls, "POST", CM, other)
    assert code == 400 and "does not match the namespace" in body["message"]


def test_missing_namespace_is_404(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """Creating in a namespace that does not exist is 404 naming the namespace."""
    code, body = send(
        server,
        tls,
        "POST",
        "/api/v1/namespaces/nowhere/configmaps",
        json.dumps({"metadata": {"name": "x"}}).encode(),
    )
    assert code == 404
    assert body["message"] == 'namespaces "nowhere" not found'


def test_unknown_paths_and_methods(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """Unknown resources are 404; a verb the resource lacks is 405."""
    code, body = send(server, tls, "GET", "/apis/nope.example.com/v1/things")
    assert code == 404 and body["reason"] == "NotFound"
    code, body = send(server, tls, "POST", "/api/v1/namespaces/default/configmaps/x")
    assert code == 405 and body["reason"] == "MethodNotAllowed"


def test_bad_selector_and_resource_version_parameters_are_400(
    server: ServerProcess, tls: ssl.SSLContext
) -> None:
    """An unparsable label selector or resourceVersion is 400, not 500."""
    code, body = send(server, tls, "GET", f"{CM}?labelSelector=a%20in%20(b")
    assert code == 400 and body["reason"] == "BadRequest"
    code, body = send(server, tls, "GET", f"{CM}?resourceVersion=abc")
    assert code == 400
    code, body = send(server, tls, "GET", f"{CM}?resourceVersionMatch=Exact")
    assert code == 422 and body["reason"] == "Invalid"


def test_bad_json_patch_is_rejected_cleanly(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A JSON patch that is not a list, or cannot apply, fails with a 4xx Status."""
    assert send(server, tls, "POST", CM, json.dumps({"metadata": {"name": "jp"}}).encode())[0] == 201
    code, _ = send(server, tls, "PATCH", f"{CM}/jp", b'{"op": "add"}', "application/json-patch+json")
    assert code == 400
    code, body = send(
        server,
        tls,
        "PATCH",
        f"{CM}/jp",
        b'[{"op": "remove", "path": "/data/none"}]',
        "application/json-patch+json",
    )
    assert code == 422 and body["kind"] == "Status"


def test_too_new_resource_version_times_out_with_504(server: ServerProcess, tls: ssl.SSLContext) -> None:
    """A read at a resourceVersion the server has not reached answers 504 after a short wait."""
    code, body = send(server, tls, "GET", f"{CM}?resourceVersion=999999999")
    assert code == 504
    assert body["reason"] == "Timeout" and "Too large resource version" in body["message"]
