"""The RBAC authorizer: the rules bound to a user, indexed by subject, checked on every request.

Permissions come from four kinds (rbac.authorization.k8s.io/v1): Roles and ClusterRoles hold rules;
RoleBindings and ClusterRoleBindings give a role's rules to subjects — users, groups
(`system:authenticated`, `system:unauthenticated`, `system:serviceaccounts`…) and ServiceAccounts,
which are the users `system:serviceaccount:<namespace>:<name>`. A ClusterRoleBinding grants its
ClusterRole everywhere, non-resource URLs included; a RoleBinding grants its Role, or a ClusterRole,
only inside the binding's namespace. Rules only ever allow: a request is allowed when any rule
bound to the user or one of its groups allows it (see `rules.allows`). Members of `system:masters`
are allowed everything without looking at rules, as in kube-apiserver.

This runs on every request, so the bindings are indexed by subject: an `RBACIndex` maps each user
and group to its grants (the binding that names it and the rules of the role the binding refers
to), cluster-wide or per namespace. A request then looks only at the grants of its own user and
groups — cluster-wide ones, plus those of the request's namespace. The index is built from the
watch cache and dropped whenever a role or binding changes (a cache listener); the next request
builds it again, so a write is in force for every request that follows it.

`RBACAuthorizer.rules_for` lists a user's rules in a namespace, for escalation checks and
SelfSubjectRulesReview; `role_reference_rules` resolves a binding's `roleRef`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.apiserver.authz import AuthorizationAttributes, Decision
from flotilla.apiserver.authz.rules import PolicyRule, allows, rules_from_json
from flotilla.apiserver.store.watchcache import CacheEvent, WatchCache
from flotilla.apiserver.users import MASTERS_GROUP, UserInfo

RBAC_GROUP = "rbac.authorization.k8s.io"
ROLES = f"/registry/{RBAC_GROUP}/roles/"
CLUSTER_ROLES = f"/registry/{RBAC_GROUP}/clusterroles/"
ROLE_BINDINGS = f"/registry/{RBAC_GROUP}/rolebindings/"
CLUSTER_ROLE_BINDINGS = f"/registry/{RBAC_GROUP}/clusterrolebindings/"
RBAC_PREFIXES = (ROLES, CLUSTER_ROLES, ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS)
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"

Subject = tuple[str, str]
"""("User", name) or ("Group", name); ServiceAccount subjects are indexed as their user name."""


@dataclass(frozen=True, slots=True)
class Grant:
    """The rules one binding gives one subject."""

    binding: str
    """The binding's storage key: a binding naming a user and one of its groups counts once."""
    source: str
    """kube's description: `RoleBinding "view/a" of ClusterRole "view" to User "jane"`."""
    rules: tuple[PolicyRule, ...]
    error: str = ""
    """Why the rules are missing (the role the binding refers to does not exist)."""


@dataclass(slots=True)
class RBACIndex:
    cluster: dict[Subject, list[Grant]] = field(default_factory=dict)
    namespaced: dict[str, dict[Subject, list[Grant]]] = field(default_factory=dict)
    roles: dict[tuple[str, str], tuple[PolicyRule, ...]] = field(default_factory=dict)
    cluster_roles: dict[str, tuple[PolicyRule, ...]] = field(default_factory=dict)

    def grants_for(self, user: UserInfo, namespace: str) -> Iterator[Grant]:
        """Cluster-wide grants of the user and its groups, then those of `namespace` (if any)."""
        subjects = subjects_of(user)
        seen: set[str] = set()
        scopes = [self.cluster]
        local = self.namespaced.get(namespace) if namespace else None
        if local:
            scopes.append(local)
        for scope in scopes:
            for subject in subjects:
                for grant in scope.get(subject, ()):
                    if grant.binding not in seen:
                        seen.add(grant.binding)
                        yield grant

    def role_reference_rules(
        self, role_ref: Mapping[str, Any], namespace: str
    ) -> tuple[PolicyRule, ...] | None:
        """The rules a `roleRef` points at from a binding in `namespace` ("" for a cluster binding)."""
        name = str(role_ref.get("name", ""))
        if role_ref.get("kind") == "ClusterRole":
            return self.cluster_roles.get(name)
        if role_ref.get("kind") == "Role" and namespace:
            return self.roles.get((namespace, name))
        return None


def subjects_of(user: UserInfo) -> list[Subject]:
    return [("User", user.username), *(("Group", group) for group in user.groups)]


def _subject_key(subject: Mapping[str, Any], binding_namespace: str) -> Subject | None:
    kind = subject.get("kind")
    name = str(subject.get("name", ""))
    if kind in ("User", "Group"):
        return (str(kind), name)
    if kind == "ServiceAccount":
        # A RoleBinding's ServiceAccount subject without a namespace means the binding's own.
        namespace = str(subject.get("namespace") or binding_namespace)
        return ("User", f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}") if namespace else None
    return None


