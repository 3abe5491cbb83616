"""How many etcd members and API servers `flotilla up` runs, and the combinations it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.cli.localhub.topology import PreviousRun, Topology, TopologyError, settle_topology

NEW = PreviousRun()
HA = PreviousRun(etcd_members=3, apiservers=2)


def test_a_plain_up_keeps_the_store_in_sqlite_with_one_api_server() -> None:
    """No flags on a new data dir: no etcd at all (zero members is not an even cluster)."""
    assert settle_topology(NEW) == Topology(etcd_members=0, apiservers=1)


def test_ha_is_three_etcd_members_and_two_api_servers_and_flags_refine_it() -> None:
    """--ha sets both; an explicit flag wins; more API servers alone bring etcd with them."""
    assert settle_topology(NEW, ha=True) == Topology(3, 2)
    assert settle_topology(NEW, ha=True, apiservers=3) == Topology(3, 3)
    assert settle_topology(NEW, apiservers=2) == Topology(3, 2)
    assert settle_topology(NEW, etcd_members=1) == Topology(1, 1)


def test_a_later_up_without_flags_resumes_what_the_data_dir_ran() -> None:
    """The etcd cluster and the API servers of the previous run are kept."""
    assert settle_topology(HA) == Topology(3, 2)
    assert settle_topology(HA, ha=True) == Topology(3, 2)
    assert settle_topology(HA, apiservers=1) == Topology(3, 1)


@pytest.mark.parametrize(
    ("previous", "flags", "message"),
    [
        (NEW, {"etcd_members": 2}, "odd number"),
        (NEW, {"etcd_members": 0, "apiservers": 2}, "only on etcd"),
        (HA, {"etcd_members": 5}, "has 3 members"),
        (PreviousRun(sqlite_store="DIR/hub/store.db"), {"ha": True}, "store migrate"),
    ],
)
def test_what_cannot_run_is_refused_with_what_to_do(
    previous: PreviousRun, flags: dict[str, Any], message: str
) -> None:
    """Even clusters, API servers sharing SQLite, a resized cluster and SQLite data under --ha."""
    with pytest.raises(TopologyError, match=message):
        settle_topology(previous, **flags)
