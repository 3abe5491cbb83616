"""The descheduler and the estimator in `flotilla controller-manager`: on by default, with Karmada's flags."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from flotilla.cli.components.controllermanager import controller_manager, controllers_spec
from flotilla.controllers.registry import DEFAULT_OFF, FACTORIES, switched_off
from flotilla.runtime.hubcontroller import ManagerSettings
from flotilla.runtime.manager import select_controllers


def enabled(controllers: str) -> list[str]:
    settings = ManagerSettings()
    return select_controllers(controllers_spec(controllers, switched_off(settings)), FACTORIES, DEFAULT_OFF)


def test_the_descheduler_runs_by_default_and_can_be_left_out() -> None:
    assert "descheduler" in enabled("*")
    assert "descheduler" not in enabled("*,-descheduler")


def test_karmadas_defaults_for_the_intervals_and_flotillas_for_the_estimator() -> None:
    settings = ManagerSettings()
    assert (settings.descheduling_interval, settings.unschedulable_threshold) == (120.0, 300.0)
    assert settings.enable_scheduler_estimator
    assert settings.scheduler_estimator_timeout == 3.0


@pytest.mark.parametrize(
    "flags",
    [
        ["--descheduling-interval", "often"],
        ["--unschedulable-threshold", "a while"],
        ["--scheduler-estimator-timeout", "3 parsecs"],
        ["--enable-scheduler-estimator", "sometimes"],
    ],
)
def test_mistaken_flags_are_refused_before_anything_starts(flags: list[str]) -> None:
    result = CliRunner().invoke(controller_manager, ["--kubeconfig", "/nonexistent/kubeconfig", *flags])
    assert result.exit_code == 2, result.output
    assert flags[0] in result.output
