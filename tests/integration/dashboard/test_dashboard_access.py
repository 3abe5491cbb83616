"""Who is served the dashboard's shared ResourceBinding copy, and who reads the hub as themselves.

The shared copy is read with the dashboard's own credentials; the hub, asked as the user, decides
whether a session sees it. Three users: one who may list bindings everywhere (the read-only
viewer: the shared copy), one allowed in a single namespace (reads as the user: that namespace's
bindings, no fleet-wide count), and one with no rights at all (no workloads, no counts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.dashboard.dashboardclient import DashboardProcess, DashboardUser
from tests.integration.federation import deployment, propagation_policy, resource_selector
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

USERS_NAMESPACE = "dashboard-viewers"


def _service_account(hub: Kubectl, name: str, rbac: list[dict[str, Any]]) -> str:
    """A ServiceAccount with the given Roles and bindings, and a token for it."""
    account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": USERS_NAMESPACE},
    }
    hub.apply_yaml([account, *rbac])
    return hub("create", "token", name, "-n", USERS_NAMESPACE).strip()


def _team_rbac(namespace: str) -> list[dict[str, Any]]:
    """List and watch ResourceBindings in `namespace` only."""
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "binding-reader", "namespace": namespace},
            "rules": [
                {
                    "apiGroups": ["work.karmada.io"],
                    "resources": ["resourcebindings"],
                    "verbs": ["get", "list", "watch"],
                }
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "binding-reader", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "binding-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "team", "namespace": USERS_NAMESPACE}],
        },
    ]


def test_who_may_list_everywhere_is_served_the_shared_copy_and_others_read_as_themselves(
    dashboard: DashboardProcess, hub_ca: Path, viewer_token: str, hub: Kubectl, ns: str
) -> None:
    """A new binding reaches the viewer's overview from the shared copy; a user allowed in one namespace
    sees only that namespace's bindings (read as the user) and no fleet-wide count; a user with no
    rights sees no workloads and no counts."""
    viewer = DashboardUser(dashboard.url, hub_ca).sign_in(viewer_token)
    team = DashboardUser(dashboard.url, hub_ca).sign_in(_service_account(hub, "team", _team_rbac(ns)))
    nobody = DashboardUser(dashboard.url, hub_ca).sign_in(_service_account(hub, "nobody", []))
    hub.apply_yaml(
        [
            deployment("api", namespace=ns, replicas=1),
            propagation_policy("api", [resource_selector("Deployment", "api")], {}, namespace=ns),
        ]
    )

    def counts() -> tuple[int, int]:
        bindings = len(hub.json("get", "resourcebindings", "-A")["items"])
        return viewer.get("/api/overview")["workloads"]["total"], bindings

    eventually(counts, until=lambda pair: pair[0] == pair[1] and pair[0] > 0, timeout=30, what="viewer count")
    found = viewer.get(f"/api/workloads?namespace={ns}&search=api")
    assert [item["name"] for item in found["items"]] == ["api"]

    mine = team.get(f"/api/workloads?namespace={ns}&search=api")
    assert [item["name"] for item in mine["items"]] == ["api"] and mine["total"] == 1
    assert team.request("GET", "/api/workloads?state=ready").status == 403
    fleet_wide = team.get("/api/overview/workloads")
    assert fleet_wide["workloads"]["total"] == 0 and fleet_wide["notes"]

    assert nobody.get("/api/session")["user"] == f"system:serviceaccount:{USERS_NAMESPACE}:nobody"
    refused = nobody.get("/api/overview/workloads")
    assert not any(refused["workloads"].values()) and refused["notes"], refused
    for path in (
        "/api/overview",
        "/api/workloads?limit=50",
        "/api/workloads?state=ready",
        f"/api/workloads?namespace={ns}&search=api",
    ):
        assert nobody.request("GET", path).status == 403, path


def test_the_sign_in_link_works_once(dashboard: DashboardProcess, hub_ca: Path) -> None:
    """`flotilla up`'s link signs the admin in the first time; followed again it is refused."""
    first = DashboardUser(dashboard.url, hub_ca)
    assert first.request("GET", dashboard.sign_in_path).status == 200  # the redirect to the page
    assert first.get("/api/session")["user"] == "system:serviceaccount:flotilla-dashboard:admin"
    again = DashboardUser(dashboard.url, hub_ca)
    refused = again.request("GET", dashboard.sign_in_path)
    assert refused.status == 403 and "already used" in refused.body["message"]
    assert again.request("GET", "/api/session").status == 401
