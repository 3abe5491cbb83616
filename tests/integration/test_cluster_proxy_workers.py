"""The cluster proxy on a hub of two API server processes (`--workers 2` on etcd) and a Pull member.

The Pull member's agent holds its tunnel open to whichever worker accepted its connection; every
kubectl run opens a fresh connection, which the kernel gives to either worker. The worker without
the tunnel relays to the one holding it (the Lease `karmada-cluster/flotilla-tunnel-<cluster>`
says which), so every request through the proxy succeeds, whichever worker it reached.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.federation import Federation, MemberCluster
from tests.integration.test_cluster_proxy import node_names, proxied_get, through_proxy
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)]

PULL = "edge1"


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"))


@pytest.fixture(scope="module")
def federation(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("proxy-workers")
    with Federation(root, [MemberCluster(PULL, nodes=2, sync_mode="Pull")]) as federation:
        federation.hub = ServerProcess(root / "hub", extra_args=[f"--etcd-servers={etcd.url}", "--workers=2"])
        yield federation.start()


def test_every_worker_reaches_a_pull_member_whatever_worker_holds_its_tunnel(
    federation: Federation, tmp_path: Path
) -> None:
    hub = federation.kubectl(tmp_path / "hub-cache")
    eventually(
        lambda: hub.json_or_none("get", "lease", f"flotilla-tunnel-{PULL}", "-n", "karmada-cluster"),
        what="the tunnel announced",
    )
    proxied = through_proxy(federation.hub.kubeconfig, PULL, tmp_path)
    for _ in range(8):  # each a fresh connection: with two workers, all on one is a 1-in-128 chance
        assert node_names(proxied) == [f"{PULL}-node-0", f"{PULL}-node-1"]
    for _ in range(8):
        code, body = proxied_get(federation.hub.kubeconfig, PULL, "/api/v1/namespaces/kube-system", tmp_path)
        assert (code, body["metadata"]["name"]) == (200, "kube-system")
