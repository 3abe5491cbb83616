"""Search: a ResourceRegistry caches members' objects on the hub; the search API lists and watches them.

A hub with two Push members and one Pull member (read through its agent's tunnel), the controller
manager and the agent. Deployments are created in the members directly (no propagation needed);
kubectl reads them through `/apis/search.karmada.io/v1alpha1/search/cache/...` as Karmada documents
it, with `get --raw` and with `--server` pointed below `search/cache`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml

from tests.integration.federation import Federation, MemberCluster, condition, deployment
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PUSH1, PUSH2, PULL = "push1", "push2", "pull1"
SEARCH = "/apis/search.karmada.io/v1alpha1/search/cache"
ANNOTATION = "resource.karmada.io/cached-from-cluster"
REGISTRY = "everything"


def registry(name: str, clusters: list[str], *kinds: tuple[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "search.karmada.io/v1alpha1",
        "kind": "ResourceRegistry",
        "metadata": {"name": name},
        "spec": {
            "targetCluster": {"clusterNames": clusters},
            "resourceSelectors": [{"apiVersion": api_version, "kind": kind} for api_version, kind in kinds],
            **spec,
        },
    }


def synced(hub: Kubectl, name: str) -> dict[str, Any]:
    return condition(hub.json_or_none("get", "resourceregistry", name), "Synced")


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = [MemberCluster(PUSH1), MemberCluster(PUSH2), MemberCluster(PULL, sync_mode="Pull")]
    root = tmp_path_factory.mktemp("search")
    with Federation(root, members) as federation:
        federation.start()
        for name in federation.names:
            member = federation.member(name, root / f"{name}-cache")
            member.apply_yaml([deployment("web", 2), deployment(f"only-{name}", 1)])
        hub = federation.kubectl(root / "hub-cache")
        hub.apply_yaml(registry(REGISTRY, [PUSH1, PUSH2, PULL], ("apps/v1", "Deployment"), ("v1", "Pod")))
        eventually(
            lambda: synced(hub, REGISTRY).get("status") == "True", timeout=60, what="the registry is Synced"
        )
        yield federation


def raw(kubectl: Kubectl, path: str) -> Any:
    return json.loads(kubectl("get", "--raw", SEARCH + path))


def by_cluster(items: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(item["metadata"]["annotations"][ANNOTATION], item["metadata"]["name"]) for item in items}


def below_search(kubeconfig: Path, tmp_path: Path, name: str = "search") -> Kubectl:
    """kubectl with `kubeconfig`'s credentials, its server moved below `search/cache`."""
    config = yaml.safe_load(kubeconfig.read_text())
    for entry in config["clusters"]:
        entry["cluster"]["server"] = entry["cluster"]["server"].rstrip("/") + SEARCH
    moved = tmp_path / f"{name}.kubeconfig"
    moved.write_text(yaml.safe_dump(config))
    return Kubectl(moved, tmp_path / f"{name}-cache")


def test_a_list_spans_every_selected_cluster_push_and_pull(federation: Federation, tmp_path: Path) -> None:
    """Deployments of the three members, each annotated with its cluster (the Pull one through its tunnel)."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    listed = eventually(
        lambda: raw(hub, "/apis/apps/v1/deployments"),
        until=lambda answer: len(answer["items"]) == 6,
        what="six deployments",
    )
    assert listed["kind"] == "DeploymentList"
    assert by_cluster(listed["items"]) == {
        (cluster, name) for cluster in (PUSH1, PUSH2, PULL) for name in ("web", f"only-{cluster}")
    }
    assert int(listed["metadata"]["resourceVersion"]) > 0
    one = raw(hub, f"/apis/apps/v1/namespaces/default/deployments/only-{PULL}")
    assert by_cluster(one["items"]) == {(PULL, f"only-{PULL}")}
    same_name = raw(hub, "/apis/apps/v1/namespaces/default/deployments/web")
    assert {cluster for cluster, _ in by_cluster(same_name["items"])} == {PUSH1, PUSH2, PULL}
    status = synced(hub, REGISTRY)
    assert status["reason"] == "CacheSynced"


def test_a_label_selector_and_paging(federation: Federation, tmp_path: Path) -> None:
    """`app=web` picks the two pods of `web` in each member; `limit=2` pages through them all, once each."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    selected = eventually(
        lambda: raw(hub, "/api/v1/pods?labelSelector=app%3Dweb"),
        until=lambda answer: len(answer["items"]) == 6,
        what="six web pods",
    )
    assert {item["metadata"]["labels"]["app"] for item in selected["items"]} == {"web"}
    seen: list[tuple[str, str]] = []
    token = ""
    while True:
        page = raw(
            hub,
            "/api/v1/pods?labelSelector=app%3Dweb&limit=2" + (f"&continue={quote(token)}" if token else ""),
        )
        assert len(page["items"]) <= 2
        seen += sorted(by_cluster(page["items"]))
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert len(seen) == 6 and set(seen) == by_cluster(selected["items"])
    phases = raw(hub, "/api/v1/pods?fieldSelector=status.phase%3DRunning&labelSelector=app%3Donly-push1")
    assert by_cluster(phases["items"]) <= {(PUSH1, name) for _, name in by_cluster(phases["items"])}


