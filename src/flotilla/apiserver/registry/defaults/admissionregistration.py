"""Defaults of admissionregistration.k8s.io/v1 webhook configurations, as kube-apiserver sets them.

Every webhook gets `failurePolicy: Fail`, `matchPolicy: Equivalent`, `timeoutSeconds: 10` and empty
(match-everything) `namespaceSelector` and `objectSelector`; every rule gets `scope: "*"`; a service
reference gets port 443. Mutating webhooks also get `reinvocationPolicy: Never`. `sideEffects` and
`admissionReviewVersions` have no default in v1: the user must choose them.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import fields

DEFAULT_TIMEOUT_SECONDS = 10
DEFAULT_SERVICE_PORT = 443


def _set_if_absent(obj: dict[str, Any], name: str, value: Any) -> None:
    if obj.get(name) is None:
        obj[name] = value


def _default_webhook(webhook: dict[str, Any]) -> None:
    _set_if_absent(webhook, "failurePolicy", "Fail")
    _set_if_absent(webhook, "matchPolicy", "Equivalent")
    _set_if_absent(webhook, "namespaceSelector", {})
    _set_if_absent(webhook, "objectSelector", {})
    _set_if_absent(webhook, "timeoutSeconds", DEFAULT_TIMEOUT_SECONDS)
    for rule in fields.objects(webhook, "rules"):
        _set_if_absent(rule, "scope", "*")
    service = fields.mapping(webhook, "clientConfig").get("service")
    if isinstance(service, dict):
        _set_if_absent(service, "port", DEFAULT_SERVICE_PORT)


def default_validating_webhook_configuration(configuration: dict[str, Any]) -> None:
    for webhook in fields.objects(configuration, "webhooks"):
        _default_webhook(webhook)


def default_mutating_webhook_configuration(configuration: dict[str, Any]) -> None:
    for webhook in fields.objects(configuration, "webhooks"):
        _default_webhook(webhook)
        _set_if_absent(webhook, "reinvocationPolicy", "Never")
