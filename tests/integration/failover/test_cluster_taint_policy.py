"""ClusterTaintPolicy end to end: a hub, two simulated Push members, the cluster and policy controllers.

Only those two controllers run (`--controllers cluster,clustertaintpolicy`), with the short health
thresholds of the cluster controller's own test: a probe every half second, NotReady after one
second of failures, Ready again at once. `west` is made unreachable with `flotilla sim fault` and
recovered; `east` stays healthy throughout. Tests run in file order on shared processes; each
leaves `west` Ready and its taints as it found them. A second, bare API server started with
`--allow-no-execute-taint-policy=false` stands for Karmada's default.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import Federation, condition, members_named
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("east", "west")
MANAGER_ARGS = [
    "--controllers",
    "cluster,clustertaintpolicy",
    "--cluster-status-interval",
    "0.5",
    "--cluster-success-threshold",
    "0",
    "--cluster-failure-threshold",
    "1",
]
NOT_READY_NO_EXECUTE = ("cluster.karmada.io/not-ready", "NoExecute")
NOT_READY_NO_SCHEDULE = ("cluster.karmada.io/not-ready", "NoSchedule")
USER_TAINT = {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}


def taint_policy(name: str, **spec: Any) -> dict[str, Any]:
    """Karmada's documented failover policy: NoExecute not-ready while Ready is not True, off once it is."""
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterTaintPolicy",
        "metadata": {"name": name},
        "spec": {
            "addOnConditions": [{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}],
            "removeOnConditions": [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}],
            "taints": [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
            **spec,
        },
    }


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = members_named(*MEMBERS, nodes=1)
    with Federation(tmp_path_factory.mktemp("taints"), members, manager_args=MANAGER_ARGS) as federation:
        yield federation.start()


def cluster(hub: Kubectl, name: str) -> dict[str, Any]:
    found: dict[str, Any] = hub.json("get", "cluster", name)
    return found


def taints(obj: dict[str, Any]) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = (obj.get("spec") or {}).get("taints") or []
    return listed


def taint_keys(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["key"], t["effect"]) for t in taints(obj)]


def ready(obj: dict[str, Any]) -> bool:
    return condition(obj, "Ready").get("status") == "True"


def make_unreachable(hub: Kubectl, federation: Federation, name: str) -> dict[str, Any]:
    """Cut member `name` off and wait until the hub has it NotReady with the policy's taint."""
    federation.sim.fault(name, "--unreachable")

    def tainted() -> dict[str, Any] | None:
        found = cluster(hub, name)
        return found if not ready(found) and NOT_READY_NO_EXECUTE in taint_keys(found) else None

    return eventually(tainted, timeout=30, what=f"{name} NotReady and tainted NoExecute")


def recover(hub: Kubectl, federation: Federation, name: str) -> dict[str, Any]:
    """Reconnect member `name` and wait until the hub has it Ready without health taints."""
    federation.sim.fault(name, "--recover")

    def healthy() -> dict[str, Any] | None:
        found = cluster(hub, name)
        return found if ready(found) and NOT_READY_NO_SCHEDULE not in taint_keys(found) else None

    return eventually(healthy, timeout=30, what=f"{name} Ready again")


def test_an_unreachable_member_is_tainted_no_execute_and_untainted_on_recovery(
    hub: Kubectl, federation: Federation
) -> None:
    """The policy adds its NoExecute taint beside the health and user taints, and removes only its own."""
    hub("patch", "cluster", "west", "--type=merge", "-p", json.dumps({"spec": {"taints": [USER_TAINT]}}))
    hub.apply_yaml(taint_policy("not-ready-no-execute"))

    found = make_unreachable(hub, federation, "west")
    assert taint_keys(found)[0] == ("maintenance", "NoSchedule"), "the user's taint stays first"
    assert taints(found)[0] == USER_TAINT
    assert NOT_READY_NO_SCHEDULE in taint_keys(found), "the cluster controller's health taint beside it"
    added = next(t for t in taints(found) if (t["key"], t["effect"]) == NOT_READY_NO_EXECUTE)
    assert added.get("timeAdded"), "the policy stamps when it added the taint"
    assert NOT_READY_NO_EXECUTE not in taint_keys(cluster(hub, "east")), "a healthy member is left alone"
    events = hub.json("get", "events", "-n", "default", "--field-selector", "involvedObject.name=west")
    reasons = {event["reason"] for event in events["items"]}
    assert "TaintClusterSucceed" in reasons

    found = recover(hub, federation, "west")
    eventually(
        lambda: taint_keys(cluster(hub, "west")) == [("maintenance", "NoSchedule")],
        timeout=20,
        what="west back to the user's taint alone",
    )
    assert taints(cluster(hub, "west")) == [USER_TAINT]
    hub("patch", "cluster", "west", "--type=merge", "-p", '{"spec":{"taints":null}}')
    hub("delete", "clustertaintpolicy", "not-ready-no-execute")