def test_kubectl_below_search_cache_prints_a_cluster_column(federation: Federation, tmp_path: Path) -> None:
    """`kubectl --server .../search/cache get deployments -A` resolves kinds by the hub's discovery."""
    searching = below_search(federation.hub.kubeconfig, tmp_path)
    lines = searching("get", "deployments", "-A", "-l", "app=web").splitlines()
    assert lines[0].split()[:3] == ["NAMESPACE", "CLUSTER", "NAME"]
    assert sorted(line.split()[1] for line in lines[1:]) == [PULL, PUSH1, PUSH2]


def test_a_watch_sees_a_change_made_in_a_member(federation: Federation, tmp_path: Path) -> None:
    hub = federation.kubectl(tmp_path / "hub-cache")
    listed = raw(hub, "/apis/apps/v1/deployments")
    revision = listed["metadata"]["resourceVersion"]
    watcher = hub.popen(
        "get",
        "--raw",
        f"{SEARCH}/apis/apps/v1/deployments?watch=true&resourceVersion={revision}&timeoutSeconds=30",
    )
    try:
        member = federation.member(PUSH2, tmp_path / "member-cache")
        member("scale", "deployment", f"only-{PUSH2}", "--replicas=3")
        assert watcher.stdout is not None
        for line in watcher.stdout:
            event = json.loads(line)
            obj = event["object"]
            if obj["metadata"]["name"] == f"only-{PUSH2}" and obj["spec"]["replicas"] == 3:
                assert event["type"] == "MODIFIED"
                assert obj["metadata"]["annotations"][ANNOTATION] == PUSH2
                assert int(obj["metadata"]["resourceVersion"]) > int(revision)
                break
        else:
            pytest.fail("the watch ended without the change")
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)  # closes its pipes


def test_deselecting_a_cluster_drops_its_objects(federation: Federation, tmp_path: Path) -> None:
    hub = federation.kubectl(tmp_path / "hub-cache")
    hub.apply_yaml(registry("narrow", [PUSH1], ("v1", "ConfigMap")))
    member = federation.member(PUSH1, tmp_path / "member-cache")
    member("create", "configmap", "searched", "--from-literal=a=1")
    eventually(
        lambda: (PUSH1, "searched") in by_cluster(raw(hub, "/api/v1/configmaps")["items"]),
        what="the configmap is cached",
    )
    hub(
        "patch",
        "resourceregistry",
        "narrow",
        "--type=merge",
        "-p",
        '{"spec":{"targetCluster":{"clusterNames":["push2"]}}}',
    )
    eventually(
        lambda: all(cluster != PUSH1 for cluster, _ in by_cluster(raw(hub, "/api/v1/configmaps")["items"])),
        what="push1's configmaps are dropped",
    )
    hub("delete", "resourceregistry", "narrow")
    eventually(lambda: raw(hub, "/api/v1/configmaps")["items"] == [], what="every configmap is dropped")


def test_errors_are_status_bodies(federation: Federation, tmp_path: Path) -> None:
    hub = federation.kubectl(tmp_path / "hub-cache")
    """A bad selector is 400, a kind neither the hub nor any member cache serves is 404."""
    bad = hub.run("get", "--raw", SEARCH + "/api/v1/pods?labelSelector=app%20in%20web", check=False)
    assert bad.returncode != 0
    assert "Error from server (BadRequest)" in bad.stderr, bad.stderr
    unknown = hub.run("get", "--raw", SEARCH + "/apis/example.com/v1/widgets", check=False)
    assert unknown.returncode != 0
    assert "Error from server (NotFound)" in unknown.stderr, unknown.stderr
    other = hub.run(
        "get", "--raw", "/apis/search.karmada.io/v1alpha1/search/opensearch/api/v1/pods", check=False
    )
    assert "Error from server (NotFound)" in other.stderr, other.stderr


