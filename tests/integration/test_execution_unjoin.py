"""Unjoining members that run propagated workloads: cleaned when reachable, never hanging when not.

A hub, a `flotilla sim` process with `sz` and `fz`, and the whole controller manager. A Deployment is
propagated to both; `flotilla unjoin sz` removes it from sz; `fz` is made unreachable and `flotilla
unjoin fz --force` completes without waiting for a member that will not answer.
"""

from __future__ import annotations

import time
from pathlib import Path

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

CLUSTERS = ("sz", "fz")


def test_unjoin_cleans_reachable_members_and_does_not_hang_on_unreachable_ones(tmp_path: Path) -> None:
    """A reachable member loses the workload on unjoin; an unreachable one is let go at once."""
    hub = ServerProcess(tmp_path / "hub").start()
    (tmp_path / "sim.yaml").write_text(
        yaml.safe_dump({"clusters": [{"name": n, "nodes": 1} for n in CLUSTERS]})
    )
    sim = SimProcess(tmp_path / "sim", ["--config", str(tmp_path / "sim.yaml"), "--pod-start-seconds", "0.1"])
    sim.start()
    manager = None
    try:
        for name in CLUSTERS:
            flotilla(
                "join",
                name,
                "--kubeconfig",
                str(hub.kubeconfig),
                "--cluster-kubeconfig",
                str(sim.kubeconfig(name)),
            )
        manager = ControllerManagerProcess(
            hub.kubeconfig,
            tmp_path / "logs",
            [
                "--cluster-status-interval",
                "1",
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                "2",
            ],
        ).start()
        kubectl = Kubectl(hub.kubeconfig, tmp_path / "cache")
        members = {name: Kubectl(sim.kubeconfig(name), tmp_path / f"cache-{name}") for name in CLUSTERS}
        kubectl("create", "namespace", "demo")
        kubectl.apply_yaml(
            [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "web", "namespace": "demo"},
                    "spec": {
                        "replicas": 1,
                        "selector": {"matchLabels": {"app": "web"}},
                        "template": {
                            "metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                        },
                    },
                },
                {
                    "apiVersion": "policy.karmada.io/v1alpha1",
                    "kind": "PropagationPolicy",
                    "metadata": {"name": "web", "namespace": "demo"},
                    "spec": {
                        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
                        "placement": {"clusterAffinity": {"clusterNames": list(CLUSTERS)}},
                    },
                },
            ]
        )

        def on(name: str) -> bool:
            return members[name].run("get", "deploy", "web", "-n", "demo", check=False).returncode == 0

        for name in CLUSTERS:
            wait_until(lambda name=name: on(name), timeout=60, message=f"propagated to {name}")

        flotilla("unjoin", "sz", "--kubeconfig", str(hub.kubeconfig), "--wait", "60")
        assert not on("sz")

        sim.fault("fz", "--unreachable")
        started = time.monotonic()
        flotilla("unjoin", "fz", "--kubeconfig", str(hub.kubeconfig), "--wait", "30", "--force")
        assert time.monotonic() - started < 30, "unjoin waited for the unreachable member until forced"
        assert kubectl.run("get", "cluster", "fz", check=False).returncode != 0
        assert kubectl.json("get", "works", "-n", "karmada-es-fz")["items"] == []
    finally:
        if manager is not None:
            manager.stop()
        sim.stop()
        hub.stop()