def test_taints_of_a_deleted_policy_are_never_removed(hub: Kubectl, federation: Federation) -> None:
    """After its policy is deleted, west's recovery leaves the NoExecute taint where it was, as in Karmada.

    A second policy taints west `example.com/healthy` while it is Ready: seeing it come back proves
    the controller looked at the recovered cluster (with the first policy gone) and kept the taint.
    """
    healthy = taint_policy(
        "healthy-witness",
        targetClusters={"clusterNames": ["west"]},
        addOnConditions=[{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}],
        removeOnConditions=[{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}],
        taints=[{"key": "example.com/healthy", "effect": "NoSchedule"}],
    )
    hub.apply_yaml([healthy, taint_policy("only-west", targetClusters={"clusterNames": ["west"]})])
    witness = ("example.com/healthy", "NoSchedule")
    eventually(lambda: witness in taint_keys(cluster(hub, "west")), timeout=20, what="west tainted healthy")

    found = make_unreachable(hub, federation, "west")
    assert witness not in taint_keys(found), "removed while west is not Ready"
    hub("delete", "clustertaintpolicy", "only-west")
    recover(hub, federation, "west")
    found = eventually(
        lambda: cluster(hub, "west"),
        until=lambda c: witness in taint_keys(c),
        timeout=20,
        what="west tainted healthy again",
    )
    assert NOT_READY_NO_EXECUTE in taint_keys(found), "the deleted policy's taint stays"
    assert NOT_READY_NO_EXECUTE not in taint_keys(cluster(hub, "east")), "east was never targeted"
    hub("delete", "clustertaintpolicy", "healthy-witness")
    hub("patch", "cluster", "west", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_kubectl_apply_of_an_invalid_policy_is_refused_with_its_fields(hub: Kubectl) -> None:
    """422 Invalid naming each field: a duplicate taint in Karmada's words, an unknown operator."""
    bad = taint_policy(
        "bad",
        addOnConditions=[{"conditionType": "Ready", "operator": "Exists", "statusValues": ["True"]}],
        taints=[
            {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"},
            {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute", "value": "again"},
        ],
    )
    result = hub.run("apply", "-f", "-", input=json.dumps(bad), check=False)
    assert result.returncode != 0
    # kubectl prints a 422 Invalid Status as the kind, the name and one line per field cause.
    assert 'The ClusterTaintPolicy "bad" is invalid' in result.stderr
    assert (
        'spec.taints[0]: Duplicate value: "Duplicate taint with the same key(cluster.karmada.io/not-ready) '
        'and effect(NoExecute) is not allowed"'
    ) in result.stderr
    assert 'spec.addOnConditions[0].operator: Unsupported value: "Exists"' in result.stderr
    assert not hub.succeeds("get", "clustertaintpolicy", "bad")


def test_no_execute_needs_the_flag_where_it_is_off(tmp_path: Path) -> None:
    """`--allow-no-execute-taint-policy=false` (Karmada's default) refuses NoExecute, allows NoSchedule."""
    server = ServerProcess(tmp_path / "strict", extra_args=["--allow-no-execute-taint-policy=false"]).start()
    try:
        kubectl = Kubectl(server.kubeconfig, tmp_path / "cache")
        result = kubectl.run("apply", "-f", "-", input=json.dumps(taint_policy("strict")), check=False)
        assert result.returncode != 0
        assert "spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed" in (
            result.stderr
        )
        no_schedule = taint_policy(
            "gentle", taints=[{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}]
        )
        kubectl.apply_yaml(no_schedule)
    finally:
        assert server.stop() == 0
