"""Webhook configurations are validated (after defaulting) with kube-apiserver's rules and wording."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import create_errors, stored, update_errors

VALIDATING = GroupVersionKind("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration")
MUTATING = GroupVersionKind("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration")


def hook(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "check.example.com",
        "clientConfig": {"url": "https://hooks.example.com/check"},
        "rules": [
            {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    body.update(fields)
    return body


def configuration(*hooks: dict[str, Any], kind: str = "ValidatingWebhookConfiguration") -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "policy"},
        "webhooks": list(hooks) or [hook()],
    }


def errors_of(*hooks: dict[str, Any]) -> list[str]:
    return create_errors(VALIDATING, configuration(*hooks))


def test_a_minimal_configuration_is_valid() -> None:
    """A named webhook with a URL, a rule, sideEffects and review versions is all kube asks for."""
    assert errors_of(hook()) == []
    assert create_errors(MUTATING, configuration(hook(), kind="MutatingWebhookConfiguration")) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("", "webhooks[0].name: Required value"),
        (
            "check.example",
            'webhooks[0].name: Invalid value: "check.example": should be a domain with at least three '
            "segments separated by dots",
        ),
        (
            "Check.Example.com",
            'webhooks[0].name: Invalid value: "Check.Example.com": a lowercase RFC 1123 subdomain',
        ),
    ],
)
def test_webhook_names_must_be_fully_qualified(name: str, expected: str) -> None:
    """Names are DNS subdomains of at least three labels."""
    (error,) = errors_of(hook(name=name))
    assert error.startswith(expected)


def test_webhook_names_are_unique_within_a_configuration() -> None:
    """A second webhook with the same name is a Duplicate value."""
    assert errors_of(hook(), hook()) == ['webhooks[1].name: Duplicate value: "check.example.com"']


def test_rules_need_known_operations_and_non_overlapping_resources() -> None:
    """Unknown operations are NotSupported; `*/*` with others and `pods/*` with `pods/status` are Invalid."""
    rules = [
        {
            "operations": ["CREATE", "PATCH"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["*/*", "pods"],
        },
        {
            "operations": ["*"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods/*", "pods/status"],
        },
    ]
    assert errors_of(hook(rules=rules)) == [
        'webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", '
        '"CREATE", "DELETE", "UPDATE"',
        'webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: '
        "if '*/*' is present, must not specify other resources",
        "webhooks[0].rules[1].resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not "
        "specify pods/status",
    ]


def test_rules_need_groups_versions_resources_and_a_known_scope() -> None:
    """Empty lists are Required; a wildcard must stand alone; the scope is one of three."""
    rules = [
        {
            "operations": ["*"],
            "apiGroups": ["*", "apps"],
            "apiVersions": [],
            "resources": [],
            "scope": "Galaxy",
        }
    ]
    assert errors_of(hook(rules=rules)) == [
        'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: '
        "if '*' is present, must not specify other API groups",
        "webhooks[0].rules[0].apiVersions: Required value",
        "webhooks[0].rules[0].resources: Required value",
        'webhooks[0].rules[0].scope: Unsupported value: "Galaxy": '
        'supported values: "*", "Cluster", "Namespaced"',
    ]


def test_policies_must_be_known_values() -> None:
    """failurePolicy, matchPolicy and (for mutating webhooks) reinvocationPolicy are enums."""
    assert errors_of(hook(failurePolicy="Maybe", matchPolicy="Fuzzy")) == [
        'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        'webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
    ]
    mutating = configuration(hook(reinvocationPolicy="Always"), kind="MutatingWebhookConfiguration")
    assert create_errors(MUTATING, mutating) == [
        'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'
    ]


def test_side_effects_are_required_and_must_be_none_on_create() -> None:
    """v1 has no default for sideEffects, and new webhooks may not declare side effects."""
    without = hook()
    del without["sideEffects"]
    assert errors_of(without) == [
        "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"
    ]
    assert errors_of(hook(sideEffects="Some")) == [
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'
    ]


def test_older_side_effect_classes_stay_allowed_on_update_of_a_configuration_using_them() -> None:
    """A configuration stored with `Unknown` can still be updated without changing it."""
    old = stored(VALIDATING, configuration(hook(sideEffects="Unknown")))
    new = copy.deepcopy(old)
    new["webhooks"][0]["timeoutSeconds"] = 5
    assert update_errors(VALIDATING, new, old) == []
    fresh = stored(VALIDATING, configuration(hook()))
    changed = copy.deepcopy(fresh)
    changed["webhooks"][0]["sideEffects"] = "Unknown"
    assert update_errors(VALIDATING, changed, fresh) == [
        'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"'
    ]


def test_the_timeout_is_between_1_and_30_seconds() -> None:
    """A timeout of 31 seconds is Invalid with kube's message."""
    assert errors_of(hook(timeoutSeconds=31)) == [
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"
    ]


