"""/metrics of the API server and the controller manager, scraped after real kubectl traffic.

One API server process and one controller manager (no leader election) against it. Each scrape is
parsed with prometheus_client's own parser, so what is checked is what Prometheus would read:
kube-apiserver's metric names and labels, counts that moved with the traffic, and the
`system:monitoring` rule that lets a monitoring user, and no one else, read the API server's.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.kubectl import Kubectl
from tests.support.processes import ControllerManagerProcess, ServerProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
HEALTH = re.compile(r"running \(health: (\S+)\)")


def parse(text: str) -> Samples:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def apiserver_metrics(kubectl: Kubectl) -> Samples:
    return parse(kubectl("get", "--raw", "/metrics"))


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sample `name` whose labels include `labels` (summed when several match; 0 when none)."""
    wanted = set(labels.items())
    return sum(v for (n, found), v in samples.items() if n == name and wanted <= found)


@pytest.fixture(scope="module")
def manager(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A controller manager against the server; yields its health URL."""
    process = ControllerManagerProcess(
        server.kubeconfig, tmp_path_factory.mktemp("manager"), ["--leader-elect=false"]
    ).start()
    match = HEALTH.search(process.log())
    assert match is not None, process.log()
    yield match.group(1)
    process.stop()


def test_requests_are_counted_with_kube_apiserver_names_and_labels(kubectl: Kubectl, namespace: str) -> None:
    """Creates, gets, lists, applies and deletes through kubectl move `apiserver_request_total` and
    the duration histogram under kube's verb, scope and code labels."""
    before = apiserver_metrics(kubectl)
    kubectl("create", "configmap", "counted", "-n", namespace, "--from-literal=a=b")
    kubectl("get", "configmap", "counted", "-n", namespace)
    kubectl("get", "configmaps", "-n", namespace)
    assert not kubectl.succeeds("get", "configmap", "missing", "-n", namespace)
    applied = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "applied", "namespace": namespace},
    }
    kubectl("apply", "--server-side", "-f", "-", input=json.dumps(applied))
    kubectl("delete", "configmap", "counted", "-n", namespace)
    after = apiserver_metrics(kubectl)

    configmaps = {"group": "", "version": "v1", "resource": "configmaps", "component": "apiserver"}

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **configmaps, **labels) - value(before, name, **configmaps, **labels)

    assert moved("apiserver_request_total", verb="POST", scope="resource", code="201", dry_run="") == 1
    assert moved("apiserver_request_total", verb="GET", scope="resource", code="200") >= 1
    assert moved("apiserver_request_total", verb="GET", scope="resource", code="404") >= 1
    assert moved("apiserver_request_total", verb="LIST", scope="namespace", code="200") >= 1
    assert moved("apiserver_request_total", verb="APPLY", scope="resource", code="201") == 1
    assert moved("apiserver_request_total", verb="DELETE", scope="resource", code="200") == 1
    assert moved("apiserver_request_duration_seconds_count", verb="POST", scope="resource") == 1
    assert moved("apiserver_request_duration_seconds_bucket", verb="POST", scope="resource", le="60.0") == 1
    assert value(after, "apiserver_storage_objects", resource="configmaps") >= 1
    assert value(after, "apiserver_storage_objects", resource="namespaces") >= 1
    storage = {"operation": "create", "type": "configmaps"}
    assert value(after, "etcd_request_duration_seconds_count", **storage) > value(
        before, "etcd_request_duration_seconds_count", **storage
    )
    assert value(after, "apiserver_current_inflight_requests", request_kind="readOnly") >= 0
    assert ("apiserver_current_inflight_requests", frozenset({("request_kind", "mutating")})) in after
    assert value(after, "process_cpu_seconds_total") > 0
    assert value(after, "python_info") == 1


def test_watches_are_long_running_requests_and_their_events_are_counted(
    kubectl: Kubectl, namespace: str
) -> None:
    """An open `kubectl get -w` is an `apiserver_longrunning_requests` WATCH; what it is sent counts
    in `apiserver_watch_events_total` by group, version and kind."""
    watcher = kubectl.popen("get", "configmaps", "-n", namespace, "-w", "-o", "name")
    try:
        watching = {"verb": "WATCH", "resource": "configmaps", "scope": "namespace", "component": "apiserver"}
        eventually(
            lambda: value(apiserver_metrics(kubectl), "apiserver_longrunning_requests", **watching) >= 1,
            what="the watch counted as long-running",
        )
        before = value(
            apiserver_metrics(kubectl), "apiserver_watch_events_total", version="v1", kind="ConfigMap"
        )
        kubectl("create", "configmap", "watched", "-n", namespace)
        eventually(
            lambda: (
                value(
                    apiserver_metrics(kubectl), "apiserver_watch_events_total", version="v1", kind="ConfigMap"
                )
                > before
            ),
            what="the watch event counted",
        )
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)
    pokes = iter(range(1000))

    def closed() -> bool:
        # The server learns that a client went away when it next writes to the stream: give it an event.
        kubectl("create", "configmap", f"poke-{next(pokes)}", "-n", namespace)
        return value(apiserver_metrics(kubectl), "apiserver_longrunning_requests", **watching) == 0

    eventually(closed, what="the closed watch no longer counted")


def test_only_monitoring_users_may_read_the_api_servers_metrics(kubectl: Kubectl) -> None:
    """The `system:monitoring` group may get /metrics (kube's bootstrap RBAC); another user is refused."""
    allowed = kubectl.run("get", "--raw", "/metrics", "--as=prometheus", "--as-group=system:monitoring")
    assert "apiserver_request_total" in allowed.stdout
    refused = kubectl.run("get", "--raw", "/metrics", "--as=someone", check=False)
    assert refused.returncode != 0
    assert 'cannot get path "/metrics"' in refused.stderr


def test_the_controller_managers_metrics_count_reconciles(
    manager: str, kubectl: Kubectl, namespace: str
) -> None:
    """The manager's /metrics, through prometheus_client: its controllers' reconciles and work queues
    move as the hub changes, beside the process and Python collectors."""

    def scrape() -> Samples:
        with urllib.request.urlopen(f"{manager}/metrics", timeout=10) as answer:
            assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            return parse(answer.read().decode())

    first = eventually(
        lambda: scrape() if value(scrape(), "flotilla_leader_is_leader") == 1 else None, what="lead"
    )
    kubectl("create", "namespace", f"{namespace}-more")
    eventually(
        lambda: value(scrape(), "flotilla_reconcile_total") > value(first, "flotilla_reconcile_total"),
        what="reconciles counted",
    )
    now = scrape()
    assert value(now, "flotilla_workqueue_adds_total") > 0
    assert value(now, "flotilla_reconcile_duration_seconds_count") > 0
    assert value(now, "process_resident_memory_bytes") > 0
    assert not any(name.endswith("_created") for name, _ in now)
