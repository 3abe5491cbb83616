"""Webhook registrations: the webhooks of the stored configuration objects, compiled for matching.

A `MutatingWebhookConfiguration` or `ValidatingWebhookConfiguration` is a list of webhooks, each with
rules (operations, API groups, versions and resources), selectors, a failure policy and where to
call it. `compile_configurations` turns the stored objects into `Webhook` records once per change of
the configurations, so each admission request only evaluates prepared rules and selectors.

Order is kube-apiserver's: configurations sorted by name, then webhooks in the order they are
listed. Values the defaulting step normally fills in are assumed here too, so an object written
before defaults existed behaves as kube would treat it.

A `clientConfig.service` reference is resolved to `https://<name>.<namespace>.svc:<port><path>`:
the hub has no service proxy, so calling it needs that name to resolve through DNS on the API
server's host. `clientConfig.url` is used as given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flotilla.api.selectors import EVERYTHING, LabelSelector, SelectorError, label_selector_from_object
from flotilla.apiserver.registry.defaults.admissionregistration import (
    DEFAULT_SERVICE_PORT,
    DEFAULT_TIMEOUT_SECONDS,
)
from flotilla.apiserver.registry.validation import fields


@dataclass(frozen=True, slots=True)
class Rule:
    """One `rules[]` entry; `resources` holds (resource, subresource) pairs, `""` for no subresource."""

    operations: frozenset[str]
    api_groups: frozenset[str]
    api_versions: frozenset[str]
    resources: tuple[tuple[str, str], ...]
    scope: str = "*"


@dataclass(frozen=True, slots=True)
class Webhook:
    """One webhook of one configuration, ready to match requests and be called."""

    name: str
    configuration: str
    position: int
    mutating: bool
    rules: tuple[Rule, ...]
    namespace_selector: LabelSelector
    object_selector: LabelSelector
    selector_error: str
    """Why a selector could not be parsed; kube answers 500 for requests the rules match."""
    failure_policy: str
    side_effects: str
    """`""` when the configuration names none (only possible for objects stored unvalidated)."""
    timeout_seconds: int
    url: str
    ca_bundle: str
    """Base64 PEM of the CAs that sign the webhook's serving certificate; empty: system roots."""
    review_versions: tuple[str, ...]
    reinvoke_if_needed: bool
    has_match_conditions: bool

    @property
    def identity(self) -> tuple[str, int]:
        """Which webhook this is across calls (reinvocation bookkeeping)."""
        return (self.configuration, self.position)

    @property
    def ignores_failures(self) -> bool:
        return self.failure_policy == "Ignore"


def split_resource(entry: str) -> tuple[str, str]:
    """`pods/status` → (`pods`, `status`); `pods` → (`pods`, `""`)."""
    resource, _, subresource = entry.partition("/")
    return resource, subresource


def _strings(obj: dict[str, Any], name: str) -> list[str]:
    return [item for item in fields.items(obj, name) if isinstance(item, str)]


def compile_rule(rule: dict[str, Any]) -> Rule:
    return Rule(
        operations=frozenset(_strings(rule, "operations")),
        api_groups=frozenset(_strings(rule, "apiGroups")),
        api_versions=frozenset(_strings(rule, "apiVersions")),
        resources=tuple(split_resource(entry) for entry in _strings(rule, "resources")),
        scope=fields.text(rule, "scope") or "*",
    )


def service_url(service: dict[str, Any]) -> str:
    """The URL of a `clientConfig.service` reference (needs cluster DNS for `<name>.<namespace>.svc`)."""
    port = fields.integer(service, "port") or DEFAULT_SERVICE_PORT
    path = fields.text(service, "path")
    name, namespace = fields.text(service, "name"), fields.text(service, "namespace")
    return f"https://{name}.{namespace}.svc:{port}{path}"


def _selector(selector: Any, path: str) -> LabelSelector:
    # A missing selector is defaulted to `{}` (everything) before it is stored.
    return EVERYTHING if selector is None else label_selector_from_object(selector, path)


def compile_webhook(configuration: str, position: int, hook: dict[str, Any], *, mutating: bool) -> Webhook:
    client = fields.mapping(hook, "clientConfig")
    service = client.get("service")
    url = service_url(service) if isinstance(service, dict) else fields.text(client, "url")
    selector_error = ""
    namespace_selector = object_selector = EVERYTHING
    try:
        namespace_selector = _selector(hook.get("namespaceSelector"), "namespaceSelector")
        object_selector = _selector(hook.get("objectSelector"), "objectSelector")
    except SelectorError as exc:
        selector_error = str(exc)
    timeout = fields.integer(hook, "timeoutSeconds")
    return Webhook(
        name=fields.text(hook, "name"),
        configuration=configuration,
        position=position,
        mutating=mutating,
        rules=tuple(compile_rule(rule) for rule in fields.objects(hook, "rules")),
        namespace_selector=namespace_selector,
        object_selector=object_selector,
        selector_error=selector_error,
        failure_policy=fields.text(hook, "failurePolicy") or "Fail",
        side_effects=fields.text(hook, "sideEffects"),
        timeout_seconds=DEFAULT_TIMEOUT_SECONDS if timeout is None else timeout,
        url=url,
        ca_bundle=fields.text(client, "caBundle"),
        review_versions=tuple(_strings(hook, "admissionReviewVersions")),
        reinvoke_if_needed=mutating and fields.text(hook, "reinvocationPolicy") == "IfNeeded",
        has_match_conditions=bool(fields.items(hook, "matchConditions")),
    )


def compile_configurations(configurations: Iterable[dict[str, Any]], *, mutating: bool) -> list[Webhook]:
    """Every webhook of `configurations`, ordered by configuration name, then list position."""
    named = sorted(
        ((fields.text(fields.mapping(obj, "metadata"), "name"), obj) for obj in configurations),
        key=lambda pair: pair[0],
    )
    return [
        compile_webhook(name, position, hook, mutating=mutating)
        for name, obj in named
        for position, hook in enumerate(fields.objects(obj, "webhooks"))
    ]
