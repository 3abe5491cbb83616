"""Which controllers the failover switches and the MultiClusterService gate keep from running, whatever
`--controllers` says."""

from __future__ import annotations

from flotilla.controllers.registry import FACTORIES, switched_off
from flotilla.runtime.hubcontroller import FeatureGates, ManagerSettings


def test_failover_controllers_are_registered_and_run_by_default() -> None:
    assert {"taint-manager", "gracefulEviction"} <= set(FACTORIES)
    assert switched_off(ManagerSettings()) == {"multiclusterservice"}


def test_the_failover_gate_off_stops_the_taint_manager_but_not_graceful_eviction() -> None:
    """Karmada starts the graceful eviction controllers unconditionally: tasks of any producer finish."""
    off = switched_off(ManagerSettings(feature_gates=FeatureGates.parse("Failover=false")))
    assert "taint-manager" in off
    assert "gracefulEviction" not in off
    assert off <= set(FACTORIES)


def test_either_taint_manager_switch_off_stops_it() -> None:
    mcs_gate = FeatureGates.parse("MultiClusterService=true")
    assert switched_off(ManagerSettings(enable_taint_manager=False, feature_gates=mcs_gate)) == {
        "taint-manager"
    }
    assert switched_off(ManagerSettings(enable_no_execute_taint_eviction=False, feature_gates=mcs_gate)) == {
        "taint-manager"
    }


def test_the_multicluster_service_gate_runs_karmadas_controller_and_the_mcs_api_runs_always() -> None:
    """As in Karmada: MultiClusterService is an alpha gate, off by default; serviceExport is not gated."""
    assert {"serviceExport", "multiclusterservice"} <= set(FACTORIES)
    assert "multiclusterservice" in switched_off(ManagerSettings())
    gate_on = ManagerSettings(feature_gates=FeatureGates.parse("MultiClusterService=true"))
    assert switched_off(gate_on) == frozenset()
