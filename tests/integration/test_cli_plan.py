"""`flotilla plan` against a real hub, three simulated members and the controller manager.

The members are `member1`, `member2` (region-a) and `member3` (region-b), joined in Push mode. The
plan is compared with what the real scheduler writes once the same manifests are applied, and
checked to leave the hub untouched before that.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.federation import (
    Federation,
    MemberCluster,
    condition,
    deployment,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

REGIONS = {"member1": "region-a", "member2": "region-a", "member3": "region-b"}
TAINT_KEY = "cluster.karmada.io/unschedulable"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = [MemberCluster(name, region=region) for name, region in REGIONS.items()]
    with Federation(tmp_path_factory.mktemp("plan"), members) as federation:
        yield federation.start()


def plan(federation: Federation, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return federation.flotilla("plan", "--kubeconfig", str(federation.hub.kubeconfig), *args, input=stdin)


def policy(name: str, namespace: str, target: str, placement: dict[str, Any]) -> dict[str, Any]:
    selectors = [resource_selector("Deployment", target)]
    return propagation_policy(name, selectors, placement, namespace=namespace)


def divided_evenly() -> dict[str, Any]:
    return {
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    }


def write_manifests(path: Path, documents: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump_all(documents))
    return path


def binding_clusters(hub: Kubectl, namespace: str, name: str) -> list[dict[str, Any]] | None:
    binding = hub.json_or_none("get", "resourcebinding", f"{name}-deployment", "-n", namespace)
    if binding is None or condition(binding, "Scheduled").get("status") != "True":
        return None
    clusters: list[dict[str, Any]] | None = binding["spec"].get("clusters")
    return clusters


def test_plan_names_the_taint_and_matches_the_scheduler(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """A tainted member is excluded by TaintToleration with the taint named, and the real scheduler agrees."""
    hub(
        "patch",
        "cluster",
        "member3",
        "--type=merge",
        "-p",
        json.dumps({"spec": {"taints": [{"key": TAINT_KEY, "effect": "NoSchedule"}]}}),
    )
    try:
        manifests = write_manifests(
            tmp_path / "web.yaml",
            [deployment("web", 4, namespace=ns), policy("web", ns, "web", divided_evenly())],
        )
        text = plan(federation, "-f", str(manifests))
        assert text.returncode == 0, text.stderr
        rows = {line.split()[0]: line for line in text.stdout.splitlines() if line.startswith("  member")}
        assert (
            f"excluded by TaintToleration: cluster(s) had untolerated taint {{{TAINT_KEY}:NoSchedule}}"
            in (rows["member3"])
        )
        assert "placed" in rows["member1"] and "placed" in rows["member2"]
        assert f"PropagationPolicy {ns}/web (from the manifests)" in text.stdout

        planned = json.loads(plan(federation, "-f", str(manifests), "-o", "json").stdout)["workloads"]
        assert [(item["kind"], item["name"]) for item in planned] == [("Deployment", "web")]
        placement = planned[0]["placement"]
        assert sum(item["replicas"] for item in placement) == 4
        assert {item["name"] for item in placement} == {"member1", "member2"}

        # The plan created nothing: no template, no binding.
        assert hub.run("get", "deployment", "web", "-n", ns, check=False).returncode != 0
        assert hub.run("get", "resourcebinding", "web-deployment", "-n", ns, check=False).returncode != 0

        hub("apply", "-f", str(manifests))
        scheduled = eventually(lambda: binding_clusters(hub, ns, "web"), timeout=30, what="binding scheduled")
        assert scheduled in [placement, planned[0].get("alternativePlacement")]
    finally:
        hub("patch", "cluster", "member3", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_plan_of_an_existing_workload_shows_the_change(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """After an apply, an unchanged plan keeps the placement and a narrower policy shows what moves."""
    placement = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}, **divided_evenly()}
    manifests = write_manifests(
        tmp_path / "api.yaml", [deployment("api", 2, namespace=ns), policy("api", ns, "api", placement)]
    )
    hub("apply", "-f", str(manifests))
    current = eventually(lambda: binding_clusters(hub, ns, "api"), timeout=30, what="binding scheduled")
    assert current == [{"name": "member1", "replicas": 1}, {"name": "member2", "replicas": 1}]

    unchanged = json.loads(plan(federation, "-f", str(manifests), "-o", "json").stdout)["workloads"][0]
    assert unchanged["rescheduled"] is False
    assert unchanged["placement"] == unchanged["currentPlacement"] == current

    # The policy as the hub serves it (server fields and all), edited, on standard input.
    live_policy = hub.json("get", "propagationpolicy", "api", "-n", ns)
    live_policy["spec"]["placement"]["clusterAffinity"]["clusterNames"] = ["member2"]
    text = plan(federation, "-f", "-", stdin=json.dumps(live_policy))
    assert text.returncode == 0, text.stderr
    assert "deployment.apps/api" in text.stdout
    fields = dict(line.split(":", 1) for line in text.stdout.splitlines() if not line.startswith(" "))
    assert fields["Change"].strip() == "member1 1 -> none, member2 1 -> 2"
    member1 = next(line for line in text.stdout.splitlines() if line.startswith("  member1"))
    assert "excluded by ClusterAffinity" in member1 and "not in clusterNames [member2]" in member1
    # Still nothing changed on the hub.
    assert binding_clusters(hub, ns, "api") == current


def test_plan_without_a_policy_and_with_a_spread_error(
    federation: Federation, ns: str, tmp_path: Path
) -> None:
    """No policy: not propagated; an unmeetable spread: the scheduler's error; defaults: the hub's."""
    spread = {
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 3, "maxGroups": 3},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 3},
        ],
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
    }
    manifests = write_manifests(
        tmp_path / "mixed.yaml",
        [
            deployment("lonely", 1, namespace=ns),
            deployment("spread", None, namespace=ns),
            policy("spread", ns, "spread", spread),
            deployment("elsewhere", 2, namespace="not-created-yet"),
        ],
    )
    result = plan(federation, "-f", str(manifests), "-o", "yaml")
    assert result.returncode == 0, result.stderr
    lonely, spreading, elsewhere = yaml.safe_load(result.stdout)["workloads"]
    assert lonely["policy"] is None
    assert lonely["unplanned"] == "no policy matches: would not be propagated"
    assert spreading["scheduled"]["status"] == "False"
    assert spreading["scheduled"]["reason"] == "SchedulerError"
    assert "less than spreadConstraint.MinGroups" in spreading["scheduled"]["message"]
    assert spreading["placement"] == []
    assert spreading["replicas"] == 1  # the hub's default, from the dry run
    assert elsewhere["notes"] == [
        'planned as written, without the hub\'s defaults: namespaces "not-created-yet" not found'
    ]


def fnv32a(text: str) -> int:
    """FNV-1a, 32-bit (Go's hash/fnv New32a), written here apart from the scheduler's own."""
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def test_plan_states_how_the_template_uid_broke_the_tie(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """3 replicas over two equal members: the member Karmada's rule picks by the template's uid (not
    the binding's) runs 2, and plan names that member, the parity and the uid."""
    placement = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}, **divided_evenly()}
    for attempt in range(10):  # until the two uids' parities differ, so only the right one can pass
        name = f"tie{attempt}"
        manifests = write_manifests(
            tmp_path / f"{name}.yaml", [deployment(name, 3, namespace=ns), policy(name, ns, name, placement)]
        )
        hub("apply", "-f", str(manifests))
        scheduled = eventually(
            lambda name=name: binding_clusters(hub, ns, name), timeout=30, what="scheduled"
        )
        template_uid = hub.json("get", "deployment", name, "-n", ns)["metadata"]["uid"]
        binding_uid = hub.json("get", "resourcebinding", f"{name}-deployment", "-n", ns)["metadata"]["uid"]
        if fnv32a(template_uid) % 2 != fnv32a(binding_uid) % 2:
            break
    else:
        pytest.fail("ten templates and their bindings all had uids of the same parity")
    odd = fnv32a(template_uid) % 2 == 1
    favoured, other = ("member2", "member1") if odd else ("member1", "member2")
    assert {item["name"]: item["replicas"] for item in scheduled} == {favoured: 2, other: 1}

    text = plan(federation, "-f", str(manifests))
    assert text.returncode == 0, text.stderr
    tie = next(line for line in text.stdout.splitlines() if line.startswith("Tie break:"))
    assert f"{favoured} gets the tied replica" in tie
    assert f"template's uid {template_uid} is {'odd' if odd else 'even'}" in tie
    document = json.loads(plan(federation, "-f", str(manifests), "-o", "json").stdout)["workloads"][0]
    assert document["tieBreak"]["templateUID"] == template_uid
    assert document["tieBreak"]["order"] == ("descending" if odd else "ascending")
    assert document["tieBreak"]["favoured"] == [favoured]