def test_a_user_without_search_access_is_refused(federation: Federation, tmp_path: Path) -> None:
    """RBAC on `search/api` and `search/apis` (kube's reading of the path) decides, as for karmada-search."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    hub("create", "serviceaccount", "searcher", "-n", "default")
    hub("create", "serviceaccount", "outsider", "-n", "default")
    hub.apply_yaml(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "search-reader"},
            "rules": [
                {
                    "apiGroups": ["search.karmada.io"],
                    "resources": ["search/api", "search/apis"],
                    "verbs": ["get"],
                }
            ],
        }
    )
    hub(
        "create",
        "clusterrolebinding",
        "searcher",
        "--clusterrole=search-reader",
        "--serviceaccount=default:searcher",
    )
    for user, allowed in (("searcher", True), ("outsider", False)):
        token = hub("create", "token", user, "-n", "default").strip()
        config = yaml.safe_load(federation.hub.kubeconfig.read_text())
        for entry in config["users"]:
            entry["user"] = {"token": token}
        path = tmp_path / f"{user}.kubeconfig"
        path.write_text(yaml.safe_dump(config))
        result = Kubectl(path, tmp_path / f"{user}-cache").run(
            "get", "--raw", SEARCH + "/api/v1/pods", check=False
        )
        if allowed:
            assert result.returncode == 0, result.stderr
        else:
            assert result.returncode != 0
            assert 'cannot get resource "search/api" in API group "search.karmada.io"' in result.stderr


def test_an_opensearch_backend_is_accepted_and_said_to_be_ignored(
    federation: Federation, tmp_path: Path
) -> None:
    hub = federation.kubectl(tmp_path / "hub-cache")
    backend = {
        "openSearch": {
            "addresses": ["http://10.0.0.1:9200"],
            "secretRef": {"namespace": "default", "name": "os"},
        }
    }
    hub.apply_yaml(registry("opensearch", [PUSH1], ("v1", "Service"), backendStore=backend))
    found = eventually(
        lambda: condition(hub.json("get", "resourceregistry", "opensearch"), "BackendStore"),
        what="a condition",
    )
    assert (found["status"], found["reason"]) == ("False", "OpenSearchNotSupported")
    refused = hub.run(
        "apply",
        "-f",
        "-",
        input=json.dumps(
            registry("bad", [PUSH1], ("v1", "Service"), backendStore={"openSearch": {"addresses": ["nope"]}})
        ),
        check=False,
    )
    assert refused.returncode != 0 and "spec.backendStore.openSearch.addresses[0]" in refused.stderr
    hub("delete", "resourceregistry", "opensearch")


def test_the_group_is_discoverable_and_explained(federation: Federation, tmp_path: Path) -> None:
    """Discovery lists resourceregistries and search (no verbs of its own); OpenAPI documents the group."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    resources = json.loads(hub("get", "--raw", "/apis/search.karmada.io/v1alpha1"))["resources"]
    assert {entry["name"] for entry in resources} >= {
        "resourceregistries",
        "resourceregistries/status",
        "search",
    }
    assert "targetCluster" in hub("explain", "resourceregistries.spec")
    assert json.loads(hub("get", "--raw", "/openapi/v3/apis/search.karmada.io/v1alpha1"))["paths"]


def test_kubectl_watches_below_search_cache(federation: Federation, tmp_path: Path) -> None:
    """`kubectl get -w` pointed below search/cache: a Table list, then the change a member makes, as rows."""
    searching = below_search(federation.hub.kubeconfig, tmp_path, "watching")
    watcher = searching.popen(
        "get", "deployments", "-A", "-w", "--field-selector", f"metadata.name=only-{PUSH1}"
    )
    try:
        assert watcher.stdout is not None
        assert watcher.stdout.readline().split()[:3] == ["NAMESPACE", "CLUSTER", "NAME"]
        assert watcher.stdout.readline().split()[1:3] == [PUSH1, f"only-{PUSH1}"]
        federation.member(PUSH1, tmp_path / "member-cache")(
            "scale", "deployment", f"only-{PUSH1}", "--replicas=2"
        )
        for line in watcher.stdout:
            cells = line.split()
            if cells[1:3] == [PUSH1, f"only-{PUSH1}"] and cells[3].endswith("/2"):
                break
        else:
            pytest.fail("the watch ended without the change")
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)
