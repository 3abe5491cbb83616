"""Pull mode end to end: a hub, a controller manager, one Push and one Pull member, and the agent.

The members `push1` and `pull1` run in one `flotilla sim` process (a `Federation`). `push1` is joined
with `flotilla join`; `pull1` is registered with `flotilla register` and a token from
`flotilla token create --print-register-command` (the hub accepts it automatically: the Pull
Cluster, the agent's RBAC, its certificate). The agent `register` starts is replaced by the
Federation's, with short intervals (Lease every second, status every second), and the hub's lease
grace is shortened to match.
"""

from __future__ import annotations

import base64
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from cryptography import x509
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    MemberCluster,
    condition,
    deployment,
    nginx_walkthrough,
    propagation_policy,
    ready_clusters,
    replicas_on,
    resource_selector,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PUSH, PULL = "push1", "pull1"
LEASE_GRACE = 5.0
MANAGER_ARGS = [
    *FAST_CLUSTER_STATUS,
    "--cluster-failure-threshold",
    "2",
    "--cluster-lease-grace",
    str(LEASE_GRACE),
    # The only manager: with an election, a hub restart slower than its 2 s renew deadline (a loaded
    # machine) makes it give the Lease up and exit, as a real one does for its supervisor to restart —
    # and this test has no supervisor. What is tested is the agent, not the election.
    "--leader-elect=false",
]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    size: dict[str, Any] = {"nodes": 2, "node_cpu": "4", "node_memory": "8Gi"}
    members = [MemberCluster(PUSH, **size), MemberCluster(PULL, **size, sync_mode="Pull")]
    with Federation(tmp_path_factory.mktemp("pull"), members, manager_args=MANAGER_ARGS) as federation:
        yield federation.start()


