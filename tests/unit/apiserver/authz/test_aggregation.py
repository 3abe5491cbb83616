"""ClusterRole aggregation: the pure union of selected rules, and the controller keeping roles filled."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.rbacaggregation import aggregated_rules
from tests.support.waiting import eventually_async

CLUSTER_ROLE = GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRole")
CRONTABS = {"verbs": ["get", "list"], "apiGroups": ["stable.example.com"], "resources": ["crontabs"]}
PODS = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
NODES = {"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]}


def labelled(name: str, labels: dict[str, str], *rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": labels},
        "rules": list(rules),
    }


def aggregating(name: str, *selectors: dict[str, Any]) -> dict[str, Any]:
    role = labelled(name, {})
    role["aggregationRule"] = {"clusterRoleSelectors": list(selectors)}
    return role


def test_rules_come_selector_by_selector_then_role_by_name_each_once() -> None:
    """Order: first selector's roles by name, then the next selector's; duplicates dropped."""
    roles = [
        labelled("b", {"x": "1"}, NODES),
        labelled("a", {"x": "1"}, PODS),
        labelled("c", {"y": "1"}, CRONTABS, PODS),
    ]
    target = aggregating("target", {"matchLabels": {"y": "1"}}, {"matchLabels": {"x": "1"}})
    assert aggregated_rules(target, roles) == [CRONTABS, PODS, NODES]


def test_the_aggregated_role_never_selects_itself() -> None:
    """A role whose labels match its own selector does not feed on its own rules."""
    target = aggregating("self", {"matchLabels": {"x": "1"}})
    target["metadata"]["labels"] = {"x": "1"}
    target["rules"] = [PODS]
    assert aggregated_rules(target, [target]) == []


def test_match_expressions_select_too() -> None:
    """Selectors are full label selectors, not only matchLabels."""
    target = aggregating("t", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]})
    roles = [labelled("one", {"tier": "b"}, PODS), labelled("two", {"tier": "c"}, NODES)]
    assert aggregated_rules(target, roles) == [PODS]


def _rules(api: EmbeddedAPI, name: str) -> list[dict[str, Any]]:
    role = api.client("test").peek(CLUSTER_ROLE, name) or {}
    return list(role.get("rules") or [])


async def test_default_admin_edit_and_view_are_filled_and_nest(api: EmbeddedAPI) -> None:
    """view within edit within admin, through the aggregate-to labels of the bootstrap roles."""

    def nested() -> bool:
        view, edit, admin = _rules(api, "view"), _rules(api, "edit"), _rules(api, "admin")
        return bool(view) and all(r in edit for r in view) and all(r in admin for r in edit) and admin != edit

    await eventually_async(nested)
    view = _rules(api, "view")
    assert {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]} in view


async def test_a_custom_role_labelled_for_view_reaches_view_edit_and_admin_and_leaves_with_its_label(
    api: EmbeddedAPI,
) -> None:
    """Adding the aggregate-to-view label spreads the rule upward; removing it takes it back."""
    client = api.client("test")
    await eventually_async(lambda: bool(_rules(api, "admin")))
    label = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}
    await client.create(CLUSTER_ROLE, labelled("crontab-viewer", label, CRONTABS))
    await eventually_async(lambda: all(CRONTABS in _rules(api, name) for name in ("view", "edit", "admin")))
    await client.patch(CLUSTER_ROLE, "crontab-viewer", {"metadata": {"labels": None}})
    await eventually_async(
        lambda: not any(CRONTABS in _rules(api, name) for name in ("view", "edit", "admin"))
    )
