"""Webhook configurations get kube-apiserver's v1 defaults."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults

VALIDATING = GroupVersionKind("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration")
MUTATING = GroupVersionKind("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration")


def configuration(**hook: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "policy"},
        "webhooks": [
            {
                "name": "check.example.com",
                "clientConfig": {"service": {"name": "policy", "namespace": "system"}},
                "rules": [
                    {
                        "operations": ["CREATE"],
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["pods"],
                    }
                ],
                **hook,
            }
        ],
    }


def test_a_validating_webhook_gets_kubes_defaults() -> None:
    """Fail, Equivalent, 10 seconds, empty selectors, scope `*` and port 443; no sideEffects default."""
    manifest = configuration()
    apply_defaults(VALIDATING, manifest)
    (hook,) = manifest["webhooks"]
    assert hook["failurePolicy"] == "Fail"
    assert hook["matchPolicy"] == "Equivalent"
    assert hook["timeoutSeconds"] == 10
    assert (hook["namespaceSelector"], hook["objectSelector"]) == ({}, {})
    assert hook["rules"][0]["scope"] == "*"
    assert hook["clientConfig"]["service"]["port"] == 443
    assert "sideEffects" not in hook
    assert "reinvocationPolicy" not in hook


def test_a_mutating_webhook_also_gets_reinvocation_never() -> None:
    """Mutating webhooks are not reinvoked unless they ask for it."""
    manifest = configuration()
    apply_defaults(MUTATING, manifest)
    assert manifest["webhooks"][0]["reinvocationPolicy"] == "Never"


def test_values_the_user_chose_are_kept() -> None:
    """Defaults fill in only what is missing."""
    manifest = configuration(
        failurePolicy="Ignore", timeoutSeconds=3, objectSelector={"matchLabels": {"a": "b"}}
    )
    apply_defaults(MUTATING, manifest)
    (hook,) = manifest["webhooks"]
    assert (hook["failurePolicy"], hook["timeoutSeconds"]) == ("Ignore", 3)
    assert hook["objectSelector"] == {"matchLabels": {"a": "b"}}
