"""ClusterRole aggregation: a ClusterRole with an `aggregationRule` holds the rules of those it selects.

kube-controller-manager's clusterrole-aggregation controller, run inside the API server because the
default `admin`, `edit` and `view` roles are empty until it fills them. For an aggregated ClusterRole
the rules are computed from scratch (`aggregated_rules`): for each of its `clusterRoleSelectors` in
order, the ClusterRoles whose labels match, by name, each rule once — the role itself excluded.
When the result differs from the stored rules, the role is updated. Nested aggregation (`view` is
aggregated into `edit`, `edit` into `admin`) converges through the update events it causes.

Any ClusterRole change may change any aggregation, so every event on a ClusterRole requeues every
aggregated ClusterRole; the reconcile itself is level-based and writes only on a difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.apiserver.authz.rbac import CLUSTER_ROLES, RBAC_GROUP
from flotilla.apiserver.authz.rules import PolicyRule, rules_from_json
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent

CLUSTER_ROLE = GroupVersionKind(RBAC_GROUP, "v1", "ClusterRole")
MANAGER = "clusterrole-aggregation-controller"


def aggregated_rules(
    role: Mapping[str, Any], cluster_roles: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The rules an aggregated ClusterRole should hold, given every ClusterRole (pure)."""
    name = (role.get("metadata") or {}).get("name", "")
    candidates = sorted(
        (other for other in cluster_roles if (other.get("metadata") or {}).get("name", "") != name),
        key=lambda other: str((other.get("metadata") or {}).get("name", "")),
    )
    collected: list[PolicyRule] = []
    for raw_selector in (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or ():
        try:
            selector = label_selector_from_object(raw_selector)
        except SelectorError:
            continue  # validation refuses these; one stored anyway selects nothing
        for other in candidates:
            if selector.matches((other.get("metadata") or {}).get("labels")):
                collected.extend(
                    rule for rule in rules_from_json(other.get("rules")) if rule not in collected
                )
    return [rule.to_json() for rule in collected]


class ClusterRoleAggregation(CacheController):
    NAME = "clusterrole-aggregation"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.client = LocalClient(ctx, MANAGER)

    def _aggregated_names(self) -> list[str]:
        return [item.name for item in self.ctx.cache.list(CLUSTER_ROLES) if item.obj.get("aggregationRule")]

    def keys_for(self, event: CacheEvent) -> list[Any]:
        if not event.object.key.startswith(CLUSTER_ROLES):
            return []
        return self._aggregated_names()

    def start(self) -> None:
        # Roles stored before this start bring no events: look at every aggregated role once.
        for name in self._aggregated_names():
            self.queue.add(name)
        super().start()

    async def reconcile(self, key: Any) -> float | None:
        await self.ctx.cache.wait_current()
        current = self.ctx.cache.get(f"{CLUSTER_ROLES}{key}")
        if current is None or not current.obj.get("aggregationRule"):
            return None
        everything = [item.obj for item in self.ctx.cache.list(CLUSTER_ROLES)]
        wanted = aggregated_rules(current.obj, everything)
        if [rule.to_json() for rule in rules_from_json(current.obj.get("rules"))] == wanted:
            return None

        def set_rules(obj: dict[str, Any]) -> None:
            obj["rules"] = wanted

        await self.client.mutate(CLUSTER_ROLE, str(key), set_rules)
        return None
