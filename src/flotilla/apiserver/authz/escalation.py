"""Escalation prevention: nobody grants, through RBAC objects, a permission they do not hold.

Being allowed to create Roles would otherwise be being allowed everything. So, as kube-apiserver's
RBAC storage does, the write pipeline calls `check_rbac_write` for every create and update of the
four RBAC kinds, after mutating admission and before validation:

- a Role or ClusterRole is accepted when its writer holds every permission in it (in the role's
  namespace, or cluster-wide for a ClusterRole), or may `escalate` that kind of role. Setting or
  changing a ClusterRole's `aggregationRule` needs cluster-admin's full authority, since the rule
  can gather any permission;
- a RoleBinding or ClusterRoleBinding is accepted when its writer may `bind` the role it refers to
  (`roles`/`clusterroles` with that name, in the binding's namespace or cluster-wide), or holds
  every permission of that role; a binding to a role that does not exist is then 404;
- members of `system:masters` (the admin and the API server's own writes) are never checked, and
  an update that only changes ownerReferences or finalizers (what the garbage collector touches)
  is not checked either.

A refusal is 403 Forbidden naming what is missing, in kube's words:
`user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not
currently held:` followed by each missing permission, compacted by resource.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from flotilla.apiserver import errors
from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer
from flotilla.apiserver.authz.rbac import RBAC_GROUP, aggregate
from flotilla.apiserver.authz.rules import (
    FULL_AUTHORITY,
    PolicyRule,
    compact,
    go_quoted_list,
    rules_from_json,
    uncovered,
)
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.users import MASTERS_GROUP, UserInfo

ROLES = frozenset({"roles", "clusterroles"})
BINDINGS = frozenset({"rolebindings", "clusterrolebindings"})
GC_FIELDS = ("ownerReferences", "finalizers")
_IGNORED_METADATA = ("resourceVersion", "managedFields", *GC_FIELDS)


class RuleResolver(Protocol):
    """Where escalation checks read rules: those a user holds, and those a binding's roleRef names."""

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[PolicyRule], list[str]]: ...

    def role_reference_rules(
        self, role_ref: Mapping[str, Any], namespace: str
    ) -> tuple[PolicyRule, ...] | None: ...


def check_rbac_write(
    authorizer: Authorizer,
    resolver: RuleResolver,
    served: ServedResource,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    user: UserInfo,
) -> None:
    """Raise Forbidden (or NotFound for a binding to a missing role) when the write escalates."""
    resource = served.type
    if resource.group != RBAC_GROUP or MASTERS_GROUP in user.groups:
        return
    if resource.plural not in ROLES and resource.plural not in BINDINGS:
        return
    if old is not None and only_gc_fields_changed(obj, old):
        return
    meta = obj.get("metadata") or {}
    namespace = str(meta.get("namespace", "")) if resource.namespaced else ""
    name = str(meta.get("name", ""))
    if resource.plural in ROLES:
        _check_role(authorizer, resolver, resource.plural, namespace, name, obj, old, user)
    else:
        _check_binding(authorizer, resolver, resource.plural, namespace, name, obj, user)


def only_gc_fields_changed(obj: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """True when the objects differ at most in ownerReferences and finalizers (kube's GC fields)."""

    def without_gc_fields(source: Mapping[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in (source.get("metadata") or {}).items() if k not in _IGNORED_METADATA}
        return {**source, "metadata": meta}

    return without_gc_fields(obj) == without_gc_fields(old)


def _check_role(
    authorizer: Authorizer,
    resolver: RuleResolver,
    plural: str,
    namespace: str,
    name: str,
    obj: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    user: UserInfo,
) -> None:
    # kube asks with the request's name, which a create does not have yet.
    escalate = AuthorizationAttributes(
        user, "escalate", True, RBAC_GROUP, "*", plural, "", namespace, name if old is not None else ""
    )
    if authorizer.authorize(escalate).allowed:
        return
    held, problems = resolver.rules_for(user, namespace)
    missing = uncovered(held, rules_from_json(obj.get("rules")))
    if missing:
        raise _forbidden(plural, name, not_held_message(user, missing, problems))
    aggregating = obj.get("aggregationRule") is not None or (old is not None and old.get("aggregationRule"))
    if plural == "clusterroles" and aggregating and uncovered(held, FULL_AUTHORITY):
        raise _forbidden(plural, name, "must have cluster-admin privileges to use the aggregationRule")


def _check_binding(
    authorizer: Authorizer,
    resolver: RuleResolver,
    plural: str,
    namespace: str,
    name: str,
    obj: Mapping[str, Any],
    user: UserInfo,
) -> None:
    role_ref = obj.get("roleRef") or {}
    role_plural = {"Role": "roles", "ClusterRole": "clusterroles"}.get(str(role_ref.get("kind", "")))
    if role_plural is not None:
        bind = AuthorizationAttributes(
            user,
            "bind",
            True,
            str(role_ref.get("apiGroup", "")),
            resource=role_plural,
            namespace=namespace,
            name=str(role_ref.get("name", "")),
        )
        if authorizer.authorize(bind).allowed:
            return
    wanted = resolver.role_reference_rules(role_ref, namespace)
    if wanted is None:
        kind = str(role_ref.get("kind", "")).lower()
        role_name = str(role_ref.get("name", ""))
        raise errors.NotFound(
            f'{kind}.{RBAC_GROUP} "{role_name}" not found', name=role_name, group=RBAC_GROUP, kind=kind
        )
    held, problems = resolver.rules_for(user, namespace)
    missing = uncovered(held, wanted)
    if missing:
        raise _forbidden(plural, name, not_held_message(user, missing, problems))


def not_held_message(user: UserInfo, missing: Sequence[PolicyRule], problems: Sequence[str] = ()) -> str:
    lines = sorted({rule.compact_string() for rule in compact(missing)})
    message = (
        f'user "{user.username}" (groups={go_quoted_list(user.groups)}) is attempting to grant RBAC '
        "permissions not currently held:\n" + "\n".join(lines)
    )
    if problems:
        message += f"; resolution errors: [{aggregate(list(problems))}]"
    return message


def _forbidden(plural: str, name: str, reason: str) -> errors.Forbidden:
    return errors.Forbidden(
        f'{plural}.{RBAC_GROUP} "{name}" is forbidden: {reason}', name=name, group=RBAC_GROUP, kind=plural
    )
