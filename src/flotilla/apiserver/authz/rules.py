"""RBAC policy rules: what one rule allows, and whether a set of rules covers another.

A `PolicyRule` is the immutable form of a Role's or ClusterRole's `rules[]` item. Two questions are
asked of rules, both with kube's semantics:

- *Does a rule allow a request?* (`allows`) For resource requests: the verb, the API group, the
  resource — `pods`, the subresource form `pods/log`, or `*/scale` for a subresource of any resource;
  `*` matches everything, subresources included — and, when the rule lists `resourceNames`, the
  request's object name. A request without a name (list, watch, create, deletecollection) is never
  allowed by a rule that lists names. For non-resource requests (`/healthz`, `/apis/*`): the verb
  and the path, where a URL ending in `*` matches every path with that prefix.
- *Do the rules a user holds cover the rules they want to grant?* (`uncovered`) Escalation
  prevention breaks the wanted rules into atoms — one group, resource, verb and name (or one URL
  and verb) each — and keeps the atoms no held rule covers. `compact` merges those atoms back by
  resource for kube's error message, and `compact_string` prints a rule as kube prints it there.

Rules are small (a few verbs and resources), so plain tuple membership beats building sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.apiserver.authz import AuthorizationAttributes

ALL = "*"


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


@dataclass(frozen=True, slots=True)
class PolicyRule:
    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, rule: Mapping[str, Any]) -> PolicyRule:
        return cls(
            verbs=_strings(rule.get("verbs")),
            api_groups=_strings(rule.get("apiGroups")),
            resources=_strings(rule.get("resources")),
            resource_names=_strings(rule.get("resourceNames")),
            non_resource_urls=_strings(rule.get("nonResourceURLs")),
        )

    def to_json(self) -> dict[str, Any]:
        """The rule as the API shows it (empty lists left out, as Go's omitempty does)."""
        body: dict[str, Any] = {"verbs": list(self.verbs)}
        if self.api_groups:
            body["apiGroups"] = list(self.api_groups)
        if self.resources:
            body["resources"] = list(self.resources)
        if self.resource_names:
            body["resourceNames"] = list(self.resource_names)
        if self.non_resource_urls:
            body["nonResourceURLs"] = list(self.non_resource_urls)
        return body

    def compact_string(self) -> str:
        """kube's `CompactString`: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`."""
        parts = []
        for label, values in (
            ("APIGroups", self.api_groups),
            ("Resources", self.resources),
            ("NonResourceURLs", self.non_resource_urls),
            ("ResourceNames", self.resource_names),
            ("Verbs", self.verbs),
        ):
            if values:
                parts.append(f"{label}:{go_quoted_list(values)}")
        return "{" + ", ".join(parts) + "}"


def rules_from_json(rules: Any) -> tuple[PolicyRule, ...]:
    """The rules of a stored Role or ClusterRole (`rules` may be null)."""
    if not isinstance(rules, list):
        return ()
    return tuple(PolicyRule.from_json(rule) for rule in rules if isinstance(rule, Mapping))


def go_quoted_list(values: Iterable[str]) -> str:
    """A string slice as Go's `%q` prints it: `["a" "b"]`."""
    return "[" + " ".join(go_quoted(value) for value in values) + "]"


def go_quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


# -- does a rule allow a request ------------------------------------------------------------------


def allows(rule: PolicyRule, attributes: AuthorizationAttributes) -> bool:
    if not _has_or_all(rule.verbs, attributes.verb):
        return False
    if not attributes.resource_request:
        return _url_matches(rule.non_resource_urls, attributes.path)
    return (
        _has_or_all(rule.api_groups, attributes.group)
        and _resource_matches(rule.resources, attributes.resource, attributes.subresource)
        and (not rule.resource_names or attributes.name in rule.resource_names)
    )


def _has_or_all(values: tuple[str, ...], wanted: str) -> bool:
    return ALL in values or wanted in values


def _resource_matches(resources: tuple[str, ...], resource: str, subresource: str) -> bool:
    combined = f"{resource}/{subresource}" if subresource else resource
    for candidate in resources:
        if candidate in (ALL, combined):
            return True
        if subresource and candidate == f"*/{subresource}":
            return True
    return False


def _url_matches(urls: tuple[str, ...], path: str) -> bool:
    for url in urls:
        if url in (ALL, path):
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


# -- do held rules cover wanted rules -------------------------------------------------------------


def breakdown(rule: PolicyRule) -> list[PolicyRule]:
    """A rule as atoms of one group, resource, verb (and name), or one URL and verb."""
    atoms: list[PolicyRule] = []
    names: tuple[tuple[str, ...], ...] = tuple((n,) for n in rule.resource_names) or ((),)
    for group in rule.api_groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                atoms.extend(PolicyRule((verb,), (group,), (resource,), name) for name in names)
    for url in rule.non_resource_urls:
        atoms.extend(PolicyRule((verb,), non_resource_urls=(url,)) for verb in rule.verbs)
    return atoms


def covers(held: PolicyRule, atom: PolicyRule) -> bool:
    """Whether one held rule grants everything one atom (see `breakdown`) grants."""
    if not (ALL in held.verbs or set(atom.verbs) <= set(held.verbs)):
        return False
    if not (ALL in held.api_groups or set(atom.api_groups) <= set(held.api_groups)):
        return False
    if not _resources_cover(held.resources, atom.resources):
        return False
    if not all(
        any(_url_covers(owned, url) for owned in held.non_resource_urls) for url in atom.non_resource_urls
    ):
        return False
    if held.resource_names:
        return bool(atom.resource_names) and set(atom.resource_names) <= set(held.resource_names)
    return True


def _resources_cover(held: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    if ALL in held:
        return True
    for resource in wanted:
        if resource in held:
            continue
        _, slash, subresource = resource.partition("/")
        if not slash or f"*/{subresource}" not in held:
            return False
    return True


def _url_covers(held: str, wanted: str) -> bool:
    return held == wanted or (held.endswith("*") and wanted.startswith(held.rstrip("*")))


def uncovered(held: Iterable[PolicyRule], wanted: Iterable[PolicyRule]) -> list[PolicyRule]:
    """The atoms of `wanted` that no rule in `held` covers (empty: `held` covers `wanted`)."""
    owned = list(held)
    return [
        atom
        for rule in wanted
        for atom in breakdown(rule)
        if not any(covers(candidate, atom) for candidate in owned)
    ]


def compact(atoms: Iterable[PolicyRule]) -> list[PolicyRule]:
    """Atoms of one group, resource and at most one name merged into one rule with all their verbs."""
    merged: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    others: list[PolicyRule] = []
    for atom in atoms:
        simple = (
            len(atom.api_groups) == 1
            and len(atom.resources) == 1
            and len(atom.resource_names) <= 1
            and not atom.non_resource_urls
        )
        if not simple:
            others.append(atom)
            continue
        verbs = merged.setdefault((atom.api_groups[0], atom.resources[0], atom.resource_names), [])
        verbs.extend(verb for verb in atom.verbs if verb not in verbs)
    return others + [
        PolicyRule(tuple(verbs), (group,), (resource,), names)
        for (group, resource, names), verbs in merged.items()
    ]


FULL_AUTHORITY = (
    PolicyRule((ALL,), (ALL,), (ALL,)),
    PolicyRule((ALL,), non_resource_urls=(ALL,)),
)
"""What cluster-admin holds; setting an aggregationRule requires it, since it can gather anything."""
