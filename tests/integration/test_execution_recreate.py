"""Member objects deleted behind Flotilla's back come back: while the manager runs, and after a restart.

A hub, a `flotilla sim` process with one member and a controller manager (without leader election,
so a restarted manager acts at once). The member's own kubeconfig deletes what the hub delivered.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.harness import (
    ControllerManagerProcess,
    Kubectl,
    ServerProcess,
    SimProcess,
    flotilla,
    wait_until,
)

pytestmark = pytest.mark.kubectl

CLUSTER = "solo"
MANAGER_FLAGS = [
    "--cluster-status-interval",
    "1",
    "--cluster-success-threshold",
    "0",
    "--cluster-failure-threshold",
    "2",
    "--leader-elect=false",
]


def workload(name: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"},
            "data": {"greeting": "hello"},
        },
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": name}],
                "placement": {"clusterAffinity": {"clusterNames": [CLUSTER]}},
            },
        },
    ]


def member_uid(member: Kubectl, name: str) -> str:
    result = member.run("get", "configmap", name, "-n", "default", "-o", "yaml", check=False)
    return str(yaml.safe_load(result.stdout)["metadata"]["uid"]) if result.returncode == 0 else ""


def test_deleted_member_objects_are_recreated_while_running_and_after_a_restart(tmp_path: Path) -> None:
    """A member object deleted by hand comes back, also when it was deleted while the manager was down."""
    hub_process = ServerProcess(tmp_path / "hub").start()
    (tmp_path / "sim.yaml").write_text(yaml.safe_dump({"clusters": [{"name": CLUSTER, "nodes": 1}]}))
    sim = SimProcess(tmp_path / "sim", ["--config", str(tmp_path / "sim.yaml")]).start()
    manager = None
    try:
        flotilla(
            "join",
            CLUSTER,
            "--kubeconfig",
            str(hub_process.kubeconfig),
            "--cluster-kubeconfig",
            str(sim.kubeconfig(CLUSTER)),
        )
        manager = ControllerManagerProcess(hub_process.kubeconfig, tmp_path / "logs", MANAGER_FLAGS).start()
        hub = Kubectl(hub_process.kubeconfig, tmp_path / "cache")
        member = Kubectl(sim.kubeconfig(CLUSTER), tmp_path / "cache-member")
        hub("apply", "-f", "-", input=yaml.safe_dump_all(workload("greeting")))
        original = wait_until(lambda: member_uid(member, "greeting"), message="delivered")

        member("delete", "configmap", "greeting", "-n", "default")
        recreated = wait_until(
            lambda: member_uid(member, "greeting") not in ("", original) and member_uid(member, "greeting"),
            message="re-created while the manager runs",
        )

        manager.stop(signal.SIGKILL)
        member("delete", "configmap", "greeting", "-n", "default")
        manager = ControllerManagerProcess(hub_process.kubeconfig, tmp_path / "logs", MANAGER_FLAGS).start()
        wait_until(
            lambda: member_uid(member, "greeting") not in ("", original, recreated),
            message="re-created after a restart",
        )
    finally:
        if manager is not None:
            manager.stop()
        sim.stop()
        hub_process.stop()
