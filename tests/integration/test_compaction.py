"""Automatic compaction: the store stops growing under churn, and watchers behind the window get 410."""

from __future__ import annotations

import json
import re
import ssl
import threading
import urllib.request
from pathlib import Path

from kubernetes import client, config

from tests.support.processes import ServerProcess
from tests.support.waiting import eventually


def churn(api: client.CoreV1Api, updates: int, objects: int) -> None:
    def worker(offset: int) -> None:
        for sequence in range(offset, updates, 4):
            api.patch_namespaced_config_map(
                f"c{sequence % objects}", "default", {"data": {"n": str(sequence)}}
            )

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


COMPACTED = re.compile(r"event='compaction\.done'.*?\brevision=(\d+)")
WINDOW = 300


def caught_up(server: ServerProcess, api: client.CoreV1Api) -> None:
    """Wait until the server has compacted to the window behind its current revision: the store is
    as small as compaction makes it (no more compaction follows until the next writes)."""
    current = int(api.list_namespaced_config_map("default").metadata.resource_version)

    def compacted_to() -> int:
        return max((int(found) for found in COMPACTED.findall(server.log())), default=0)

    eventually(lambda: compacted_to() >= current - WINDOW, what=f"compaction to {current - WINDOW}")


def test_store_stops_growing_and_old_watches_expire(tmp_path: Path) -> None:
    """With a 300-revision window, two rounds of 1,500 updates leave the database the same size."""
    server = ServerProcess(
        tmp_path / "hub", ["--history-window", str(WINDOW), "--compaction-interval", "0.5"]
    ).start()
    try:
        configuration = client.Configuration()
        config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=configuration)
        with client.ApiClient(configuration) as api_client:
            api = client.CoreV1Api(api_client)
            payload = "x" * 1500
            first = None
            for i in range(50):
                created = api.create_namespaced_config_map(
                    "default",
                    client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"c{i}"), data={"payload": payload}),
                )
                first = first or created.metadata.resource_version
            database = server.data_dir / "store.db"
            churn(api, 1500, 50)
            caught_up(server, api)
            after_first_round = database.stat().st_size
            churn(api, 1500, 50)
            caught_up(server, api)
            after_second_round = database.stat().st_size
            assert after_second_round <= after_first_round * 1.2 + 200_000, (
                after_first_round,
                after_second_round,
            )

            pki = server.data_dir / "pki"
            tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
            tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
            watch_url = (
                f"{server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={first}"
            )
            with urllib.request.urlopen(watch_url, context=tls, timeout=10) as response:
                event = json.loads(response.readline())
            assert event["type"] == "ERROR" and event["object"]["code"] == 410
            assert len(api.list_namespaced_config_map("default").items) == 50
    finally:
        assert server.stop() == 0
