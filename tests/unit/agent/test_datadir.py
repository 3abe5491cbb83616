"""The agent's data directory: agent.json, missing credentials, and the atomic kubeconfig rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from flotilla.agent.datadir import AgentConfigError, DataDir, Registration, parse_registration


def test_agent_json_names_the_cluster_and_the_hub() -> None:
    """camelCase keys as register writes them; snake_case accepted too."""
    assert parse_registration('{"clusterName": "a", "hubServer": "https://hub"}') == Registration(
        "a", "https://hub"
    )
    assert parse_registration('{"cluster_name": "a"}') == Registration("a", "")


def test_a_broken_agent_json_says_what_is_wrong() -> None:
    """Invalid JSON, or JSON that is not an object, is an error naming the file."""
    with pytest.raises(AgentConfigError, match=r"agent.json is not valid JSON"):
        parse_registration("{")
    with pytest.raises(AgentConfigError, match=r"agent.json is not a JSON object"):
        parse_registration("[]")


def test_a_directory_without_credentials_points_at_register(tmp_path: Path) -> None:
    """No hub.kubeconfig: the error says to register first; no agent.json is an empty registration."""
    data_dir = DataDir(tmp_path)
    with pytest.raises(AgentConfigError, match="register the cluster first"):
        data_dir.check()
    assert data_dir.registration() == Registration()


def test_the_hub_kubeconfig_is_replaced_whole_and_private(tmp_path: Path) -> None:
    """The new file replaces the old one, mode 0600, and no temporary file is left beside it."""
    data_dir = DataDir(tmp_path)
    data_dir.hub_kubeconfig.write_text("old")
    data_dir.replace_hub_kubeconfig("new")
    assert data_dir.hub_kubeconfig.read_text() == "new"
    assert data_dir.hub_kubeconfig.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["hub.kubeconfig"]
