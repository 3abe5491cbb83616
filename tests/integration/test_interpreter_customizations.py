"""ResourceInterpreterCustomizations end to end: a custom kind split by replicas, its status aggregated.

A hub, a controller manager and two simulated members (Push). The kind `Fleet` (apps.example.io/v1)
is unknown to the built-in interpreter; a customization in Karmada's shape (the unit tests' own,
`tests/unit/interpreter/lua/customizations.py`) tells the hub its replicas (GetReplicas), how to
give each member its share (ReviseReplica), how to read a member's status (ReflectStatus) and health
(InterpretHealth), and how to fold the members' statuses (AggregateStatus). No controller runs Fleets
in the members, so the test plays the member's controller by writing each copy's status.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    MemberCluster,
    custom_resource_definition,
    propagation_policy,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually
from tests.unit.interpreter.lua.customizations import FLEET_API_VERSION, fleet, fleet_customization

pytestmark = pytest.mark.kubectl

GROUP = "apps.example.io"
FLEETS = f"fleets.{GROUP}"
MEMBERS = ("m1", "m2")
FAILING_HEALTH = "function InterpretHealth(obj)\n  local spec = obj.spec\n  return spec.missing.ready\nend"
SCHEMA = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def fleet_crd() -> dict[str, Any]:
    return custom_resource_definition(GROUP, "Fleet", SCHEMA, subresources={"status": {}})


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("customizations")
    with Federation(root, [MemberCluster(name) for name in MEMBERS]) as federation:
        federation.start()
        # The customization first: the controllers' informer has it long before a Fleet exists.
        kubectls = [federation.kubectl(root / "cache-hub")]
        kubectls[0].apply_yaml(fleet_customization())
        kubectls += [federation.member(name, root / f"cache-{name}") for name in MEMBERS]
        for kubectl in kubectls:
            kubectl.apply_yaml(fleet_crd())
        for kubectl in kubectls:
            kubectl("wait", "--for=condition=established", f"crd/{FLEETS}", "--timeout=20s")
        # The scheduler places a kind only on clusters whose API enablements list it.
        eventually(
            lambda: all(serves_fleets(kubectls[0], name) for name in MEMBERS),
            timeout=30,
            what="Fleets in both members' API enablements",
        )
        yield federation


def serves_fleets(hub: Kubectl, cluster: str) -> bool:
    enablements = hub.json("get", "cluster", cluster).get("status", {}).get("apiEnablements") or []
    return any(
        enablement.get("groupVersion") == FLEET_API_VERSION
        and any(resource.get("kind") == "Fleet" for resource in enablement.get("resources") or [])
        for enablement in enablements
    )


def member_fleets(members: dict[str, Kubectl], ns: str) -> dict[str, dict[str, Any]]:
    found = {name: kubectl.json_or_none("get", FLEETS, "web", "-n", ns) for name, kubectl in members.items()}
    return {name: obj for name, obj in found.items() if obj is not None}


def set_member_ready(member: Kubectl, ns: str, ready: int) -> None:
    """What a member's Fleet controller would do: report its ready replicas."""
    patch = json.dumps({"status": {"readyReplicas": ready}})
    member("patch", FLEETS, "web", "-n", ns, "--subresource=status", "--type=merge", "-p", patch)


def fleet_on_hub(ns: str) -> tuple[dict[str, Any], dict[str, Any]]:
    template = fleet(replicas=4)
    template["metadata"] = {"name": "web"}
    placement = {
        "clusterAffinity": {"clusterNames": list(MEMBERS)},
        "replicaScheduling": static_weights({"m1": 1, "m2": 1}),
    }
    policy = propagation_policy("fleet", [resource_selector("Fleet", "web", FLEET_API_VERSION)], placement)
    return template, policy


