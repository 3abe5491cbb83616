"""The accurate estimator and the descheduler end to end, on members with small nodes.

A hub, four simulated Push members and the whole controller manager with its defaults (the
accurate estimator and the descheduler on) and a descheduler that looks every second at replicas
unschedulable for a second. `m1` has two nodes of 1.5 cpus, so its resource summary offers 3 cpus
while its nodes hold only two one-cpu replicas; `m2` has one node of 1 cpu. `m3` (8 cpus) and `m4`
(4 cpus) each have one node; `m3`'s is cordoned in a test, as an operator draining it would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.failover.clusterfailover import binding, event_items, events, metrics, sample, targets
from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    MemberCluster,
    deployment,
    propagation_policy,
    ready_on,
    resource_selector,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = (
    MemberCluster("m1", nodes=2, node_cpu="1500m"),
    MemberCluster("m2", nodes=1, node_cpu="1"),
    MemberCluster("m3", nodes=1, node_cpu="8"),
    MemberCluster("m4", nodes=1, node_cpu="4"),
)
ONE_CPU = {"cpu": "1"}
DESCHEDULE_FAST = ("--descheduling-interval", "1s", "--unschedulable-threshold", "1s")


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("descheduler")
    with Federation(root, MEMBERS, manager_args=[*FAST_CLUSTER_STATUS, *DESCHEDULE_FAST]) as federation:
        yield federation.start()


def aggregated_over(*clusters: str) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": list(clusters)},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
    }


def manifests(ns: str, name: str, replicas: int, placement: dict[str, Any]) -> list[dict[str, Any]]:
    policy = propagation_policy(name, [resource_selector("Deployment", name)], placement, namespace=ns)
    return [deployment(name, replicas, namespace=ns, requests=ONE_CPU), policy]


def scheduled(hub: Kubectl, ns: str, name: str) -> dict[str, int] | None:
    found = hub.json_or_none("get", "resourcebinding", f"{name}-deployment", "-n", ns)
    return None if found is None else targets(found)


def test_the_nodes_not_the_summary_decide_what_fits(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str, tmp_path: Path
) -> None:
    """m1's summary offers 3 cpus but its nodes hold 2 replicas: plan and scheduler put the third on m2."""
    summary = eventually(
        lambda: hub.json("get", "cluster", "m1").get("status", {}).get("resourceSummary"),
        what="m1's resource summary",
    )
    assert summary["allocatable"]["cpu"] == "3"  # the general estimator alone would fit 3 replicas on m1

    path = tmp_path / "batch.yaml"
    path.write_text(yaml.safe_dump_all(manifests(ns, "batch", 3, aggregated_over("m1", "m2"))))
    planned = federation.flotilla("plan", "-f", str(path))
    assert planned.returncode == 0, planned.stderr
    fields = dict(line.split(":", 1) for line in planned.stdout.splitlines() if not line.startswith(" "))
    assert fields["Available"].strip() == "m1: 2 (cpu), m2: 1 (cpu)"
    assert fields["Placement"].strip() == "m1:2, m2:1"
    row = next(line for line in planned.stdout.splitlines() if line.startswith("  m1 "))
    assert "room for 2 more replicas, limited by cpu on its nodes" in row

    hub("apply", "-f", str(path))
    placed = eventually(lambda: scheduled(hub, ns, "batch"), what="batch scheduled")
    assert placed == {"m1": 2, "m2": 1}
    eventually(lambda: template_ready(hub, ns, "batch") == "3/3", timeout=60, what="batch 3/3 ready")
    assert ready_on(members, ns, "batch") == {"m1": 2, "m2": 1}


def test_replicas_a_member_cannot_schedule_move_to_one_with_room(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str, tmp_path: Path
) -> None:
    """m3's node is cordoned and its pods recreated: they stay Unschedulable, the descheduler takes
    them back and the scheduler places them on m4, where the hub's Deployment becomes Ready."""
    path = tmp_path / "web.yaml"
    path.write_text(yaml.safe_dump_all(manifests(ns, "web", 2, aggregated_over("m3", "m4"))))
    hub("apply", "-f", str(path))
    assert eventually(lambda: scheduled(hub, ns, "web"), what="web scheduled") == {"m3": 2}
    eventually(lambda: template_ready(hub, ns, "web") == "2/2", timeout=60, what="web 2/2 ready on m3")

    m3 = members["m3"]
    m3("cordon", "m3-node-0")
    try:
        m3("delete", "pods", "-l", "app=web", "-n", ns, "--wait=false")
        moved = eventually(
            lambda: scheduled(hub, ns, "web"),
            until=lambda found: found == {"m4": 2},
            timeout=60,
            what="web on m4",
        )
        assert moved == {"m4": 2}
        eventually(lambda: template_ready(hub, ns, "web") == "2/2", timeout=60, what="web 2/2 ready on m4")
        assert ready_on(members, ns, "web") == {"m4": 2}
    finally:
        m3("uncordon", "m3-node-0")

    # The two recreated pods may turn Unschedulable in one descheduling pass or in two; either way
    # the descheduled replicas add up to the two that were on m3 (a repeated message is one Event
    # with a higher count).
    descheduled = event_items(hub, ns, "DescheduleBindingSucceed")
    replicas = 0
    for event in descheduled:
        found = re.search(r"(\d+) replica\(s\) in cluster\(m3\)", event["message"])
        assert found, event["message"]
        replicas += int(found[1]) * int(event.get("count") or 1)
    assert replicas == 2, [(event["message"], event.get("count")) for event in descheduled]
    on_template = events(hub, ns, "DescheduleBindingSucceed", kind="Deployment")
    assert on_template, "the template got no DescheduleBindingSucceed Event"
    failed = [e for e in m3.json("get", "events", "-n", ns)["items"] if e.get("reason") == "FailedScheduling"]
    assert failed and all("unschedulable" in e["message"] for e in failed), json.dumps(failed)[:500]
    assert binding(hub, ns, "web")["spec"]["clusters"] == [{"name": "m4", "replicas": 2}]
    assert sample(metrics(federation), "flotilla_descheduled_replicas_total", cluster="m3") == 2
