"""The dashboard's HTTP API against a real hub: sign-in, what pages show, and writes as the user.

Every request goes to the `flotilla dashboard` process over HTTPS, with the cookie and CSRF header
a page sends; what it answers is compared with what kubectl reads from the hub.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.dashboard.dashboardclient import DashboardProcess, DashboardUser
from tests.integration.federation import Federation, deployment, propagation_policy, resource_selector
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


def test_a_token_the_hub_refuses_does_not_sign_in(dashboard: DashboardProcess, hub_ca: Path) -> None:
    """A made-up token gets 401 from the dashboard, and no session: the API stays closed."""
    user = DashboardUser(dashboard.url, hub_ca)
    assert user.request("POST", "/api/signin", {"token": "not-a-token"}).status == 401
    assert user.request("GET", "/api/overview").status == 401
    assert user.request("POST", "/api/signin", {"nothing": 1}).status == 400


def test_sign_in_keeps_the_token_behind_an_http_only_cookie(admin: DashboardUser) -> None:
    """The session cookie is HttpOnly, Secure and SameSite=Strict, and the hub knows the user by the token."""
    cookies = list(admin.jar)
    assert len(cookies) == 1
    cookie = cookies[0]
    assert cookie.secure and cookie.has_nonstandard_attr("HttpOnly")
    assert cookie.get_nonstandard_attr("SameSite") == "Strict"
    assert admin.get("/api/session")["user"] == "system:serviceaccount:flotilla-dashboard:admin"


def test_overview_numbers_equal_the_hubs_objects(admin: DashboardUser, hub: Kubectl) -> None:
    """Clusters by state, nodes, pods capacity and workload count are those of the hub's objects."""
    clusters = hub.json("get", "clusters")["items"]
    bindings = hub.json("get", "resourcebindings", "-A")["items"]
    overview = admin.get("/api/overview")
    ready = [
        c
        for c in clusters
        if any(x["type"] == "Ready" and x["status"] == "True" for x in c["status"]["conditions"])
    ]
    assert overview["clusters"]["total"] == len(clusters) == 3
    assert overview["clusters"]["Ready"] == len(ready)
    assert overview["nodes"]["total"] == sum(c["status"]["nodeSummary"]["totalNum"] for c in clusters)
    pods = sum(int(c["status"]["resourceSummary"]["allocatable"]["pods"]) for c in clusters)
    assert overview["resources"]["pods"]["total"] == pods
    assert overview["workloads"]["total"] == len(bindings)


def test_writes_need_the_csrf_token_and_the_dashboards_origin(admin: DashboardUser, hub: Kubectl) -> None:
    """Cordon without the CSRF header, with another's, or from another origin is refused; nothing changes."""
    path = "/api/clusters/member1/cordon"
    assert admin.request("POST", path, {"cordon": True}, csrf="").status == 403
    assert admin.request("POST", path, {"cordon": True}, csrf="forged").status == 403
    assert admin.request("POST", path, {"cordon": True}, origin="https://evil.example").status == 403
    assert not hub.json("get", "cluster", "member1")["spec"].get("taints")


def test_cordon_and_taints_show_on_the_clusters_page(admin: DashboardUser, hub: Kubectl) -> None:
    """Cordon lays Karmada's unschedulable taint, a taint spec adds one, and the page lists both."""
    assert admin.post("/api/clusters/member3/cordon", {"cordon": True}).status == 200
    assert admin.post("/api/clusters/member3/taints", {"taints": ["team=blue:NoSchedule"]}).status == 200
    keys = {taint["key"] for taint in hub.json("get", "cluster", "member3")["spec"]["taints"]}
    assert keys == {"cluster.karmada.io/unschedulable", "team"}
    row = next(row for row in admin.get("/api/clusters")["items"] if row["name"] == "member3")
    assert row["cordoned"] and {t["key"] for t in row["taints"]} == keys
    bad = admin.post("/api/clusters/member3/taints", {"taints": ["team=blue:Sometimes"]})
    assert bad.status == 422 and "effect" in bad.body["message"]
    assert admin.post("/api/clusters/member3/taints", {"taints": ["team-"]}).status == 200
    assert admin.post("/api/clusters/member3/cordon", {"cordon": False}).status == 200
    assert not hub.json("get", "cluster", "member3")["spec"].get("taints")


def manifests(namespace: str) -> str:
    documents: list[dict[str, Any]] = [
        deployment("web", namespace=namespace, replicas=4),
        propagation_policy(
            "web",
            [resource_selector("Deployment", "web")],
            {
                "clusterAffinity": {"clusterNames": ["member1", "member2"]},
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                },
            },
            namespace=namespace,
        ),
    ]
    return "\n---\n".join(json.dumps(document) for document in documents)


