"""Admission webhooks against a real `flotilla apiserver` process, driven by the system kubectl.

A small HTTPS webhook server runs in this test process (its own CA, a certificate for 127.0.0.1);
the API server calls it as kube-apiserver would. Each test registers its configurations scoped to
its own namespace (by the `kubernetes.io/metadata.name` label every namespace carries), so the
tests do not see each other's webhooks.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.support.kubectl import Kubectl
from tests.unit.apiserver.admission.webhook_server import WebhookServer, allow

pytestmark = pytest.mark.kubectl

DENIAL = "configmaps labelled deny=yes are not allowed here"


def deny_labelled(request: dict[str, Any]) -> dict[str, Any]:
    labels = ((request.get("object") or {}).get("metadata") or {}).get("labels") or {}
    if labels.get("deny") == "yes":
        return {"allowed": False, "status": {"message": DENIAL}}
    return {"allowed": True}


def add_label(request: dict[str, Any]) -> dict[str, Any]:
    labels = (request["object"].get("metadata") or {}).get("labels")
    operation = (
        {"op": "add", "path": "/metadata/labels/mutated-by", "value": "flotilla-test"}
        if labels
        else {"op": "add", "path": "/metadata/labels", "value": {"mutated-by": "flotilla-test"}}
    )
    return {"allowed": True, "patch": [operation]}


def warn(request: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": True, "warnings": ["this ConfigMap is watched by the test webhook"]}


def refuse(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "allowed": False,
        "status": {"code": 403, "reason": "Forbidden", "message": "guarded objects are read-only"},
    }


@pytest.fixture(scope="module")
def webhooks() -> Iterator[WebhookServer]:
    handlers = {
        "/deny": deny_labelled,
        "/label": add_label,
        "/warn": warn,
        "/record": allow,
        "/refuse": refuse,
    }
    with WebhookServer(handlers) as server:
        yield server


def configuration(
    kind: str, name: str, namespace: str, url: str, ca_bundle: str, **extra: Any
) -> dict[str, Any]:
    """A one-webhook configuration for ConfigMap creates in `namespace`."""
    webhook: dict[str, Any] = {
        "name": f"{name}.flotilla.test",
        "clientConfig": {"url": url, "caBundle": ca_bundle},
        "rules": [
            {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
        ],
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        **extra,
    }
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": f"{name}-{namespace}"},
        "webhooks": [webhook],
    }


def config_map(name: str, namespace: str, **labels: str) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": {"greeting": "hello"},
        }
    )


@pytest.fixture
def register(kubectl: Kubectl) -> Iterator[Any]:
    """Apply webhook configurations; they are deleted when the test ends."""
    created: list[tuple[str, str]] = []

    def apply(obj: dict[str, Any]) -> None:
        kubectl.apply_yaml(obj)
        created.append((obj["kind"].lower(), obj["metadata"]["name"]))

    yield apply
    for kind, name in created:
        kubectl.run("delete", kind, name, "--ignore-not-found", check=False)


def test_kubectl_prints_the_validating_webhooks_denial(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """`kubectl create` and `kubectl apply` show kube-apiserver's `denied the request` message."""
    register(
        configuration(
            "ValidatingWebhookConfiguration", "deny", namespace, webhooks.url("/deny"), webhooks.ca_bundle
        )
    )
    created = kubectl.run(
        "create", "-f", "-", input=config_map("refused", namespace, deny="yes"), check=False
    )
    assert created.returncode == 1
    assert created.stderr.strip() == (
        'Error from server: error when creating "STDIN": admission webhook "deny.flotilla.test" denied the '
        f"request: {DENIAL}"
    )
    applied = kubectl.run("apply", "-f", "-", input=config_map("refused", namespace, deny="yes"), check=False)
    assert applied.returncode == 1
    assert f'admission webhook "deny.flotilla.test" denied the request: {DENIAL}' in applied.stderr
    kubectl("create", "-f", "-", input=config_map("welcome", namespace))
    assert kubectl.run("get", "configmap", "refused", "-n", namespace, check=False).returncode == 1


