"""The agent's data directory as `register` leaves it: hub kubeconfig, settings, command line, pid file."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.pki.directory import create_ca
from flotilla.cli.registration.data import agent_command, agent_settings, hub_kubeconfig, running_agent
from flotilla.cli.registration.request import new_agent_key
from flotilla.client.kubeconfig import load_kubeconfig

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
SERVER = "https://10.0.0.1:6443"


@pytest.fixture(scope="module")
def ca_pem() -> bytes:
    certificate, _ = create_ca("hub-ca", NOW)
    return certificate.public_bytes(serialization.Encoding.PEM)


def test_the_hub_kubeconfig_loads_with_the_agent_s_credentials(tmp_path: Path, ca_pem: bytes) -> None:
    """What register writes is a kubeconfig our client reads back whole."""
    key = new_agent_key("east")
    path = tmp_path / "hub.kubeconfig"
    path.write_text(hub_kubeconfig(SERVER, ca_pem, b"CERT", key.private_key_pem, "east"))
    config = load_kubeconfig(path)
    assert (config.server, config.ca_pem, config.client_cert_pem, config.client_key_pem) == (
        SERVER,
        ca_pem,
        b"CERT",
        key.private_key_pem,
    )


def test_agent_settings_name_the_cluster_and_the_hub() -> None:
    """agent.json carries the keys the agent reads."""
    assert '"clusterName": "east"' in agent_settings("east", SERVER, "id-1")
    assert f'"hubServer": "{SERVER}"' in agent_settings("east", SERVER, "id-1")


def test_the_agent_command_uses_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths given to register still work for an agent started elsewhere."""
    monkeypatch.chdir(tmp_path)
    command = agent_command(Path("data"), Path("member.kubeconfig"), "ctx", "east")
    assert command[1:4] == ["-m", "flotilla", "agent"]
    assert command[command.index("--data-dir") + 1] == str(tmp_path / "data")
    assert command[command.index("--kubeconfig") + 1] == str(tmp_path / "member.kubeconfig")
    assert command[-2:] == ["--context", "ctx"]


def test_a_pid_file_counts_only_while_its_process_lives(tmp_path: Path) -> None:
    """This process's pid is alive; a pid no process has, or no file, is not."""
    assert running_agent(tmp_path) is None
    (tmp_path / "agent.pid").write_text(f"{os.getpid()}\n")
    assert running_agent(tmp_path) == os.getpid()
    (tmp_path / "agent.pid").write_text("999999999\n")
    assert running_agent(tmp_path) is None
