"""The API server suite again, on etcd: the same test functions, with `server` on a real etcd member.

Each module here imports the tests of one module of the integration suite; this conftest's
`server` fixture takes the place of the SQLite-backed one for them (pytest resolves a test's
fixtures from the module that collects it). A representative part of the suite runs here —
kubectl, watches, the Python client, server-side apply, CRD versions, errors, Karmada's API — so
`make test` holds the API on both stores without running every module twice.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.processes import ServerProcess
from tests.unit.storage.etcdserver import ETCD, MISSING_REASON, EtcdServer, running_member


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    if ETCD is None:
        pytest.skip(MISSING_REASON)
    yield from running_member(tmp_path_factory.mktemp("etcd"))


@pytest.fixture(scope="module")
def server(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path_factory.mktemp("apiserver"), extra_args=[f"--etcd-servers={etcd.url}"]
    ).start()
    assert f"etcd='{etcd.url.split('://')[1]}'" in process.log(), "the API server did not open etcd"
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"
