"""The `flotilla apiserver` process: certificates, authentication, shutdown, restart and kill -9."""

from __future__ import annotations

import json
import signal
import ssl
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from cryptography import x509

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually


def admin_context(data_dir: Path) -> ssl.SSLContext:
    pki = data_dir / "pki"
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return context


def call(url: str, context: ssl.SSLContext, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_first_start_creates_pki_and_kubeconfig(server: ServerProcess) -> None:
    """The data dir gets a CA, a serving cert covering loopback names and an admin kubeconfig."""
    pki = server.data_dir / "pki"
    for name in ("ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key"):
        assert (pki / name).exists(), name
    serving = x509.load_pem_x509_certificate((pki / "apiserver.crt").read_bytes())
    sans = serving.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in sans.get_values_for_type(x509.DNSName)
    assert {str(ip) for ip in sans.get_values_for_type(x509.IPAddress)} >= {"127.0.0.1", "::1"}
    admin = x509.load_pem_x509_certificate((pki / "admin.crt").read_bytes())
    organizations = [a.value for a in admin.subject.get_attributes_for_oid(x509.NameOID.ORGANIZATION_NAME)]
    assert organizations == ["system:masters"]
    config = yaml.safe_load(server.kubeconfig.read_text())
    assert config["clusters"][0]["cluster"]["server"] == server.url


def test_requests_without_a_client_certificate_get_401(server: ServerProcess) -> None:
    """Without a client certificate the API answers 401 Unauthorized; health and version stay public."""
    anonymous = ssl.create_default_context(cafile=str(server.data_dir / "pki" / "ca.crt"))
    status, body = call(f"{server.url}/api/v1/namespaces", anonymous)
    assert status == 401
    assert body["kind"] == "Status" and body["reason"] == "Unauthorized"
    with urllib.request.urlopen(f"{server.url}/healthz", context=anonymous, timeout=10) as response:
        assert response.read() == b"ok"
    status, version = call(f"{server.url}/version", anonymous)
    assert status == 200 and version["major"] == "1" and version["minor"] == "32"


def test_openapi_v2_is_one_document_and_v3_lists_group_versions(server: ServerProcess) -> None:
    """/openapi/v2 is one Swagger 2.0 document of every kind; /openapi/v3 lists one per group version."""
    context = admin_context(server.data_dir)
    status, swagger = call(f"{server.url}/openapi/v2", context)
    assert status == 200 and swagger["swagger"] == "2.0"
    assert "io.k8s.api.apps.v1.Deployment" in swagger["definitions"]
    status, root = call(f"{server.url}/openapi/v3", context)
    assert status == 200
    assert {"api/v1", "apis/apps/v1", "apis/apiextensions.k8s.io/v1"} <= set(root["paths"])
    status, document = call(f"{server.url}{root['paths']['apis/apps/v1']['serverRelativeURL']}", context)
    assert status == 200
    patch = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert any(p.get("name") == "fieldValidation" for p in patch["parameters"])


def test_aggregated_discovery_is_served_when_asked(server: ServerProcess) -> None:
    """/apis answers APIGroupDiscoveryList v2 for clients that ask for it."""
    request = urllib.request.Request(
        f"{server.url}/apis",
        headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        },
    )
    with urllib.request.urlopen(request, context=admin_context(server.data_dir), timeout=10) as response:
        assert "as=APIGroupDiscoveryList" in response.headers["Content-Type"]
        body = json.loads(response.read())
    groups = {item["metadata"]["name"]: item for item in body["items"]}
    deployments = next(
        r for r in groups["apps"]["versions"][0]["resources"] if r["resource"] == "deployments"
    )
    assert deployments["scope"] == "Namespaced"
    assert {s["subresource"] for s in deployments["subresources"]} == {"scale", "status"}


def test_sigterm_stops_cleanly_and_state_survives_restart(tmp_path: Path) -> None:
    """SIGTERM exits 0; a restart on the same data dir serves the same objects and certificates."""
    process = ServerProcess(tmp_path / "hub").start()
    kubectl = Kubectl(process.kubeconfig, tmp_path / "cache")
    kubectl("create", "configmap", "kept", "--from-literal=a=b")
    ca_before = (tmp_path / "hub" / "pki" / "ca.crt").read_bytes()
    assert process.stop(signal.SIGTERM) == 0
    process.start()
    try:
        kubectl = Kubectl(process.kubeconfig, tmp_path / "cache2")
        assert kubectl.json("get", "cm", "kept")["data"] == {"a": "b"}
        assert (tmp_path / "hub" / "pki" / "ca.crt").read_bytes() == ca_before
    finally:
        assert process.stop() == 0


def test_kill_9_during_a_burst_of_creates_loses_no_acknowledged_write(tmp_path: Path) -> None:
    """Every create answered 201 before a kill -9 is there after restart; resourceVersions keep rising."""
    process = ServerProcess(tmp_path / "hub").start()
    context = admin_context(tmp_path / "hub")
    acknowledged: list[tuple[str, int]] = []
    stop = threading.Event()

    def burst(worker: int) -> None:
        sequence = 0
        while not stop.is_set():
            name = f"c-{worker}-{sequence}"
            sequence += 1
            try:
                status, body = call(
                    f"{process.url}/api/v1/namespaces/default/configmaps",
                    context,
                    "POST",
                    {"metadata": {"name": name}, "data": {"n": str(sequence)}},
                )
            except (OSError, urllib.error.URLError):
                return
            if status == 201:
                acknowledged.append((name, int(body["metadata"]["resourceVersion"])))

    workers = [threading.Thread(target=burst, args=(i,)) for i in range(8)]
    for worker in workers:
        worker.start()
    eventually(lambda: len(acknowledged) >= 300, timeout=20, what="300 writes acknowledged mid-burst")
    process.stop(signal.SIGKILL)
    stop.set()
    for worker in workers:
        worker.join()

    process.start()
    try:
        status, listing = call(f"{process.url}/api/v1/namespaces/default/configmaps", context)
        assert status == 200
        stored = {item["metadata"]["name"] for item in listing["items"]}
        missing = [name for name, _ in acknowledged if name not in stored]
        assert missing == []
        highest = max(rv for _, rv in acknowledged)
        status, created = call(
            f"{process.url}/api/v1/namespaces/default/configmaps",
            context,
            "POST",
            {"metadata": {"name": "after-restart"}},
        )
        assert status == 201
        assert int(created["metadata"]["resourceVersion"]) > highest
    finally:
        process.stop()
