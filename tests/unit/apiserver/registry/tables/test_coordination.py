from datetime import UTC, datetime

from flotilla.apiserver.registry.tables.coordination import LEASE

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def test_lease_row_shows_holder() -> None:
    """A lease prints its holder identity, empty when nobody holds it."""
    lease = {
        "metadata": {"name": "flotilla-scheduler", "creationTimestamp": "2025-03-01T08:00:00Z"},
        "spec": {"holderIdentity": "scheduler-0_1f2e", "leaseDurationSeconds": 15},
    }
    assert LEASE.cells(lease, NOW) == ["flotilla-scheduler", "scheduler-0_1f2e", "4h"]
    assert LEASE.cells({"metadata": {"name": "free"}, "spec": {}}, NOW)[1] == ""
