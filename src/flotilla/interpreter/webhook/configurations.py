"""ResourceInterpreterWebhookConfigurations as the interpreter reads them: which webhook answers what.

A configuration holds `webhooks[]`; each names where it is served (`clientConfig`: a `url`, or a
`service` reached at `https://<name>.<namespace>.svc:<port><path>`, Karmada's fallback when the
Service is not on the hub), the CA bundle its serving certificate chains to, a timeout (1-30 s,
10 by default) and `rules` — operations (`*` for all), API groups, versions and kinds (`*` for
all). As Karmada's webhook config manager does, every webhook is known by `<configuration>/<name>`
and, when several match an object and operation, the first of those ids in sort order answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flotilla.interpreter.lua.customizations import Operation

WILDCARD = "*"
DEFAULT_TIMEOUT_SECONDS = 10
"""Karmada's default for `timeoutSeconds`."""
CONTEXT_VERSION = "v1alpha1"
"""The one ResourceInterpreterContext version (config.karmada.io) Karmada and Flotilla speak."""


@dataclass(frozen=True, slots=True)
class InterpreterRule:
    """One entry of a webhook's `rules`."""

    operations: tuple[str, ...]
    api_groups: tuple[str, ...]
    api_versions: tuple[str, ...]
    kinds: tuple[str, ...]

    def matches(self, group: str, version: str, kind: str, operation: Operation) -> bool:
        """Karmada's `Matcher`: each of operation, group, version and kind exact or `*`."""
        return (
            _exact_or_wildcard(str(operation), self.operations)
            and _exact_or_wildcard(group, self.api_groups)
            and _exact_or_wildcard(version, self.api_versions)
            and _exact_or_wildcard(kind, self.kinds)
        )


def _exact_or_wildcard(requested: str, items: Sequence[str]) -> bool:
    return any(item in (WILDCARD, requested) for item in items)


@dataclass(frozen=True, slots=True)
class InterpreterWebhook:
    """One webhook of a configuration, with what a call needs."""

    configuration: str
    name: str
    url: str
    ca_bundle: str = ""
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    rules: tuple[InterpreterRule, ...] = ()
    context_versions: tuple[str, ...] = (CONTEXT_VERSION,)

    @property
    def uid(self) -> str:
        """Karmada's id of the webhook: `<configuration>/<name>`."""
        return f"{self.configuration}/{self.name}"

    def answers(self, group: str, version: str, kind: str, operation: Operation) -> bool:
        return any(rule.matches(group, version, kind, operation) for rule in self.rules)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def webhook_url(client_config: Mapping[str, Any]) -> str:
    """Where to call: the `service` (Karmada prefers it when both are set) or the `url`."""
    service = client_config.get("service")
    if isinstance(service, Mapping):
        port = service.get("port") or 443
        path = service.get("path") or ""
        return f"https://{service.get('name', '')}.{service.get('namespace', '')}.svc:{port}{path}"
    return str(client_config.get("url") or "")


def parse_webhooks(configuration: Mapping[str, Any]) -> list[InterpreterWebhook]:
    """The webhooks of one configuration object (fields the schema requires read as empty)."""
    name = str((configuration.get("metadata") or {}).get("name") or "")
    found: list[InterpreterWebhook] = []
    for hook in configuration.get("webhooks") or []:
        if not isinstance(hook, Mapping):
            continue
        client_config = hook.get("clientConfig") or {}
        rules = tuple(
            InterpreterRule(
                _strings(rule.get("operations")),
                _strings(rule.get("apiGroups")),
                _strings(rule.get("apiVersions")),
                _strings(rule.get("kinds")),
            )
            for rule in hook.get("rules") or []
            if isinstance(rule, Mapping)
        )
        timeout = hook.get("timeoutSeconds")
        if not isinstance(timeout, int) or timeout <= 0:
            timeout = DEFAULT_TIMEOUT_SECONDS
        found.append(
            InterpreterWebhook(
                configuration=name,
                name=str(hook.get("name") or ""),
                url=webhook_url(client_config),
                ca_bundle=str(client_config.get("caBundle") or ""),
                timeout_seconds=timeout
                if isinstance(timeout, int) and timeout > 0
                else DEFAULT_TIMEOUT_SECONDS,
                rules=rules,
                context_versions=_strings(hook.get("interpreterContextVersions")),
            )
        )
    return found


@dataclass(slots=True)
class WebhookIndex:
    """Every webhook of the hub's configurations, in Karmada's order (by id)."""

    webhooks: list[InterpreterWebhook] = field(default_factory=list)

    @classmethod
    def from_objects(cls, objects: Iterable[Mapping[str, Any]]) -> WebhookIndex:
        hooks = [hook for obj in objects for hook in parse_webhooks(obj)]
        return cls(sorted(hooks, key=lambda hook: hook.uid))

    def first(self, api_version: str, kind: str, operation: Operation) -> InterpreterWebhook | None:
        """The webhook that answers `operation` for objects of `api_version` and `kind`, if any."""
        group, _, version = api_version.rpartition("/")
        for hook in self.webhooks:
            if hook.answers(group, version, kind, operation):
                return hook
        return None

    def __bool__(self) -> bool:
        return bool(self.webhooks)