def _describe_subject(subject: Mapping[str, Any], binding_namespace: str) -> str:
    name = str(subject.get("name", ""))
    if subject.get("kind") == "ServiceAccount":
        name = f"{name}/{subject.get('namespace') or binding_namespace}"
    return f'{subject.get("kind", "")} "{name}"'


def _binding_rules(
    index: RBACIndex, binding: Mapping[str, Any], namespace: str
) -> tuple[tuple[PolicyRule, ...], str]:
    role_ref = binding.get("roleRef") or {}
    found = index.role_reference_rules(role_ref, namespace)
    if found is not None:
        return found, ""
    kind = str(role_ref.get("kind", "")).lower()
    return (), f'{kind}.{RBAC_GROUP} "{role_ref.get("name", "")}" not found'


def build_index(
    roles: Iterable[Mapping[str, Any]],
    cluster_roles: Iterable[Mapping[str, Any]],
    role_bindings: Iterable[Mapping[str, Any]],
    cluster_role_bindings: Iterable[Mapping[str, Any]],
) -> RBACIndex:
    """Index the bindings of the four RBAC kinds (as stored objects) by the subjects they name."""
    index = RBACIndex()
    for role in roles:
        meta = role.get("metadata") or {}
        index.roles[(meta.get("namespace", ""), meta.get("name", ""))] = rules_from_json(role.get("rules"))
    for role in cluster_roles:
        index.cluster_roles[(role.get("metadata") or {}).get("name", "")] = rules_from_json(role.get("rules"))
    for binding in cluster_role_bindings:
        rules, error = _binding_rules(index, binding, "")
        name = (binding.get("metadata") or {}).get("name", "")
        role_ref = binding.get("roleRef") or {}
        for subject in binding.get("subjects") or ():
            key = _subject_key(subject, "")
            if key is not None:
                source = (
                    f'ClusterRoleBinding "{name}" of {role_ref.get("kind", "")} "{role_ref.get("name", "")}" '
                    f"to {_describe_subject(subject, '')}"
                )
                grant = Grant(f"{CLUSTER_ROLE_BINDINGS}{name}", source, rules, error)
                index.cluster.setdefault(key, []).append(grant)
    for binding in role_bindings:
        meta = binding.get("metadata") or {}
        namespace = meta.get("namespace", "")
        rules, error = _binding_rules(index, binding, namespace)
        role_ref = binding.get("roleRef") or {}
        local = index.namespaced.setdefault(namespace, {})
        for subject in binding.get("subjects") or ():
            key = _subject_key(subject, namespace)
            if key is not None:
                source = (
                    f'RoleBinding "{meta.get("name", "")}/{namespace}" of {role_ref.get("kind", "")} '
                    f'"{role_ref.get("name", "")}" to {_describe_subject(subject, namespace)}'
                )
                grant = Grant(f"{ROLE_BINDINGS}{namespace}/{meta.get('name', '')}", source, rules, error)
                local.setdefault(key, []).append(grant)
    return index


def aggregate(problems: list[str]) -> str:
    """Several errors as apimachinery's aggregate error prints them."""
    return problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"


class RBACAuthorizer:
    """Authorizes requests by the RBAC objects in the watch cache."""

    def __init__(self, cache: WatchCache) -> None:
        self._cache = cache
        self._index: RBACIndex | None = None
        cache.add_listener(self._on_event)

    def _on_event(self, event: CacheEvent) -> None:
        if event.object.key.startswith(RBAC_PREFIXES):
            self._index = None

    @property
    def index(self) -> RBACIndex:
        index = self._index
        if index is None:
            cache = self._cache
            index = self._index = build_index(
                (item.obj for item in cache.list(ROLES)),
                (item.obj for item in cache.list(CLUSTER_ROLES)),
                (item.obj for item in cache.list(ROLE_BINDINGS)),
                (item.obj for item in cache.list(CLUSTER_ROLE_BINDINGS)),
            )
        return index

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        user = attributes.user
        if MASTERS_GROUP in user.groups:
            return Decision(True)
        namespace = attributes.namespace if attributes.resource_request else ""
        problems: list[str] = []
        for grant in self.index.grants_for(user, namespace):
            for rule in grant.rules:
                if allows(rule, attributes):
                    return Decision(True, f"RBAC: allowed by {grant.source}")
            if grant.error:
                problems.append(grant.error)
        # Like kube: no rule allows it, and bindings to missing roles are named in the reason.
        return Decision(False, f"RBAC: {aggregate(problems)}" if problems else "")

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[PolicyRule], list[str]]:
        """Every rule the user holds in `namespace` ("" : cluster-wide only), and resolution errors."""
        rules: list[PolicyRule] = []
        problems: list[str] = []
        for grant in self.index.grants_for(user, namespace):
            rules.extend(grant.rules)
            if grant.error:
                problems.append(grant.error)
        return rules, problems

    def role_reference_rules(
        self, role_ref: Mapping[str, Any], namespace: str
    ) -> tuple[PolicyRule, ...] | None:
        return self.index.role_reference_rules(role_ref, namespace)
