"""`flotilla controller-manager`'s failover flags: Karmada's spellings, Flotilla's defaults, refusals."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from flotilla.cli.components.controllermanager import controller_manager, controllers_spec
from flotilla.controllers.registry import DEFAULT_OFF, FACTORIES, switched_off
from flotilla.runtime.hubcontroller import FeatureGates, ManagerSettings
from flotilla.runtime.manager import select_controllers


def enabled(controllers: str, settings: ManagerSettings) -> list[str]:
    return select_controllers(controllers_spec(controllers, switched_off(settings)), FACTORIES, DEFAULT_OFF)


def test_failover_runs_by_default() -> None:
    chosen = enabled("*", ManagerSettings())
    assert "taint-manager" in chosen
    assert "gracefulEviction" in chosen


def test_the_failover_gate_off_wins_over_naming_the_taint_manager() -> None:
    settings = ManagerSettings(feature_gates=FeatureGates.parse("Failover=false"))
    assert "taint-manager" not in enabled("*", settings)
    assert enabled("taint-manager,gracefulEviction", settings) == ["gracefulEviction"]
    assert "taint-manager" not in enabled("", settings), "an empty --controllers still means the defaults"
    assert "binding" in enabled("", settings)


def test_the_spec_is_untouched_when_nothing_is_switched_off() -> None:
    assert controllers_spec("*,-namespace", ()) == "*,-namespace"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--feature-gates", "Failover=perhaps"], "invalid value of Failover: perhaps"),
        (["--feature-gates", "Teleport=true"], "unrecognized feature gate: Teleport"),
        (["--resource-eviction-rate", "0"], "0.0 is not in the range x>0"),
        (["--no-execute-taint-eviction-purge-mode", "Never"], "'Never' is not one of"),
        (["--graceful-eviction-timeout", "soon"], "soon"),
    ],
)
def test_mistaken_flags_are_refused_before_anything_starts(flags: list[str], message: str) -> None:
    result = CliRunner().invoke(controller_manager, ["--kubeconfig", "/nonexistent/kubeconfig", *flags])
    assert result.exit_code == 2, result.output
    assert message in result.output
