"""Golden layout of `flotilla describe deployment`: the object, its Propagation and its Events.

The Deployment and its ResourceBinding were recorded from a hub running the nginx walkthrough
(split 1:1 over member1 and member2); the events are written by hand. Regenerate the expected
output after an intended change with `FLOTILLA_UPDATE_GOLDEN=1 pytest tests/unit/cli`.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flotilla.cli.commands.describe import Related, render_description
from flotilla.client.discovery import ResourceInfo

GOLDEN = Path(__file__).parents[1] / "golden"
"""Answers of a real hub and its members, shared by the tests of `get`, `describe` and the descriptions."""
NOW = datetime(2026, 11, 29, 20, 15, tzinfo=UTC)
DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)


def recorded(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text())


def assert_golden(name: str, actual: str) -> None:
    """Compare with golden/<name>, or rewrite it when FLOTILLA_UPDATE_GOLDEN is set."""
    path = GOLDEN / name
    if os.environ.get("FLOTILLA_UPDATE_GOLDEN"):
        path.write_text(actual)
    assert path.exists(), f"no golden file {path}; run with FLOTILLA_UPDATE_GOLDEN=1 to create it"
    assert actual == path.read_text()


def test_describe_deployment_shows_the_object_its_propagation_and_events() -> None:
    """A template on the hub: kubectl's layout, then the binding's clusters, then the events."""
    related = Related(
        binding_label="default/nginx-deployment",
        binding=recorded("resourcebinding.json"),
        events=recorded("deployment.events.json"),
    )
    output = render_description(DEPLOYMENTS, recorded("deployment.hub.json"), related, NOW)
    lines = output.splitlines()
    assert lines[0] == "Name:         nginx" and lines[1] == "Namespace:    default"
    assert "  Policy:         PropagationPolicy default/nginx-propagation" in lines
    assert lines[-1].split()[:3] == ["Normal", "SyncSucceed", "3m"]
    assert_golden("describe_deployment.txt", output)


def test_describe_without_a_binding_says_no_policy_selects_the_template() -> None:
    """A template no policy selected gets a one-line Propagation section instead of a table."""
    related = Related(binding_label="default/nginx-deployment", binding=None, events=[])
    output = render_description(DEPLOYMENTS, recorded("deployment.hub.json"), related, NOW)
    lines = [" ".join(line.split()) for line in output.splitlines()]
    assert (
        "Propagation: <none> (no binding default/nginx-deployment: no propagation policy selects it)" in lines
    )
    assert lines[-1] == "Events: <none>"
    assert "Clusters:" not in " ".join(lines)


def test_describe_on_a_member_has_neither_propagation_nor_hidden_events() -> None:
    """Without a binding label there is no Propagation section; `events=None` leaves Events out."""
    output = render_description(DEPLOYMENTS, recorded("deployment.member1.json"), Related(), NOW)
    assert "Propagation" not in output and "Events" not in output
    assert "              karmada.io/managed=true\n" in output
