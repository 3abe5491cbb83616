"""Which controllers the failover switches keep from running, whatever `--controllers` says."""

from __future__ import annotations

from flotilla.controllers.registry import FACTORIES, switched_off
from flotilla.runtime.hubcontroller import FeatureGates, ManagerSettings


def test_failover_controllers_are_registered_and_run_by_default() -> None:
    assert {"taint-manager", "gracefulEviction"} <= set(FACTORIES)
    assert switched_off(ManagerSettings()) == frozenset()


def test_the_failover_gate_off_stops_the_taint_manager_but_not_graceful_eviction() -> None:
    """Karmada starts the graceful eviction controllers unconditionally: tasks of any producer finish."""
    off = switched_off(ManagerSettings(feature_gates=FeatureGates.parse("Failover=false")))
    assert "taint-manager" in off
    assert "gracefulEviction" not in off
    assert off <= set(FACTORIES)


def test_either_taint_manager_switch_off_stops_it() -> None:
    assert switched_off(ManagerSettings(enable_taint_manager=False)) == {"taint-manager"}
    assert switched_off(ManagerSettings(enable_no_execute_taint_eviction=False)) == {"taint-manager"}
