"""SpreadConstraint: clusters must carry the property the placement spreads by."""

from __future__ import annotations

import pytest

from flotilla.scheduler.plugins.spreadconstraint import SpreadConstraint
from tests.unit.scheduler.manifests import binding, cluster


@pytest.mark.parametrize(
    ("field", "reason"),
    [
        ("region", "cluster(s) didn't have region property"),
        ("provider", "cluster(s) didn't have provider property"),
        ("zone", "cluster(s) didn't have zone property"),
    ],
)
def test_cluster_missing_the_spread_property_is_rejected(field: str, reason: str) -> None:
    """Spreading by a property rejects clusters that do not have it."""
    placement = {"spreadConstraints": [{"spreadByField": field, "minGroups": 1, "maxGroups": 2}]}
    assert SpreadConstraint().filter(binding(placement=placement), cluster("a")).reasons == (reason,)


def test_cluster_with_the_property_fits() -> None:
    """A cluster with a region passes a region spread."""
    placement = {"spreadConstraints": [{"spreadByField": "region", "minGroups": 1, "maxGroups": 2}]}
    assert SpreadConstraint().filter(binding(placement=placement), cluster("a", region="eu")).is_success


def test_spreading_by_cluster_needs_no_property() -> None:
    """Every cluster is its own cluster group."""
    placement = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2}]}
    assert SpreadConstraint().filter(binding(placement=placement), cluster("a")).is_success