def test_a_webhooks_own_status_code_and_reason_reach_kubectl(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """A 403 Forbidden refusal prints as `Error from server (Forbidden)`."""
    register(
        configuration(
            "ValidatingWebhookConfiguration", "refuse", namespace, webhooks.url("/refuse"), webhooks.ca_bundle
        )
    )
    created = kubectl.run("create", "-f", "-", input=config_map("guarded", namespace), check=False)
    assert created.stderr.strip() == (
        'Error from server (Forbidden): error when creating "STDIN": '
        'admission webhook "refuse.flotilla.test" denied the request: guarded objects are read-only'
    )


def test_a_mutating_webhook_adds_a_label_with_a_json_patch(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """The label the webhook patches in is stored and shown by `kubectl get`."""
    register(
        configuration(
            "MutatingWebhookConfiguration", "label", namespace, webhooks.url("/label"), webhooks.ca_bundle
        )
    )
    kubectl("create", "-f", "-", input=config_map("patched", namespace, team="a"))
    labels = kubectl.json("get", "configmap", "patched", "-n", namespace)["metadata"]["labels"]
    assert labels == {"team": "a", "mutated-by": "flotilla-test"}
    listed = kubectl("get", "mutatingwebhookconfiguration", f"label-{namespace}")
    assert listed.split("\n")[0].split() == ["NAME", "WEBHOOKS", "AGE"]
    assert listed.split("\n")[1].split()[:2] == [f"label-{namespace}", "1"]


def test_namespace_and_object_selectors_choose_what_the_webhook_sees(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """Only objects labelled guarded=true in namespaces labelled admission=strict are refused."""
    other = f"t-{uuid.uuid4().hex[:8]}"
    kubectl("create", "namespace", other)
    try:
        kubectl("label", "namespace", namespace, "admission=strict")
        webhook = configuration(
            "ValidatingWebhookConfiguration",
            "guard",
            namespace,
            webhooks.url("/refuse"),
            webhooks.ca_bundle,
            namespaceSelector={"matchLabels": {"admission": "strict"}},
            objectSelector={"matchLabels": {"guarded": "true"}},
        )
        register(webhook)
        refused = kubectl.run(
            "create", "-f", "-", input=config_map("a", namespace, guarded="true"), check=False
        )
        assert "guarded objects are read-only" in refused.stderr
        kubectl("create", "-f", "-", input=config_map("b", namespace))
        kubectl("create", "-f", "-", input=config_map("c", other, guarded="true"))
    finally:
        kubectl.run("delete", "namespace", other, "--wait=false", check=False)


def test_failure_policy_fail_refuses_and_ignore_admits_when_the_webhook_is_unreachable(
    kubectl: Kubectl, namespace: str, register: Any
) -> None:
    """Fail answers 500 with kube's `failed calling webhook` wording; Ignore lets the create through."""
    name = f"unreachable-{namespace}"
    register(
        configuration(
            "ValidatingWebhookConfiguration", "unreachable", namespace, "https://127.0.0.1:1/gone", ""
        )
    )
    failed = kubectl.run("create", "-f", "-", input=config_map("first", namespace), check=False)
    assert failed.stderr.strip() == (
        'Error from server (InternalError): error when creating "STDIN": Internal error occurred: '
        'failed calling webhook "unreachable.flotilla.test": failed to call webhook: '
        'Post "https://127.0.0.1:1/gone?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused'
    )
    ignore = json.dumps([{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}])
    kubectl("patch", "validatingwebhookconfiguration", name, "--type=json", "-p", ignore)
    kubectl("create", "-f", "-", input=config_map("second", namespace))


def test_kubectl_prints_the_webhooks_warnings(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """Warnings in the AdmissionReview answer become `Warning:` lines on kubectl's stderr."""
    register(
        configuration(
            "ValidatingWebhookConfiguration", "warn", namespace, webhooks.url("/warn"), webhooks.ca_bundle
        )
    )
    created = kubectl.run("create", "-f", "-", input=config_map("watched", namespace))
    assert "Warning: this ConfigMap is watched by the test webhook" in created.stderr


def test_a_server_dry_run_calls_side_effect_free_webhooks_with_dry_run_and_stores_nothing(
    kubectl: Kubectl, namespace: str, webhooks: WebhookServer, register: Any
) -> None:
    """`--dry-run=server` reaches a sideEffects=None webhook with `dryRun: true`; nothing is created."""
    register(
        configuration(
            "ValidatingWebhookConfiguration", "record", namespace, webhooks.url("/record"), webhooks.ca_bundle
        )
    )
    kubectl("create", "--dry-run=server", "-f", "-", input=config_map("imaginary", namespace))
    (request,) = [seen for seen in webhooks.received("/record") if seen.get("namespace") == namespace]
    assert request["dryRun"] is True
    assert request["object"]["metadata"]["name"] == "imaginary"
    missing = kubectl.run("get", "configmap", "imaginary", "-n", namespace, check=False)
    assert 'configmaps "imaginary" not found' in missing.stderr


def test_invalid_configurations_are_refused_with_kubes_field_errors(kubectl: Kubectl) -> None:
    """A webhook name with two labels and an http URL are both reported by the API server."""
    bad = configuration("ValidatingWebhookConfiguration", "x", "default", "http://127.0.0.1/x", "")
    bad["webhooks"][0]["name"] = "short.name"
    result = kubectl.run("create", "-f", "-", input=yaml.safe_dump(bad), check=False)
    assert result.returncode == 1
    assert (
        'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments'
        in (result.stderr)
    )
    assert "'https' is the only allowed URL scheme" in result.stderr
