"""Configuration objects compile into ordered webhooks with kube's defaults and resolved URLs."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.admission.registrations import compile_configurations, compile_webhook


def configuration(name: str, *hook_names: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "webhooks": [
            {"name": hook_name, "clientConfig": {"url": "https://hook"}} for hook_name in hook_names
        ],
    }


def test_webhooks_are_ordered_by_configuration_name_then_list_position() -> None:
    """kube sorts configurations by name and keeps each configuration's webhook order."""
    webhooks = compile_configurations(
        [configuration("zeta", "z1.example.com"), configuration("alpha", "a2.example.com", "a1.example.com")],
        mutating=True,
    )
    assert [(w.configuration, w.position, w.name) for w in webhooks] == [
        ("alpha", 0, "a2.example.com"),
        ("alpha", 1, "a1.example.com"),
        ("zeta", 0, "z1.example.com"),
    ]


def test_missing_fields_behave_as_kubes_defaults() -> None:
    """No failure policy, timeout or selectors mean Fail, 10 seconds and match-everything."""
    webhook = compile_webhook(
        "c", 0, {"name": "a.b.c", "clientConfig": {"url": "https://hook"}}, mutating=False
    )
    assert (webhook.failure_policy, webhook.timeout_seconds) == ("Fail", 10)
    assert webhook.namespace_selector.empty and webhook.object_selector.empty
    assert not webhook.reinvoke_if_needed
    assert webhook.side_effects == ""


def test_a_service_reference_becomes_a_cluster_dns_url() -> None:
    """`clientConfig.service` resolves to https://<name>.<namespace>.svc:<port><path>, port 443 by default."""
    hook = {
        "name": "a.b.c",
        "clientConfig": {"service": {"name": "policy", "namespace": "system", "path": "/check"}},
    }
    assert compile_webhook("c", 0, hook, mutating=False).url == "https://policy.system.svc:443/check"
    hook["clientConfig"]["service"]["port"] = 8443  # type: ignore[index]
    assert compile_webhook("c", 0, hook, mutating=False).url == "https://policy.system.svc:8443/check"


def test_reinvocation_applies_only_to_mutating_webhooks_asking_for_it() -> None:
    """IfNeeded marks a mutating webhook for reinvocation; a validating one never is."""
    hook = {"name": "a.b.c", "reinvocationPolicy": "IfNeeded", "clientConfig": {"url": "https://hook"}}
    assert compile_webhook("c", 0, hook, mutating=True).reinvoke_if_needed
    assert not compile_webhook("c", 0, hook, mutating=False).reinvoke_if_needed


def test_rules_keep_resources_and_subresources_apart() -> None:
    """`pods/status` compiles to the pair (pods, status); scope defaults to `*`."""
    hook = {
        "name": "a.b.c",
        "clientConfig": {"url": "https://hook"},
        "rules": [
            {
                "operations": ["UPDATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods/status", "pods"],
            }
        ],
    }
    (rule,) = compile_webhook("c", 0, hook, mutating=False).rules
    assert rule.resources == (("pods", "status"), ("pods", ""))
    assert rule.scope == "*"
