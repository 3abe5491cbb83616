"""Pull mode end to end: a hub, a controller manager, one Push and one Pull member, and the agent.

The members `push1` and `pull1` run in one `flotilla sim` process. `push1` is joined with
`flotilla join`; `pull1` is registered with `flotilla register` and a token from
`flotilla token create --print-register-command` (the hub accepts it automatically: the Pull
Cluster, the agent's RBAC, its certificate). The agent `register` starts is replaced by one with the
test's short intervals (Lease every second, status every second), and the hub's lease grace is
shortened to match.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from cryptography import x509

from tests.integration.harness import (
    ControllerManagerProcess,
    Kubectl,
    ServerProcess,
    SimProcess,
    flotilla,
    wait_until,
)

pytestmark = pytest.mark.kubectl

PUSH, PULL = "push1", "pull1"
LEASE_GRACE = 5.0


class AgentProcess:
    """A `flotilla agent` child process for the Pull member."""

    def __init__(self, data_dir: Path, member_kubeconfig: Path) -> None:
        self.data_dir = data_dir
        self.member_kubeconfig = member_kubeconfig
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / "agent.log"
        self._log_file: Any = None

    def start(self, *extra: str, timeout: float = 60.0) -> AgentProcess:
        self._log_file = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flotilla",
                "agent",
                "--data-dir",
                str(self.data_dir),
                "--kubeconfig",
                str(self.member_kubeconfig),
                "--lease-seconds",
                "1",
                "--cluster-status-interval",
                "1",
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                "2",
                *extra,
            ],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.stop()
                raise RuntimeError(f"agent exited with {code}:\n{self.log()}")
            if "flotilla agent: running" in self.log()[offset:]:
                return self
            time.sleep(0.05)
        raise TimeoutError(f"agent did not start within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.process = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return code


def stop_detached_agent(pid: int, timeout: float = 30.0) -> None:
    """SIGTERM the agent `flotilla register --detach` started, and wait until it has exited."""
    os.kill(pid, signal.SIGTERM)

    def exited() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        return state in ("Z", "X")  # a zombie has exited; whoever adopted it reaps it

    wait_until(exited, timeout=timeout, message=f"detached agent {pid} exited")


class Environment:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.hub = ServerProcess(root / "hub")
        config = {
            "clusters": [
                {"name": name, "nodes": 2, "nodeCPU": "4", "nodeMemory": "8Gi"} for name in (PUSH, PULL)
            ]
        }
        root.mkdir(parents=True, exist_ok=True)
        (root / "sim.yaml").write_text(yaml.safe_dump(config))
        self.sim = SimProcess(
            root / "sim", ["--config", str(root / "sim.yaml"), "--pod-start-seconds", "0.1"]
        )
        self.agent_dir = root / "agent"
        self.agent = AgentProcess(self.agent_dir, self.sim.kubeconfig(PULL))
        self.manager: ControllerManagerProcess | None = None

    def start(self) -> Environment:
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> Environment:
        self.hub.start()
        self.sim.start()
        flotilla(
            "join",
            PUSH,
            "--kubeconfig",
            str(self.hub.kubeconfig),
            "--cluster-kubeconfig",
            str(self.sim.kubeconfig(PUSH)),
        )
        self.register_pull_cluster()
        self.manager = ControllerManagerProcess(
            self.hub.kubeconfig,
            self.root / "logs",
            [
                "--cluster-status-interval",
                "1",
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                "2",
                "--cluster-lease-grace",
                str(LEASE_GRACE),
            ],
        ).start()
        self.agent.start()
        hub = self.kubectl(self.root / "cache-hub")
        wait_until(lambda: self.ready_clusters(hub) == {PUSH, PULL}, timeout=60, message="clusters Ready")
        return self

    def register_pull_cluster(self) -> None:
        """`flotilla register` as an operator runs it, with the line `token create` prints; the agent it
        starts detached is then replaced by one with the test's short intervals."""
        printed = flotilla(
            "token", "create", "--print-register-command", "--kubeconfig", str(self.hub.kubeconfig)
        ).stdout.split()
        assert printed[:2] == ["flotilla", "register"], printed
        registered = flotilla(
            *printed[1:],
            "--kubeconfig",
            str(self.sim.kubeconfig(PULL)),
            "--cluster-name",
            PULL,
            "--data-dir",
            str(self.agent_dir),
            "--detach",
        )
        assert "agent started" in registered.stdout, registered.stdout
        stop_detached_agent(int((self.agent_dir / "agent.pid").read_text()))
        (self.agent_dir / "agent.pid").unlink()
        self.check_single_cluster_watch()

    def check_single_cluster_watch(self) -> None:
        """The agent's RBAC names its Cluster; a list or watch selecting it by `metadata.name` is allowed
        (kube-apiserver authorizes it as a request for that name), a list of every cluster is not."""
        agent = self.agent_kubectl(self.root / "cache-probe")
        pinned = agent.run("get", "clusters", "--field-selector", f"metadata.name={PULL}", check=False)
        assert pinned.returncode == 0, pinned.stderr
        everything = agent.run("get", "clusters", check=False)
        assert "Forbidden" in everything.stderr, everything.stderr

    def stop(self) -> None:
        self.agent.stop()
        if self.manager is not None:
            self.manager.stop()
        self.sim.stop()
        self.hub.stop()

    def kubectl(self, cache: Path) -> Kubectl:
        return Kubectl(self.hub.kubeconfig, cache)

    def agent_kubectl(self, cache: Path) -> Kubectl:
        """kubectl with the agent's own credentials (its data directory's hub.kubeconfig)."""
        return Kubectl(self.agent_dir / "hub.kubeconfig", cache)

    def member(self, name: str, cache: Path) -> Kubectl:
        return Kubectl(self.sim.kubeconfig(name), cache)

    @staticmethod
    def ready_clusters(hub: Kubectl) -> set[str]:
        return {
            c["metadata"]["name"] for c in hub.json("get", "clusters")["items"] if ready_status(c) == "True"
        }


