"""Which webhooks a request must be sent to, decided as kube-apiserver decides it.

A webhook is called when its namespace selector, its object selector and at least one of its rules
match the request:

- a rule matches when the operation, the API group, the version, the resource (with `*`, `*/*`,
  `pods/*`, `*/status` forms) and the scope (`Cluster`, `Namespaced`, `*`) all match. A Namespace
  object counts as cluster-scoped, even though its requests carry its own name as namespace;
- the namespace selector is checked against the labels of the request's namespace; a Namespace's
  own create or update is checked against the labels it is being written with; other cluster-scoped
  objects always match;
- the object selector matches when the new object or the old one carries matching labels.

`matchPolicy: Equivalent` is treated as `Exact`: every resource is served at exactly one version
here, so there is no other version of it a rule could name instead.

A selector that cannot be parsed, or a namespace that does not exist, is an error only for a
webhook whose rules match the request (kube's order), so a broken webhook cannot fail requests it
was never meant to see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.selectors import LabelSelector
from flotilla.apiserver import errors
from flotilla.apiserver.admission.registrations import Rule, Webhook

NamespaceLabels = Callable[[str], Mapping[str, str] | None]
"""The labels of a namespace by name, or None when it does not exist."""


@dataclass(frozen=True, slots=True)
class MatchRequest:
    """The facts of a request that rules and selectors look at."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    namespace: str
    """The request's namespace; for a Namespace object's own requests (except create), its name."""

    @property
    def is_namespace(self) -> bool:
        return self.group == "" and self.version == "v1" and self.resource == "namespaces"


def _listed(values: frozenset[str], requested: str) -> bool:
    return "*" in values or requested in values


def _scope_matches(scope: str, request: MatchRequest) -> bool:
    if scope == "*":
        return True
    if scope == "Namespaced":
        return not request.is_namespace and request.namespace != ""
    if scope == "Cluster":
        return request.is_namespace or request.namespace == ""
    return False


def _resource_matches(rule: Rule, request: MatchRequest) -> bool:
    return any(
        resource in ("*", request.resource) and subresource in ("*", request.subresource)
        for resource, subresource in rule.resources
    )


def rule_matches(rule: Rule, request: MatchRequest) -> bool:
    return (
        _scope_matches(rule.scope, request)
        and _listed(rule.operations, request.operation)
        and _listed(rule.api_groups, request.group)
        and _listed(rule.api_versions, request.version)
        and _resource_matches(rule, request)
    )


def rules_match(webhook: Webhook, request: MatchRequest) -> bool:
    return any(rule_matches(rule, request) for rule in webhook.rules)


def labels_of(obj: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The labels of an object; None when there is no object at all."""
    if obj is None:
        return None
    meta = obj.get("metadata")
    labels = meta.get("labels") if isinstance(meta, Mapping) else None
    return dict(labels) if isinstance(labels, Mapping) else {}


def object_selector_matches(
    selector: LabelSelector, obj: Mapping[str, Any] | None, old: Mapping[str, Any] | None
) -> bool:
    if selector.empty:
        return True
    return any(labels is not None and selector.matches(labels) for labels in (labels_of(obj), labels_of(old)))


def namespace_selector_matches(
    selector: LabelSelector,
    request: MatchRequest,
    obj: Mapping[str, Any] | None,
    namespace_labels: NamespaceLabels,
) -> bool | errors.APIError:
    """Whether the namespace selector admits the request, or the error a matching webhook raises."""
    if request.namespace == "" and not request.is_namespace:
        return True
    if selector.empty:
        return True
    if request.is_namespace and not request.subresource and request.operation in ("CREATE", "UPDATE"):
        # The namespace being written is not stored yet (or not in this form): use its new labels.
        return selector.matches(labels_of(obj) or {})
    labels = namespace_labels(request.namespace)
    if labels is None:
        name = request.namespace
        return errors.NotFound(f'namespaces "{name}" not found', name=name, kind="namespaces")
    return selector.matches(labels)


def should_call(
    webhook: Webhook,
    request: MatchRequest,
    obj: Mapping[str, Any] | None,
    old: Mapping[str, Any] | None,
    namespace_labels: NamespaceLabels,
) -> bool:
    """Whether `webhook` must see this request; raises the error of a matching but broken webhook."""
    if webhook.selector_error:
        if rules_match(webhook, request):
            raise errors.InternalError(
                f"Internal error occurred: {webhook.selector_error}",
                causes=[{"message": webhook.selector_error}],
            )
        return False
    in_namespace = namespace_selector_matches(webhook.namespace_selector, request, obj, namespace_labels)
    if in_namespace is False:
        return False
    if not object_selector_matches(webhook.object_selector, obj, old):
        return False
    if not rules_match(webhook, request):
        return False
    if isinstance(in_namespace, errors.APIError):
        raise in_namespace
    return True