def test_selectors_are_validated_as_label_selectors() -> None:
    """A bad operator in an object selector is reported under its path."""
    (error,) = errors_of(hook(objectSelector={"matchExpressions": [{"key": "a", "operator": "Near"}]}))
    assert (
        error == "webhooks[0].objectSelector.matchExpressions[0].operator: "
        'Invalid value: "Near": not a valid selector operator'
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://hooks.example.com",
            "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only "
            "allowed URL scheme; desired format: https://host[/path]",
        ),
        (
            "https:///check",
            'webhooks[0].clientConfig.url: Invalid value: "": host must be provided; desired format: '
            "https://host[/path]",
        ),
        (
            "https://user:pw@hooks.example.com",
            'webhooks[0].clientConfig.url: Invalid value: "user:pw": user '
            "information is not permitted in the URL",
        ),
        (
            "https://hooks.example.com/#part",
            'webhooks[0].clientConfig.url: Invalid value: "part": fragments are not permitted in the URL',
        ),
        (
            "https://hooks.example.com/?a=b",
            'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are '
            "not permitted in the URL",
        ),
    ],
)
def test_webhook_urls_are_https_hosts_without_extras(url: str, expected: str) -> None:
    """https only, a host, and no user information, fragment or query."""
    assert errors_of(hook(clientConfig={"url": url})) == [expected]


def test_client_config_names_exactly_one_target() -> None:
    """Neither or both of url and service is Required with kube's detail."""
    both = {"url": "https://a.example.com", "service": {"name": "a", "namespace": "b"}}
    expected = ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    assert errors_of(hook(clientConfig={})) == expected
    assert errors_of(hook(clientConfig=both)) == expected


def test_service_references_need_a_name_a_namespace_and_a_clean_path() -> None:
    """Missing name and namespace are Required; path segments must be DNS subdomains."""
    service = {"path": "/a//b", "port": 70000}
    assert errors_of(hook(clientConfig={"service": service})) == [
        "webhooks[0].clientConfig.service.name: Required value: service name is required",
        "webhooks[0].clientConfig.service.namespace: Required value: service namespace is required",
        "webhooks[0].clientConfig.service.port: Invalid value: 70000: "
        "port is not valid: must be between 1 and 65535, inclusive",
        'webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
    ]


def test_review_versions_must_include_one_this_server_speaks() -> None:
    """Empty is Required; only unknown versions is Invalid; repeats are Invalid."""
    assert errors_of(hook(admissionReviewVersions=[])) == [
        "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"
    ]
    assert errors_of(hook(admissionReviewVersions=["v2", "v2"])) == [
        'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: '
        "must include at least one of v1, v1beta1",
    ]


def test_match_conditions_are_refused_because_cel_is_not_evaluated_here() -> None:
    """A CEL match condition is Forbidden with a message saying why."""
    conditions = [{"name": "not-leases", "expression": "request.resource.resource != 'leases'"}]
    (error,) = errors_of(hook(matchConditions=conditions))
    assert error.startswith("webhooks[0].matchConditions: Forbidden: CEL match conditions are not supported")


def test_configuration_names_are_dns_subdomains() -> None:
    """The object's own name follows the usual cluster-scoped metadata rules."""
    manifest = configuration(hook())
    manifest["metadata"]["name"] = "Policy"
    (error,) = create_errors(VALIDATING, manifest)
    assert error.startswith('metadata.name: Invalid value: "Policy"')