def test_plan_names_the_workload_anti_affinity_peer_it_avoids(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """`primary` of `app.ha=ha` runs on member1: a planned `standby` of the group is excluded there by
    WorkloadAntiAffinity with the peer named, and `standby2`, planned after it, avoids both."""
    apart = {"workloadAffinity": {"antiAffinity": {"groupByLabelKey": "app.ha"}}}
    one_cluster = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]}

    def grouped(name: str) -> dict[str, Any]:
        body = deployment(name, 1, namespace=ns)
        body["metadata"]["labels"]["app.ha"] = "ha"
        return body

    pinned = {"clusterAffinity": {"clusterNames": ["member1"]}, **apart}
    hub(
        "apply",
        "-f",
        str(
            write_manifests(
                tmp_path / "primary.yaml", [grouped("primary"), policy("primary", ns, "primary", pinned)]
            )
        ),
    )
    eventually(
        lambda: binding_clusters(hub, ns, "primary") == [{"name": "member1", "replicas": 1}],
        timeout=30,
        what="primary on member1",
    )
    standbys = write_manifests(
        tmp_path / "standby.yaml",
        [
            grouped("standby"),
            policy("standby", ns, "standby", {**one_cluster, **apart}),
            grouped("standby2"),
            policy("standby2", ns, "standby2", {**one_cluster, **apart}),
        ],
    )
    text = plan(federation, "-f", str(standbys))
    assert text.returncode == 0, text.stderr
    blocks = text.stdout.split("\n\n")
    rows = {line.split()[0]: line for line in blocks[0].splitlines() if line.startswith("  member")}
    assert (
        "excluded by WorkloadAntiAffinity: cluster already has workload with the same anti-affinity group: "
        "anti-affinity group app.ha=ha runs here: primary-deployment"
    ) in rows["member1"]
    planned = json.loads(plan(federation, "-f", str(standbys), "-o", "json").stdout)["workloads"]
    first, second = (workload["placement"][0]["name"] for workload in planned)
    assert "member1" not in (first, second) and first != second
    second_rows = {item["name"]: item for item in planned[1]["clusters"]}
    assert second_rows[first]["plugin"] == "WorkloadAntiAffinity"
    assert second_rows[first]["reason"].endswith("runs here: standby-deployment")

    hub("apply", "-f", str(standbys))
    placed = [
        eventually(lambda name=name: binding_clusters(hub, ns, name), timeout=30, what=f"{name} scheduled")
        for name in ("standby", "standby2")
    ]
    assert sorted(clusters[0]["name"] for clusters in placed) == ["member2", "member3"]


