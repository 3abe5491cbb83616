"""`flotilla taint` and `cordon` around the hub: argument errors, and writes guarded by resourceVersion."""

from __future__ import annotations

from typing import Any

import click
import pytest
from click.testing import CliRunner

from flotilla.cli.commands.cordon import taint, update_cluster_taints
from flotilla.cli.membership.taints import cordon_taints
from flotilla.client import Conflict


def test_only_clusters_can_be_tainted() -> None:
    """Another resource type is a usage error naming the supported ones."""
    result = CliRunner().invoke(taint, ["nodes", "n1", "a:NoSchedule"])
    assert result.exit_code == 2
    assert 'invalid resource type nodes, only ["cluster" "clusters"] are supported' in result.output


def test_a_taint_change_and_a_cluster_name_are_required() -> None:
    """No change, or no cluster name, are usage errors."""
    no_change = CliRunner().invoke(taint, ["clusters", "member1"])
    assert no_change.exit_code == 2
    assert "at least one taint update is required" in no_change.output
    no_name = CliRunner().invoke(taint, ["clusters", "a:NoSchedule"])
    assert no_name.exit_code == 2
    assert "at least one resource name must be specified" in no_name.output


def test_an_invalid_taint_is_a_one_line_error_with_exit_1() -> None:
    """An unsupported effect is kubectl's message, without a traceback."""
    result = CliRunner().invoke(taint, ["clusters", "member1", "a=b:Sometimes"])
    assert result.exit_code == 1
    assert result.stderr == "Error: invalid taint effect: Sometimes, unsupported taint effect\n"


class ChangingHub:
    """A hub whose Cluster changes between the read and the write `conflicts` times."""

    def __init__(self, conflicts: int) -> None:
        self.conflicts = conflicts
        self.version = 1
        self.taints: list[dict[str, str]] = [{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}]
        self.patches: list[dict[str, Any]] = []

    async def get(self, kind: object, name: str) -> dict[str, Any]:
        return {
            "metadata": {"name": name, "resourceVersion": str(self.version)},
            "spec": {"taints": self.taints},
        }

    async def patch(self, kind: object, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        self.patches.append(patch)
        if self.conflicts:
            self.conflicts -= 1
            self.version += 1
            raise Conflict(409, {"reason": "Conflict", "message": "the object has been modified"})
        self.taints = patch["spec"]["taints"]
        return {}


def cordon(taints: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, str]:
    return cordon_taints(taints, True), "cordoned"


def clear(taints: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, str]:
    return [], "untainted"


def unchanged(taints: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, str]:
    return None, "already cordoned"


async def test_a_taint_change_is_written_against_the_version_it_was_computed_from_and_retried() -> None:
    """Each write carries the resourceVersion read; after a Conflict the change is recomputed and written."""
    hub = ChangingHub(conflicts=2)
    assert await update_cluster_taints(hub, "member1", cordon, False) == "cordoned"
    assert [patch["metadata"] for patch in hub.patches] == [{"resourceVersion": v} for v in ("1", "2", "3")]
    assert {"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"} in hub.taints


async def test_a_cluster_that_keeps_changing_gives_up_with_a_clear_error() -> None:
    """After a few Conflicts in a row the command stops and says why."""
    hub = ChangingHub(conflicts=100)
    with pytest.raises(click.ClickException, match="kept changing"):
        await update_cluster_taints(hub, "member1", clear, False)


async def test_dry_run_and_no_change_write_nothing() -> None:
    """A dry run, or a cluster already as asked, is read but not patched."""
    hub = ChangingHub(conflicts=0)
    assert await update_cluster_taints(hub, "m", clear, True) == "untainted"
    assert await update_cluster_taints(hub, "m", unchanged, False) == "already cordoned"
    assert hub.patches == []


@pytest.mark.parametrize("command", ["cordon", "uncordon", "taint"])
def test_help_shows_examples(command: str) -> None:
    """Each command documents itself with an Examples block."""
    from flotilla.cli.commands import cordon as module

    result = CliRunner().invoke(getattr(module, command), ["--help"])
    assert result.exit_code == 0
    assert f"  Examples:\n    flotilla {command} " in result.output
