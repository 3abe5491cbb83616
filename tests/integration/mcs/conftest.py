"""One clusterset for the MCS tests of a worker: hub, three simulated members, a controller manager.

Package-scoped, so the MCS API, DNS and MultiClusterService modules share its start-up; each test
works in a namespace of its own, created on the hub (namespace sync puts it in every member).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.integration.federation import Federation
from tests.integration.mcs.clusterset import Member, clusterset, members_of
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually


@pytest.fixture(scope="package")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    yield from clusterset(tmp_path_factory.mktemp("mcs"))


@pytest.fixture(scope="package")
def clients(federation: Federation) -> Iterator[dict[str, Member]]:
    found = members_of(federation)
    yield found
    for member in found.values():
        member.close()


@pytest.fixture
def namespace(hub: Kubectl, clients: dict[str, Member], members: dict[str, Kubectl]) -> str:
    """A fresh namespace on the hub, once every member has it."""
    name = f"mcs-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    eventually(
        lambda: all(m.succeeds("get", "namespace", name) for m in members.values()), what="namespace synced"
    )
    return name
