"""Fixtures: a real API server process per test module, kubectl with a fresh cache, the Python client.

A module that runs a whole federation defines a module-scoped `federation` fixture (a started
`Federation`); `hub`, `members` and `ns` below then give each test kubectl against the hub and
every member, and a fresh namespace on the hub.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.federation import Federation
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess


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
    # The kubernetes client ships without type hints.
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(server.kubeconfig), client_configuration=configuration
    )
    with client.ApiClient(configuration) as api:
        yield api


@pytest.fixture
def hub(federation: Federation, tmp_path: Path) -> Kubectl:
    """kubectl against the federation's hub."""
    return federation.kubectl(tmp_path / "hub-cache")


@pytest.fixture
def members(federation: Federation, tmp_path: Path) -> dict[str, Kubectl]:
    """kubectl against each member of the federation, by cluster name."""
    return federation.member_kubectls(tmp_path)


@pytest.fixture
def ns(hub: Kubectl) -> str:
    """A fresh namespace on the hub, left behind: the module's processes and data go when it ends."""
    name = f"t-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    return name
