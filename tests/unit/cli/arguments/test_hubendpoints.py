"""`--hub-endpoints`: parsed once for the controller manager, the agent and every hub verb, with a
usage error naming a malformed URL, and `FLOTILLA_HUB_ENDPOINTS` for the verbs."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from flotilla.cli.components.agent import agent
from flotilla.cli.components.controllermanager import controller_manager
from flotilla.cli.hub.connection import HubTarget, hub_options


@click.command()
@hub_options
def show_target(kubeconfig: Path | None, context: str | None) -> None:
    click.echo(",".join(HubTarget(kubeconfig, context).endpoints))


def test_a_hub_verb_hands_its_endpoints_to_the_hub_target() -> None:
    result = CliRunner().invoke(show_target, ["--hub-endpoints", "https://b:6443/, https://c:6443"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "https://b:6443,https://c:6443"


def test_the_environment_names_the_endpoints_when_the_flag_does_not() -> None:
    runner = CliRunner()
    result = runner.invoke(show_target, [], env={"FLOTILLA_HUB_ENDPOINTS": "https://b:6443"})
    assert result.output.strip() == "https://b:6443"
    result = runner.invoke(
        show_target, ["--hub-endpoints", "https://c:6443"], env={"FLOTILLA_HUB_ENDPOINTS": "https://b:6443"}
    )
    assert result.output.strip() == "https://c:6443"
    assert runner.invoke(show_target, []).output.strip() == ""


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        (controller_manager, ["--kubeconfig", "/nonexistent/kubeconfig"]),
        (agent, ["--data-dir", "/nonexistent/agent"]),
        (show_target, []),
    ],
)
def test_a_malformed_endpoint_is_a_usage_error_naming_it(
    command: click.Command, arguments: list[str]
) -> None:
    result = CliRunner().invoke(command, [*arguments, "--hub-endpoints", "https://b:6443,b:6443"])
    assert result.exit_code == 2
    assert "'b:6443' is not an API server URL" in result.output