def ready_status(cluster: dict[str, Any]) -> str:
    conditions = cluster.get("status", {}).get("conditions", [])
    return next((c["status"] for c in conditions if c["type"] == "Ready"), "")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("pull")).start()
    yield environment
    environment.stop()


@pytest.fixture
def hub(env: Environment, tmp_path: Path) -> Kubectl:
    return env.kubectl(tmp_path / "hub-cache")


@pytest.fixture
def members(env: Environment, tmp_path: Path) -> dict[str, Kubectl]:
    return {name: env.member(name, tmp_path / f"{name}-cache") for name in (PUSH, PULL)}


@pytest.fixture
def ns(hub: Kubectl) -> str:
    name = f"p-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    return name


def deployment(name: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
            },
        },
    }


def policy(name: str, placement: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
            "placement": placement,
        },
    }


def duplicated_on_both(name: str) -> dict[str, Any]:
    return policy(
        name,
        {
            "clusterAffinity": {"clusterNames": [PUSH, PULL]},
            "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        },
    )


def replicas_on(members: dict[str, Kubectl], ns: str, name: str) -> dict[str, int]:
    found = {}
    for cluster, kubectl in members.items():
        result = kubectl.run("get", "deploy", name, "-n", ns, "-o", "json", check=False)
        if result.returncode == 0:
            found[cluster] = yaml.safe_load(result.stdout)["spec"]["replicas"]
    return found


def lease_renew_time(hub: Kubectl) -> str:
    lease = hub.json("get", "lease", PULL, "-n", "karmada-cluster")
    return str(lease["spec"]["renewTime"])


def test_nginx_walkthrough_over_a_push_and_a_pull_member(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """nginx split 1:1 over the Push and the Pull member runs on both, READY 2/2 on the hub."""
    weights = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": [PUSH]}, "weight": 1},
                {"targetCluster": {"clusterNames": [PULL]}, "weight": 1},
            ]
        },
    }
    hub.apply_yaml(
        [
            deployment("nginx", 2),
            policy(
                "nginx", {"clusterAffinity": {"clusterNames": [PUSH, PULL]}, "replicaScheduling": weights}
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: replicas_on(members, ns, "nginx") == {PUSH: 1, PULL: 1}, message="1 replica each")
    wait_until(
        lambda: hub("get", "deploy", "nginx", "-n", ns).splitlines()[1].split()[1] == "2/2",
        message="READY 2/2 on the hub",
    )
    work = hub.json("get", "works", "-n", f"karmada-es-{PULL}")["items"][0]
    applied = {c["type"]: c["status"] for c in work["status"]["conditions"]}
    assert applied["Applied"] == "True"
    assert work["status"]["manifestStatuses"][0]["identifier"]["name"] == "nginx"
    member_deploy = members[PULL].json("get", "deploy", "nginx", "-n", ns, "--show-managed-fields")
    assert member_deploy["metadata"]["labels"]["karmada.io/managed"] == "true"
    managers = {entry["manager"] for entry in member_deploy["metadata"]["managedFields"]}
    assert "flotilla-execution" in managers


def test_the_pull_cluster_reports_its_status_and_heartbeat(env: Environment, hub: Kubectl) -> None:
    """The agent writes its Cluster's status (version, nodes) and keeps renewing its Lease."""
    cluster = hub.json("get", "cluster", PULL)
    assert cluster["status"]["kubernetesVersion"]
    assert cluster["status"]["nodeSummary"] == {"totalNum": 2, "readyNum": 2}
    assert not [t for t in cluster["spec"].get("taints", []) if t["key"].startswith("cluster.karmada.io/")]
    first = lease_renew_time(hub)
    wait_until(lambda: lease_renew_time(hub) != first, timeout=15, message="Lease renewed")


def test_the_agent_is_refused_other_clusters_works(env: Environment, tmp_path: Path) -> None:
    """With its own credentials the agent reads its own Works but gets 403 for another cluster's."""
    agent = env.agent_kubectl(tmp_path / "agent-cache")
    agent("get", "works", "-n", f"karmada-es-{PULL}")
    refused = agent.run("get", "works", "-n", f"karmada-es-{PUSH}", check=False)
    assert refused.returncode != 0
    assert "Forbidden" in refused.stderr and f"system:karmada:agent:{PULL}" in refused.stderr
    assert agent.run("get", "cluster", PUSH, check=False).returncode != 0


def test_a_killed_agent_converges_after_restart(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """kill -9 of the agent during propagation: after a restart every workload is on the Pull member."""
    documents = []
    for i in range(5):
        documents += [deployment(f"crash-{i}", 1), duplicated_on_both(f"crash-{i}")]
    hub.apply_yaml(documents, "-n", ns)
    env.agent.stop(signal.SIGKILL)
    env.agent.start()
    for i in range(5):
        wait_until(
            lambda i=i: set(replicas_on(members, ns, f"crash-{i}")) == {PUSH, PULL},
            timeout=60,
            message=f"crash-{i} on both clusters",
        )


def test_a_silent_agent_makes_the_hub_mark_its_cluster_unknown(env: Environment, hub: Kubectl) -> None:
    """A stopped agent's Lease ages past the grace: Ready=Unknown and unreachable; Ready on restart."""
    env.agent.stop()
    try:
        cluster = wait_until(
            lambda: (
                (found := hub.json("get", "cluster", PULL)) and ready_status(found) == "Unknown" and found
            ),
            timeout=LEASE_GRACE + 30,
            message="Ready=Unknown after the lease grace",
        )
        ready = next(c for c in cluster["status"]["conditions"] if c["type"] == "Ready")
        assert ready["reason"] == "ClusterStatusUnknown"
        wait_until(
            lambda: (
                "cluster.karmada.io/unreachable"
                in {t["key"] for t in hub.json("get", "cluster", PULL)["spec"].get("taints", [])}
            ),
            message="unreachable taint",
        )
    finally:
        env.agent.start()
    wait_until(lambda: PULL in env.ready_clusters(hub), timeout=30, message="Ready again")


def test_the_agent_survives_a_hub_crash_and_restart(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The hub is killed and restarts on the same address: the agent resumes its watches and heartbeat."""
    port = urlparse(env.hub.url).port
    env.hub.stop(signal.SIGKILL)
    env.hub.extra_args = ["--secure-port", str(port)]
    env.hub.start()
    hub.apply_yaml([deployment("after-restart", 1), duplicated_on_both("after-restart")], "-n", ns)
    wait_until(
        lambda: set(replicas_on(members, ns, "after-restart")) == {PUSH, PULL},
        timeout=60,
        message="delivered to both members after the hub restart",
    )
    first = lease_renew_time(hub)
    wait_until(lambda: lease_renew_time(hub) != first, timeout=15, message="Lease renewed after the restart")
    assert PULL in env.ready_clusters(hub)


def test_the_agent_renews_its_certificate_and_uses_the_new_one(env: Environment, hub: Kubectl) -> None:
    """A renewal forced by --renew-before writes a new certificate, asked for by the agent itself."""
    kubeconfig = env.agent_dir / "hub.kubeconfig"

    def serial() -> int:
        user = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]
        pem = base64.b64decode(user["client-certificate-data"])
        return x509.load_pem_x509_certificate(pem).serial_number

    before = serial()
    env.agent.stop()
    # register's certificate lives a year: renewing more than a year before expiry means now.
    env.agent.start("--renew-before", str(400 * 24 * 3600))
    wait_until(lambda: serial() != before, timeout=30, message="a new certificate in hub.kubeconfig")
    wait_until(lambda: "agent.hub_client_switched" in env.agent.log(), message="hub client switched")
    requests = hub.json("get", "csr")["items"]
    renewal = [r for r in requests if r["spec"]["username"] == f"system:karmada:agent:{PULL}"]
    assert renewal, "the agent asked for its certificate itself"
    assert any(c["type"] == "Approved" for c in renewal[-1]["status"]["conditions"])
    # The new session, on the new certificate, goes on renewing the Lease.
    switched_at = lease_renew_time(hub)
    wait_until(lambda: lease_renew_time(hub) != switched_at, timeout=15, message="Lease renewed after")


def test_deleting_the_pull_cluster_removes_its_agent_grants_and_lease(env: Environment, hub: Kubectl) -> None:
    """The agent's RBAC objects and Lease are deleted before the Cluster goes (the last test here)."""
    selector = f"cluster.karmada.io/agent-of={PULL}"
    assert hub.json("get", "clusterroles", "-l", selector)["items"], "accepting the cluster granted the agent"
    hub("delete", "cluster", PULL, "--wait=false")
    wait_until(
        lambda: hub.run("get", "cluster", PULL, check=False).returncode != 0,
        timeout=60,
        message="the Pull cluster is gone",
    )
    for kinds in ("clusterroles,clusterrolebindings", "roles,rolebindings"):
        assert hub.json("get", kinds, "-A", "-l", selector)["items"] == [], kinds
    assert hub.run("get", "lease", PULL, "-n", "karmada-cluster", check=False).returncode != 0
