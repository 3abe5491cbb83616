"""Fixtures: a real API server process per test module, kubectl with a fresh cache, the Python client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.harness import Kubectl, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("apiserver")).start()
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


@pytest.fixture
def kubectl(server: ServerProcess, tmp_path: Path) -> Kubectl:
    return Kubectl(server.kubeconfig, tmp_path / "kube-cache")


@pytest.fixture
def namespace(kubectl: Kubectl) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:8]}"
    kubectl("create", "namespace", name)
    yield name
    kubectl.run("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture(scope="module")
def api_client(server: ServerProcess) -> Iterator[object]:
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=configuration)
    with client.ApiClient(configuration) as api:
        yield api