def test_preview_then_apply_becomes_ready_per_cluster(admin: DashboardUser, hub: Kubectl, ns: str) -> None:
    """The preview shows flotilla plan's split and a clean dry run and creates nothing; apply then runs
    the Deployment Ready on both chosen members, as the workload list and its chain show."""
    text = manifests(ns)
    preview = admin.post("/api/preview", {"yaml": text})
    assert preview.status == 200, preview.body
    assert all(item["ok"] for item in preview.body["dryRun"]), preview.body["dryRun"]
    plan = preview.body["plan"]
    assert plan["ok"], plan
    (workload,) = [item for item in plan["plan"]["workloads"] if item["name"] == "web"]
    assert {target["name"]: target["replicas"] for target in workload["placement"]} == {
        "member1": 2,
        "member2": 2,
    }
    excluded = {item["name"]: item for item in workload["clusters"] if item["name"] == "member3"}
    assert excluded["member3"]["reason"], workload["clusters"]
    assert not hub.succeeds("get", "deployment", "web", "-n", ns)

    applied = admin.post("/api/apply", {"yaml": text})
    assert applied.status == 200 and all(item["ok"] for item in applied.body["results"]), applied.body

    def row() -> dict[str, Any] | None:
        items = admin.get(f"/api/workloads?namespace={ns}")["items"]
        return next((item for item in items if item["name"] == "web"), None)

    ready = eventually(
        row, until=lambda found: found is not None and found["state"] == "ready", timeout=60, what="web ready"
    )
    assert {c["name"]: (c["replicas"], c["health"]) for c in ready["clusters"]} == {
        "member1": (2, "Healthy"),
        "member2": (2, "Healthy"),
    }
    assert ready["policy"] == f"{ns}/web"
    filtered = admin.get(f"/api/workloads?state=ready&cluster=member1&search=we&namespace={ns}")
    assert [item["name"] for item in filtered["items"]] == ["web"] and filtered["total"] == 1
    detail = admin.get(f"/api/workloads/{ns}/{ready['binding']}")
    assert {work["namespace"] for work in detail["works"]} == {"karmada-es-member1", "karmada-es-member2"}
    members = {member["cluster"]: member for member in detail["members"]}
    assert not any(member["error"] for member in members.values()), members
    assert members["member1"]["object"]["readyReplicas"] == 2
    assert len(members["member2"]["pods"]) == 2


def test_a_read_only_user_sees_the_fleet_and_is_refused_a_write(
    dashboard: DashboardProcess, hub_ca: Path, viewer_token: str, hub: Kubectl
) -> None:
    """The viewer reads clusters; cordon and apply come back 403 from the hub's RBAC, unchanged."""
    viewer = DashboardUser(dashboard.url, hub_ca).sign_in(viewer_token)
    assert viewer.get("/api/session")["user"] == "system:serviceaccount:dashboard-viewers:viewer"
    assert len(viewer.get("/api/clusters")["items"]) == 3
    refused = viewer.post("/api/clusters/member1/cordon", {"cordon": True})
    assert refused.status == 403 and refused.body["reason"] == "Forbidden", refused.body
    assert not hub.json("get", "cluster", "member1")["spec"].get("taints")
    register = viewer.post("/api/clusters/register", {})
    assert register.status == 403


def test_an_unreachable_member_shows_on_the_clusters_page_and_the_timeline(
    admin: DashboardUser, federation: Federation
) -> None:
    """`flotilla sim fault --unreachable`: the cluster turns NotReady and the timeline says so."""
    federation.sim.fault("member2", "--unreachable")
    try:

        def state() -> str:
            rows = admin.get("/api/clusters")["items"]
            return next(row["state"] for row in rows if row["name"] == "member2")

        eventually(state, until=lambda found: found == "NotReady", timeout=30, what="member2 NotReady")
        entries = admin.get("/api/events?cluster=member2")["items"]
        assert any(entry["reason"] == "ClusterNotReady" for entry in entries), entries
        assert all(entry["cluster"] == "member2" for entry in entries)
    finally:
        federation.sim.fault("member2", "--recover")
        federation.wait_clusters_ready()


def test_unjoin_asks_for_the_name_and_join_takes_a_kubeconfig(
    admin: DashboardUser, federation: Federation, hub: Kubectl
) -> None:
    """Unjoin refuses without the typed name; done, then the member joins again from its kubeconfig text,
    and a Pull registration answers with the register command."""
    refused = admin.post("/api/clusters/member3/unjoin", {"confirm": "member"})
    assert refused.status == 422
    assert admin.post("/api/clusters/member3/unjoin", {"confirm": "member3"}).status == 200
    assert not hub.succeeds("get", "cluster", "member3")
    kubeconfig = federation.sim.kubeconfig("member3").read_text()
    joined = admin.post(
        "/api/clusters/join", {"name": "member3", "kubeconfig": kubeconfig, "region": "region-b"}
    )
    assert joined.status == 201, joined.body
    assert admin.post("/api/clusters/join", {"name": "member3", "kubeconfig": kubeconfig}).status == 409
    federation.wait_clusters_ready()
    command = admin.post("/api/clusters/register", {}).body["command"]
    assert (
        command.startswith("flotilla register 127.0.0.1:")
        and "--discovery-token-ca-cert-hash sha256:" in command
    )