def duplicated_on_both(name: str) -> list[dict[str, Any]]:
    """Deployment `name` with one replica, and a policy placing it whole on both members."""
    placement = {
        "clusterAffinity": {"clusterNames": [PUSH, PULL]},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    return [deployment(name, 1), propagation_policy(name, [resource_selector("Deployment", name)], placement)]


def lease_renew_time(hub: Kubectl) -> str:
    lease = hub.json("get", "lease", PULL, "-n", "karmada-cluster")
    return str(lease["spec"]["renewTime"])


def test_nginx_walkthrough_over_a_push_and_a_pull_member(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """nginx split 1:1 over the Push and the Pull member runs on both, READY 2/2 on the hub."""
    hub.apply_yaml(nginx_walkthrough(PUSH, PULL), "-n", ns)
    eventually(lambda: replicas_on(members, ns, "nginx") == {PUSH: 1, PULL: 1}, what="1 replica each")
    eventually(lambda: template_ready(hub, ns, "nginx") == "2/2", what="READY 2/2 on the hub")
    work = hub.json("get", "works", "-n", f"karmada-es-{PULL}")["items"][0]
    applied = {c["type"]: c["status"] for c in work["status"]["conditions"]}
    assert applied["Applied"] == "True"
    assert work["status"]["manifestStatuses"][0]["identifier"]["name"] == "nginx"
    member_deploy = members[PULL].json("get", "deploy", "nginx", "-n", ns, "--show-managed-fields")
    assert member_deploy["metadata"]["labels"]["karmada.io/managed"] == "true"
    managers = {entry["manager"] for entry in member_deploy["metadata"]["managedFields"]}
    assert "flotilla-execution" in managers


def test_the_pull_cluster_reports_its_status_and_heartbeat(hub: Kubectl) -> None:
    """The agent writes its Cluster's status (version, nodes) and keeps renewing its Lease."""
    cluster = hub.json("get", "cluster", PULL)
    assert cluster["status"]["kubernetesVersion"]
    assert cluster["status"]["nodeSummary"] == {"totalNum": 2, "readyNum": 2}
    assert not [t for t in cluster["spec"].get("taints", []) if t["key"].startswith("cluster.karmada.io/")]
    first = lease_renew_time(hub)
    eventually(lambda: lease_renew_time(hub) != first, timeout=15, what="Lease renewed")


def test_the_agent_serves_its_metrics_through_prometheus_client(federation: Federation) -> None:
    """The agent's /metrics parses as Prometheus text: its work queues, its Lease, its certificate and
    the process, as every component reports them."""
    urls = re.findall(r"health: (\S+)\)", federation.agents[PULL].log())
    assert urls, federation.agents[PULL].log()

    def families() -> dict[str, Any]:
        with urllib.request.urlopen(f"{urls[-1]}/metrics", timeout=10) as answer:
            return {f.name: f for f in text_string_to_metric_families(answer.read().decode())}

    found = eventually(
        lambda: families() if "flotilla_agent_lease_renew_timestamp_seconds" in families() else None,
        what="the agent's Lease renewal on /metrics",
    )
    assert found["flotilla_workqueue_depth"].samples
    assert found["flotilla_agent_certificate_expiry_timestamp_seconds"].samples[0].value > 0
    assert found["process_cpu_seconds"].type == "counter"


def test_the_agent_may_list_and_watch_its_own_cluster_only(federation: Federation, tmp_path: Path) -> None:
    """The agent's RBAC names its Cluster: listing it by `metadata.name` is allowed, listing all is not."""
    agent = federation.agent_kubectl(PULL, tmp_path / "agent-cache")
    # kube-apiserver authorizes a list or watch selecting `metadata.name` as a request for that name.
    pinned = agent.run("get", "clusters", "--field-selector", f"metadata.name={PULL}", check=False)
    assert pinned.returncode == 0, pinned.stderr
    everything = agent.run("get", "clusters", check=False)
    assert "Forbidden" in everything.stderr, everything.stderr


def test_the_agent_is_refused_other_clusters_works(federation: Federation, tmp_path: Path) -> None:
    """With its own credentials the agent reads its own Works but gets 403 for another cluster's."""
    agent = federation.agent_kubectl(PULL, tmp_path / "agent-cache")
    agent("get", "works", "-n", f"karmada-es-{PULL}")
    refused = agent.run("get", "works", "-n", f"karmada-es-{PUSH}", check=False)
    assert refused.returncode != 0
    assert "Forbidden" in refused.stderr and f"system:karmada:agent:{PULL}" in refused.stderr
    assert agent.run("get", "cluster", PUSH, check=False).returncode != 0


def test_a_killed_agent_converges_after_restart(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """kill -9 of the agent during propagation: after a restart every workload is on the Pull member."""
    documents = []
    for i in range(5):
        documents += duplicated_on_both(f"crash-{i}")
    hub.apply_yaml(documents, "-n", ns)
    federation.agents[PULL].kill()
    federation.agents[PULL].start()
    for i in range(5):
        eventually(
            lambda i=i: set(replicas_on(members, ns, f"crash-{i}")) == {PUSH, PULL},
            timeout=60,
            what=f"crash-{i} on both clusters",
        )


def test_a_silent_agent_makes_the_hub_mark_its_cluster_unknown(federation: Federation, hub: Kubectl) -> None:
    """A stopped agent's Lease ages past the grace: Ready=Unknown and unreachable; Ready on restart."""
    agent = federation.agents[PULL]
    agent.stop()
    try:
        ready = eventually(
            lambda: (
                (found := condition(hub.json("get", "cluster", PULL), "Ready"))["status"] == "Unknown"
                and found
            ),
            timeout=LEASE_GRACE + 30,
            what="Ready=Unknown after the lease grace",
        )
        assert ready["reason"] == "ClusterStatusUnknown"
        eventually(
            lambda: (
                "cluster.karmada.io/unreachable"
                in {t["key"] for t in hub.json("get", "cluster", PULL)["spec"].get("taints", [])}
            ),
            what="unreachable taint",
        )
    finally:
        agent.start()
    eventually(lambda: PULL in ready_clusters(hub), timeout=30, what="Ready again")


def test_the_agent_survives_a_hub_crash_and_restart(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The hub is killed and restarts on the same address: the agent resumes its watches and heartbeat."""
    port = urlparse(federation.hub.url).port
    federation.hub.kill()
    federation.hub.extra_args = ["--secure-port", str(port)]
    federation.hub.start()
    hub.apply_yaml(duplicated_on_both("after-restart"), "-n", ns)
    eventually(
        lambda: set(replicas_on(members, ns, "after-restart")) == {PUSH, PULL},
        timeout=60,
        what="delivered to both members after the hub restart",
    )
    first = lease_renew_time(hub)
    eventually(lambda: lease_renew_time(hub) != first, timeout=15, what="Lease renewed after the restart")
    assert PULL in ready_clusters(hub)


def test_the_agent_renews_its_certificate_and_uses_the_new_one(federation: Federation, hub: Kubectl) -> None:
    """A renewal forced by --renew-before writes a new certificate, asked for by the agent itself."""
    agent = federation.agents[PULL]
    kubeconfig = agent.data_dir / "hub.kubeconfig"

    def serial() -> int:
        user = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]
        pem = base64.b64decode(user["client-certificate-data"])
        return x509.load_pem_x509_certificate(pem).serial_number

    before = serial()
    agent.stop()
    # register's certificate lives a year: renewing more than a year before expiry means now.
    agent.start("--renew-before", str(400 * 24 * 3600))
    eventually(lambda: serial() != before, timeout=30, what="a new certificate in hub.kubeconfig")
    eventually(lambda: "agent.hub_client_switched" in agent.log(), what="hub client switched")
    requests = hub.json("get", "csr")["items"]
    renewal = [r for r in requests if r["spec"]["username"] == f"system:karmada:agent:{PULL}"]
    assert renewal, "the agent asked for its certificate itself"
    assert any(c["type"] == "Approved" for c in renewal[-1]["status"]["conditions"])
    # The new session, on the new certificate, goes on renewing the Lease.
    switched_at = lease_renew_time(hub)
    eventually(lambda: lease_renew_time(hub) != switched_at, timeout=15, what="Lease renewed after")


def test_deleting_the_pull_cluster_removes_its_agent_grants_and_lease(
    federation: Federation, hub: Kubectl
) -> None:
    """The agent's RBAC objects and Lease are deleted before the Cluster goes (the last test here)."""
    selector = f"cluster.karmada.io/agent-of={PULL}"
    assert hub.json("get", "clusterroles", "-l", selector)["items"], "accepting the cluster granted the agent"
    hub("delete", "cluster", PULL, "--wait=false")
    eventually(
        lambda: hub.run("get", "cluster", PULL, check=False).returncode != 0,
        timeout=60,
        what="the Pull cluster is gone",
    )
    for kinds in ("clusterroles,clusterrolebindings", "roles,rolebindings"):
        assert hub.json("get", kinds, "-A", "-l", selector)["items"] == [], kinds
    assert hub.run("get", "lease", PULL, "-n", "karmada-cluster", check=False).returncode != 0