def test_a_custom_kind_is_divided_by_replicas_and_its_status_aggregated(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """GetReplicas sizes the binding, ReviseReplica gives each member 2 of 4, and the members'
    reflected statuses fold into the template's status; each member's copy is Healthy when ready."""
    hub.apply_yaml(list(fleet_on_hub(ns)), "-n", ns)
    binding = eventually(
        lambda: hub.json_or_none("get", "rb", "web-fleet", "-n", ns), timeout=20, what="fleet bound"
    )
    eventually(
        lambda: hub.json("get", "rb", "web-fleet", "-n", ns)["spec"].get("replicas") == 4,
        what="replicas from GetReplicas",
    )
    binding = hub.json("get", "rb", "web-fleet", "-n", ns)
    assert binding["spec"]["replicaRequirements"]["resourceRequest"] == {"cpu": "250m", "memory": "64Mi"}
    eventually(
        lambda: (
            {name: obj["spec"]["replicas"] for name, obj in member_fleets(members, ns).items()}
            == {"m1": 2, "m2": 2}
        ),
        timeout=30,
        what="2 replicas on each member (ReviseReplica)",
    )
    set_member_ready(members["m1"], ns, 2)
    set_member_ready(members["m2"], ns, 1)

    def aggregated() -> Any:
        return (hub.json("get", FLEETS, "web", "-n", ns).get("status") or {}).get("readyReplicas")

    eventually(lambda: aggregated() == 3, timeout=30, what="readyReplicas 3 folded on the hub")
    status = hub.json("get", FLEETS, "web", "-n", ns)["status"]
    assert sorted(status["clusters"]) == ["m1", "m2"]

    def health() -> dict[str, str]:
        items = hub.json("get", "rb", "web-fleet", "-n", ns).get("status", {}).get("aggregatedStatus") or []
        return {item["clusterName"]: item.get("health", "") for item in items}

    eventually(lambda: health() == {"m1": "Healthy", "m2": "Unhealthy"}, timeout=30, what="health per member")
    set_member_ready(members["m2"], ns, 2)
    eventually(lambda: health() == {"m1": "Healthy", "m2": "Healthy"}, timeout=30, what="m2 healthy")
    eventually(lambda: aggregated() == 4, timeout=30, what="readyReplicas 4")


def test_a_script_that_does_not_compile_is_refused_with_its_line(hub: Kubectl) -> None:
    """422 at the script's field path with Lua's message and line."""
    broken = fleet_customization(
        "broken", healthInterpretation="function InterpretHealth(obj)\n  return obj.status ==\nend"
    )
    broken["spec"]["target"]["kind"] = "OtherFleet"
    answer = hub.run("apply", "-f", "-", check=False, input=json.dumps(broken))
    assert answer.returncode != 0
    assert "spec.customizations.healthInterpretation.luaScript" in answer.stderr
    assert "luaScript:3: unexpected symbol near 'end'" in answer.stderr


def test_a_second_customization_of_the_same_operation_is_refused(hub: Kubectl) -> None:
    """One script per target and operation across customizations, as Karmada's webhook checks."""
    second = fleet_customization("fleet-again", replicaResource="", dependencyInterpretation="")
    answer = hub.run("apply", "-f", "-", check=False, input=json.dumps(second))
    assert answer.returncode != 0
    assert "conflicting with InterpreterOperation(InterpretHealth) of existing" in answer.stderr
    dependencies_only = {
        **second,
        "metadata": {"name": "fleet-dependencies"},
        "spec": {
            "target": second["spec"]["target"],
            "customizations": {
                "dependencyInterpretation": {"luaScript": "function GetDependencies(o) return {} end"}
            },
        },
    }
    hub.apply_yaml(dependencies_only)
    hub("delete", "ric", "fleet-dependencies")


def test_a_failing_script_is_reported_and_the_manager_keeps_going(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A runtime error in InterpretHealth: a Warning Event on the customization naming the operation
    and the line, health Unknown, and the other operations (and controllers) keep working."""
    hub.apply_yaml(list(fleet_on_hub(ns)), "-n", ns)
    eventually(lambda: len(member_fleets(members, ns)) == 2, timeout=30, what="fleets on both members")
    failing = fleet_customization(healthInterpretation=FAILING_HEALTH)
    hub.apply_yaml(failing)
    try:
        set_member_ready(members["m1"], ns, 2)

        def events() -> list[dict[str, Any]]:
            found = hub.json(
                "get", "events", "-n", "default", "--field-selector", "involvedObject.name=fleet"
            )["items"]
            return [event for event in found if event["reason"] == "InterpreterOperationFailed"]

        event = eventually(events, timeout=30, what="an InterpreterOperationFailed event")[0]
        assert event["type"] == "Warning"
        assert "InterpreterOperation(InterpretHealth) failed" in event["message"]
        assert "luaScript:3: attempt to index field 'missing' (a nil value)" in event["message"]

        def m1_health() -> str:
            items = (
                hub.json("get", "rb", "web-fleet", "-n", ns).get("status", {}).get("aggregatedStatus") or []
            )
            return next((item.get("health", "") for item in items if item["clusterName"] == "m1"), "")

        eventually(lambda: m1_health() == "Unknown", timeout=30, what="health Unknown on m1")
        # Status still folds (AggregateStatus is fine), and the manager is alive.
        eventually(
            lambda: (hub.json("get", FLEETS, "web", "-n", ns).get("status") or {}).get("readyReplicas") == 2,
            timeout=30,
            what="status still aggregated",
        )
        assert federation.manager.process is not None and federation.manager.process.poll() is None
    finally:
        hub.apply_yaml(fleet_customization())


def test_flotilla_interpret_runs_the_hubs_customizations(federation: Federation, tmp_path: Path) -> None:
    """`--from-hub` reads the hub's customizations (KUBECONFIG names the hub) and runs them offline."""
    observed = tmp_path / "fleet.yaml"
    observed.write_text(json.dumps(fleet(replicas=6)), encoding="utf-8")
    answer = federation.flotilla(
        "interpret", "--from-hub", "--operation", "interpretReplica", "--observed-file", str(observed)
    )
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split("\n")[:3] == ["---", "# [1/2] replica:", "6"]
