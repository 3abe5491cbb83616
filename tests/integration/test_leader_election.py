"""Leader election between controller managers: one hub, one simulated member, managers as processes.

The managers run with short terms (lease 3 s, renew deadline 2 s, retry 0.5 s) so that takeovers
happen within seconds; the Lease is `kube-system/flotilla-controller-manager`.
"""

from __future__ import annotations

import re
import signal
import time
import urllib.error
import urllib.request
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
LEASE_SECONDS = 3.0
ELECTION_FLAGS = [
    "--cluster-status-interval",
    "1",
    "--cluster-success-threshold",
    "0",
    "--cluster-failure-threshold",
    "2",
    "--leader-elect-lease-duration",
    f"{LEASE_SECONDS:g}s",
    "--leader-elect-renew-deadline",
    "2s",
    "--leader-elect-retry-period",
    "500ms",
]
HEALTH = re.compile(r"running \(health: (\S+)\)")
IDENTITY = re.compile(r"event='controller_manager.started'.*identity='([^']+)'")


def health_url(manager: ControllerManagerProcess) -> str:
    match = HEALTH.search(manager.log())
    assert match, manager.log()
    return match.group(1)


def identity(manager: ControllerManagerProcess) -> str:
    match = wait_until(lambda: IDENTITY.search(manager.log()), timeout=10, message="identity logged")
    return str(match.group(1))


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def is_leader_metric(manager: ControllerManagerProcess) -> str:
    _, text = get(health_url(manager) + "/metrics")
    match = re.search(r"^flotilla_leader_is_leader (\d+)$", text, re.MULTILINE)
    assert match, text
    return match.group(1)


def lease(hub: Kubectl) -> dict[str, Any]:
    found = hub.json("get", "lease", "-n", "kube-system", "flotilla-controller-manager")
    return dict(found["spec"])


def workload(name: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        },
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
                "placement": {"clusterAffinity": {"clusterNames": [CLUSTER]}},
            },
        },
    ]


def on_member(member: Kubectl, name: str) -> bool:
    return member.run("get", "deploy", name, "-n", "default", check=False).returncode == 0


def test_one_manager_leads_a_standby_takes_over_and_a_lost_lease_ends_the_leader(tmp_path: Path) -> None:
    """Only the holder acts; kill -9 hands over within a lease, SIGTERM at once; a lost Lease exits 1."""
    hub_process = ServerProcess(tmp_path / "hub").start()
    (tmp_path / "sim.yaml").write_text(yaml.safe_dump({"clusters": [{"name": CLUSTER, "nodes": 1}]}))
    sim = SimProcess(tmp_path / "sim", ["--config", str(tmp_path / "sim.yaml"), "--pod-start-seconds", "0.1"])
    sim.start()
    managers: list[ControllerManagerProcess] = []
    try:
        flotilla(
            "join",
            CLUSTER,
            "--kubeconfig",
            str(hub_process.kubeconfig),
            "--cluster-kubeconfig",
            str(sim.kubeconfig(CLUSTER)),
        )
        hub = Kubectl(hub_process.kubeconfig, tmp_path / "cache")
        member = Kubectl(sim.kubeconfig(CLUSTER), tmp_path / "cache-member")

        first = ControllerManagerProcess(hub_process.kubeconfig, tmp_path / "logs-a", ELECTION_FLAGS).start()
        managers.append(first)
        wait_until(lambda: lease(hub).get("holderIdentity") == identity(first), message="first leads")
        second = ControllerManagerProcess(hub_process.kubeconfig, tmp_path / "logs-b", ELECTION_FLAGS).start()
        managers.append(second)

        # Only the holder acts: it turns ready and propagates; the standby stays unready and idle.
        wait_until(lambda: get(health_url(first) + "/readyz")[0] == 200, message="leader ready")
        hub("apply", "-f", "-", input=yaml.safe_dump_all(workload("before")))
        wait_until(lambda: on_member(member, "before"), message="propagated by the leader")
        status, reason = get(health_url(second) + "/readyz")
        assert status == 503 and "not the leader" in reason
        assert get(health_url(second) + "/healthz")[0] == 200
        assert (is_leader_metric(first), is_leader_metric(second)) == ("1", "0")
        assert "controller_manager.controllers_started" not in second.log()
        assert lease(hub).get("holderIdentity") == identity(first)

        # kill -9 of the leader: the standby takes over once the lease has run out, and acts.
        transitions = int(lease(hub).get("leaseTransitions") or 0)
        first.stop(signal.SIGKILL)
        killed = time.monotonic()
        wait_until(lambda: lease(hub).get("holderIdentity") == identity(second), timeout=20, interval=0.1)
        assert time.monotonic() - killed < LEASE_SECONDS + 3
        assert int(lease(hub).get("leaseTransitions") or 0) == transitions + 1
        hub("apply", "-f", "-", input=yaml.safe_dump_all(workload("after")))
        wait_until(lambda: on_member(member, "after"), message="propagated by the new leader")
        assert is_leader_metric(second) == "1"

        # SIGTERM: the Lease is released on the way out, so a standby needs no lease term to take over.
        assert second.stop() == 0
        released = lease(hub)
        assert not released.get("holderIdentity")
        assert released.get("leaseDurationSeconds") == 1
        third = ControllerManagerProcess(hub_process.kubeconfig, tmp_path / "logs-c", ELECTION_FLAGS).start()
        managers.append(third)
        started = time.monotonic()
        wait_until(lambda: lease(hub).get("holderIdentity") == identity(third), timeout=10, interval=0.1)
        assert time.monotonic() - started < LEASE_SECONDS

        # A leader that cannot renew (someone else holds the Lease now) stops and exits non-zero.
        hub("patch", "lease", "-n", "kube-system", "flotilla-controller-manager", "--type", "merge",
            "-p", '{"spec":{"holderIdentity":"intruder"}}')  # fmt: skip
        assert third.process is not None
        code = third.process.wait(timeout=15)
        assert code != 0
        assert "lost the leader Lease" in third.log()
    finally:
        for manager in managers:
            manager.stop()
        sim.stop()
        hub_process.stop()
