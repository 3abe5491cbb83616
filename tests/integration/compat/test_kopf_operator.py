"""kopf (the Python operator framework) runs an operator with a finalizer against the hub.

kopf puts its finalizer on each object with a JSON patch that first tests metadata.resourceVersion,
stores handler progress in the status subresource and posts Events with `+00:00` timestamps. When a
server refuses the guarded patch, kopf retries forever and never runs a handler, silently: this test
is the operator's whole life — create, update, delete — as kopf's users rely on it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.compat.conftest import client_namespace
from tests.integration.federation import Federation
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

OPERATOR = Path(__file__).parent / "operators" / "widgets.py"
GROUP, VERSION, PLURAL = "compat.flotilla.io", "v1", "widgets"
"""What the operator serves (it names the same; kopf is imported only in its own process)."""
NAMESPACE = "kopf"
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"


def widget_crd() -> dict[str, Any]:
    open_object = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": PLURAL, "singular": "widget", "kind": "Widget"},
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": open_object, "status": open_object},
                        }
                    },
                }
            ],
        },
    }


@pytest.fixture(scope="module")
def operator(
    federation: Federation, hub_admin: Kubectl, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The widgets operator under `kopf run` against the hub; yields the file its delete handler writes."""
    client_namespace(hub_admin, NAMESPACE)
    hub_admin.apply_yaml(widget_crd())
    hub_admin("wait", "--for=condition=Established", f"crd/{PLURAL}.{GROUP}", "--timeout=30s")
    folder = tmp_path_factory.mktemp("kopf")
    record = folder / "record.txt"
    record.touch()
    environ = {**os.environ, "KUBECONFIG": str(federation.hub.kubeconfig), "WIDGETS_RECORD": str(record)}
    command = [
        sys.executable,
        "-m",
        "kopf",
        "run",
        "--standalone",
        "--namespace",
        NAMESPACE,
        str(OPERATOR),
    ]
    with (folder / "kopf.log").open("w") as log:
        process = subprocess.Popen(command, env=environ, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield record
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def widget(hub_admin: Kubectl, name: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = hub_admin.json_or_none("get", "widget", name, "-n", NAMESPACE)
    return found


def test_kopf_finalizer_and_handlers_run(operator: Path, hub_admin: Kubectl) -> None:
    """kopf adds its finalizer, runs create and update handlers, and on delete runs its handler first."""
    hub_admin.apply_yaml(
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "Widget",
            "metadata": {"name": "w1"},
            "spec": {"size": 1},
        },
        "-n",
        NAMESPACE,
    )
    made = eventually(
        lambda: widget(hub_admin, "w1"),
        until=lambda obj: obj is not None and (obj.get("status") or {}).get("phase") == "Made",
        timeout=60,
        what="kopf's create handler set status.phase",
    )
    assert made is not None and FINALIZER in made["metadata"].get("finalizers", [])
    hub_admin("patch", "widget", "w1", "-n", NAMESPACE, "--type", "merge", "-p", '{"spec":{"size":3}}')
    eventually(
        lambda: widget(hub_admin, "w1"),
        until=lambda obj: obj is not None and obj["status"].get("size") == 3,
        timeout=60,
        what="kopf's update handler set status.size",
    )
    hub_admin("delete", "widget", "w1", "-n", NAMESPACE, "--timeout=60s")
    assert widget(hub_admin, "w1") is None
    assert operator.read_text().splitlines() == ["deleted w1"]


def test_kopf_events_are_stored_with_utc_timestamps(operator: Path, hub_admin: Kubectl) -> None:
    """The Events kopf posts with `+00:00` offsets are served back in UTC with `Z`, as kube-apiserver does."""
    hub_admin.apply_yaml(
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "Widget",
            "metadata": {"name": "w2"},
            "spec": {"size": 1},
        },
        "-n",
        NAMESPACE,
    )

    def kopf_events() -> list[dict[str, Any]]:
        events = hub_admin.json(
            "get", "events", "-n", NAMESPACE, "--field-selector", "involvedObject.name=w2"
        )
        return [event for event in events["items"] if event.get("reason") == "Made"]

    events = eventually(kopf_events, timeout=60, what="kopf posted an Event about w2")
    for event in events:
        assert event["firstTimestamp"].endswith("Z") and event["lastTimestamp"].endswith("Z"), event
        assert "+00:00" not in (event.get("eventTime") or ""), event