def healthy_everywhere(hub: Kubectl, ns: str, name: str) -> bool:
    """The binding is scheduled and every cluster of it reports the workload Healthy."""
    binding = hub.json_or_none("get", "resourcebinding", f"{name}-deployment", "-n", ns) or {}
    clusters = {item["name"] for item in (binding.get("spec") or {}).get("clusters") or []}
    reported = (binding.get("status") or {}).get("aggregatedStatus") or []
    healthy = {item["clusterName"] for item in reported if item.get("health") == "Healthy"}
    return bool(clusters) and clusters == healthy


def resource_versions(hub: Kubectl, ns: str) -> dict[str, str]:
    """resourceVersion of every binding in `ns` and of every Cluster, by kind/name."""
    objects = [
        *hub.json("get", "resourcebindings", "-n", ns)["items"],
        *hub.json("get", "clusters")["items"],
    ]
    return {f"{obj['kind']}/{obj['metadata']['name']}": obj["metadata"]["resourceVersion"] for obj in objects}


def quiet(read: Callable[[], dict[str, str]], seconds: float) -> dict[str, str]:
    """The value of `read()` once it has stayed the same for `seconds` (the controllers are done writing)."""
    last: dict[str, Any] = {"value": read(), "since": time.monotonic()}

    def settled() -> dict[str, str] | None:
        value = read()
        if value != last["value"]:
            last.update(value=value, since=time.monotonic())
            return None
        return value if time.monotonic() - last["since"] >= seconds else None

    return eventually(settled, timeout=60, what=f"no write for {seconds}s")


