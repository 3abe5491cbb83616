"""Per-user fairness end to end: one user flooding the hub with slow reads cannot starve another.

The server runs with 12 read seats. Alice floods from sixteen threads with GETs that wait for a
resourceVersion that never comes (each holds its seat about three seconds, then is a 504), sending
the next as soon as one ends; Bob, meanwhile, uses the hub through the system kubectl, the official
`kubernetes` client and plain requests. Alice alone may hold 12 // 2 = 6 seats, and 12 // 3 = 4 once
Bob holds one: the rest of her requests are refused at once with kube's 429, while every one of
Bob's succeeds and `/readyz` stays quick.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.integration.hostile.probe import NoResponse, Probe
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

ALICE_TOKEN = "alice-token-0001"
BOB_TOKEN = "bob-token-0002"
READ_SEATS = 12
FLOODERS = 16
SLOW_READ = "/api/v1/namespaces/default/configmaps/x?resourceVersion=999999999"
# prometheus_client writes labels in name order and values as floats ("3.0").
REJECTED = re.compile(
    r'^apiserver_flowcontrol_rejected_requests_total\{flow_schema="global-default",'
    r'priority_level="readOnly",reason="flow-share"\} (\d+)\.0$',
    re.MULTILINE,
)
EXECUTING = re.compile(
    r'^apiserver_flowcontrol_current_executing_seats\{flow_schema="global-default",'
    r'priority_level="readOnly"\} (\d+)\.0$',
    re.MULTILINE,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("fairness")
    (directory / "tokens.csv").write_text(f"{ALICE_TOKEN},alice,3001\n{BOB_TOKEN},bob,3002\n")
    process = ServerProcess(
        directory / "data",
        ["--token-auth-file", str(directory / "tokens.csv"), "--max-requests-inflight", str(READ_SEATS)],
    ).start()
    admin = Kubectl(process.kubeconfig, directory / "cache")
    for user in ("alice", "bob"):
        admin("create", "clusterrolebinding", user, "--clusterrole=cluster-admin", f"--user={user}")
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


def token_kubeconfig(server: ServerProcess, user: str, token: str, target: Path) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "flotilla",
                "cluster": {
                    "server": server.url,
                    "certificate-authority": str(server.data_dir / "pki" / "ca.crt"),
                },
            }
        ],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": user, "context": {"cluster": "flotilla", "user": user}}],
        "current-context": user,
    }
    target.write_text(yaml.safe_dump(config))
    return target


class Flood:
    """Threads sending slow reads as one user, one after the other, until stopped; what came back."""

    def __init__(self, probe: Probe, threads: int) -> None:
        self.probe = probe
        self.statuses: Counter[int] = Counter()
        self.refusals: list[tuple[dict[str, str], object]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def __enter__(self) -> Flood:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                answer = self.probe.send("GET", SLOW_READ, timeout=20)
            except NoResponse:
                status = 0
            else:
                status = answer.status
                if status == 429 and len(self.refusals) < 5:
                    with self._lock:
                        self.refusals.append((answer.headers, answer.body))
            with self._lock:
                self.statuses[status] += 1
            if status == 429:
                self._stop.wait(0.02)  # a flooder, but not a busy loop eating the test machine's CPU


def metrics(probe: Probe) -> str:
    answer = probe.send("GET", "/metrics")
    assert answer.status == 200, answer.raw[:300]
    assert answer.headers["Content-Type"].startswith("text/plain")
    return answer.raw.decode()


def test_a_flooding_user_gets_429s_while_another_user_is_served(
    server: ServerProcess, probe: Probe, tmp_path: Path
) -> None:
    """Alice's flood is held to her share and refused past it; Bob's kubectl, Python client and raw
    requests all succeed meanwhile, and the rejections are counted by flow schema, not by name."""
    from kubernetes import client, config

    bob_config = token_kubeconfig(server, "bob", BOB_TOKEN, tmp_path / "bob.kubeconfig")
    bob_kubectl = Kubectl(bob_config, tmp_path / "bob-cache")
    bob = Probe(server, token=BOB_TOKEN)
    with probe.responsiveness(), Flood(Probe(server, token=ALICE_TOKEN), FLOODERS) as flood:
        eventually(
            lambda: REJECTED.search(metrics(probe)),
            timeout=30,
            what="alice's flood refused past her share",
        )
        held = int(eventually(lambda: EXECUTING.search(metrics(probe)), what="alice holding seats").group(1))
        assert 0 < held <= READ_SEATS // 2
        # Bob, while Alice floods: every request succeeds the first time it is sent.
        for _ in range(10):
            answer = bob.send("GET", "/api/v1/namespaces/default/configmaps")
            assert answer.status == 200, (answer.status, answer.body)
        created = bob_kubectl.run("create", "configmap", "bobs", "--from-literal=a=b", "-n", "default")
        assert created.returncode == 0, created.stderr
        listed = bob_kubectl.run("get", "configmaps", "-n", "default", "-o", "name")
        assert "configmap/bobs" in listed.stdout
        configuration = client.Configuration()
        config.load_kube_config(config_file=str(bob_config), client_configuration=configuration)
        with client.ApiClient(configuration) as api:
            names = [item.metadata.name for item in client.CoreV1Api(api).list_namespace().items]
        assert "default" in names
        assert flood.statuses[429] > 0
    assert set(flood.statuses) <= {429, 504}, flood.statuses
    headers, body = flood.refusals[0]
    assert headers["Retry-After"] == "1"
    assert isinstance(body, dict)
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Too many requests, please try again later."
    assert body["details"] == {"retryAfterSeconds": 1}
    text = metrics(probe)
    assert "alice" not in text and "bob" not in text
    assert int(REJECTED.search(text).group(1)) >= flood.statuses[429]  # type: ignore[union-attr]


def test_masters_are_exempt_and_never_wait_for_a_flooder(server: ServerProcess, probe: Probe) -> None:
    """The admin (system:masters, as the hub's controllers are) is served during a flood, uncounted."""
    with Flood(Probe(server, token=ALICE_TOKEN), FLOODERS):
        eventually(lambda: EXECUTING.search(metrics(probe)), what="alice holding seats")
        for _ in range(10):
            assert probe.send("GET", "/api/v1/namespaces").status == 200
    assert re.search(
        r"^apiserver_flowcontrol_dispatched_requests_total"
        r'\{flow_schema="exempt",priority_level="exempt"\} \d+\.0$',
        metrics(probe),
        re.MULTILINE,
    )