def test_plan_taint_names_the_moved_replicas_and_writes_nothing(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """A NoExecute what-if on member2: the Divided workload leaves it now, the Duplicated one that
    tolerates it for 300s after that; no binding or Cluster is written, nothing is tainted."""
    pair = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}}
    tolerated = {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    manifests = write_manifests(
        tmp_path / "resident.yaml",
        [
            deployment("web", 4, namespace=ns),
            policy("web", ns, "web", {**pair, **divided_evenly()}),
            deployment("cache", 1, namespace=ns),
            policy("cache", ns, "cache", {**pair, "clusterTolerations": [tolerated]}),
        ],
    )
    hub("apply", "-f", str(manifests))
    eventually(
        lambda: all(healthy_everywhere(hub, ns, name) for name in ("web", "cache")),
        timeout=60,
        what="healthy",
    )
    before = quiet(lambda: resource_versions(hub, ns), seconds=3)

    result = plan(federation, "--taint", "member2=maintenance:NoExecute", "-o", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["taints"] == [
        {"cluster": "member2", "key": "maintenance", "effect": "NoExecute", "new": True}
    ]
    ours = {item["name"]: item for item in document["bindings"] if item.get("namespace") == ns}
    web, cache = ours["web-deployment"], ours["cache-deployment"]
    assert web["before"] == [{"name": "member1", "replicas": 2}, {"name": "member2", "replicas": 2}]
    assert web["after"] == [{"name": "member1", "replicas": 4}]
    assert [(e["cluster"], e["when"], e["replicas"]) for e in web["evictions"]] == [("member2", "now", 2)]
    assert [(e["cluster"], e["when"], e.get("afterSeconds")) for e in cache["evictions"]] == [
        ("member2", "after", 300)
    ]
    assert cache["after"] == [{"name": "member1", "replicas": 1}]

    text = plan(federation, "--taint", "member2=maintenance:NoExecute")
    assert text.returncode == 0, text.stderr
    assert f"Binding:    ResourceBinding {ns}/web-deployment" in text.stdout
    assert "Eviction:   member2 now: maintenance:NoExecute is not tolerated" in text.stdout
    assert "Change:     member1 2 -> 4, member2 2 -> none" in text.stdout
    assert "Eviction:   member2 after 300s: " in text.stdout

    # With manifests: a new workload is planned with the taint in place, and still nothing is written.
    fresh = write_manifests(
        tmp_path / "fresh.yaml",
        [deployment("fresh", 3, namespace=ns), policy("fresh", ns, "fresh", divided_evenly())],
    )
    with_manifests = plan(
        federation, "-f", str(fresh), "--taint", "member2=maintenance:NoExecute", "-o", "json"
    )
    assert with_manifests.returncode == 0, with_manifests.stderr
    planned = next(
        item for item in json.loads(with_manifests.stdout)["bindings"] if item["name"] == "fresh-deployment"
    )
    assert planned["source"] == "manifests"
    assert "member2" not in {item["name"] for item in planned["after"]}
    assert sum(item["replicas"] for item in planned["after"]) == 3

    assert resource_versions(hub, ns) == before
    assert not hub.json("get", "cluster", "member2")["spec"].get("taints")
    assert hub.run("get", "deployment", "fresh", "-n", ns, check=False).returncode != 0


def test_plan_taint_on_an_unknown_cluster_is_a_one_line_error(federation: Federation) -> None:
    """A --taint on a cluster the hub does not have: exit code 1 and the clusters it has."""
    result = plan(federation, "--taint", "member9=maintenance:NoExecute")
    assert result.returncode == 1
    assert result.stderr == (
        'Error: invalid --taint "member9=maintenance:NoExecute": cluster "member9" not found '
        "(the hub has member1, member2, member3)\n"
    )
