"""The `flotilla plan` command: its help, and one-line errors with exit code 1 before any plan."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from flotilla.cli.main import cli

DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"


def unreachable_kubeconfig(path: Path) -> Path:
    """A kubeconfig for a hub nobody listens for (port 1 on loopback refuses at once)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "hub", "cluster": {"server": "https://127.0.0.1:1", "insecure-skip-tls-verify": True}}
        ],
        "users": [{"name": "admin", "user": {"token": "not-a-real-token"}}],
        "contexts": [{"name": "hub", "context": {"cluster": "hub", "user": "admin"}}],
        "current-context": "hub",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def test_help_explains_the_preview_with_examples() -> None:
    """`--help` has an Examples block and lists the options."""
    result = CliRunner().invoke(cli, ["plan", "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output
    for option in ("--filename", "--output", "--kubeconfig", "--context", "--namespace"):
        assert option in result.output


def test_without_manifests_or_taints_it_is_a_usage_error() -> None:
    """`-f` is required unless `--taint` is given; click reports the usage error with exit code 2."""
    result = CliRunner().invoke(cli, ["plan"])
    assert result.exit_code == 2
    assert "--filename" in result.output and "--taint" in result.output


def test_help_shows_the_taint_what_if() -> None:
    """`--taint` is listed with its syntax and an example."""
    result = CliRunner().invoke(cli, ["plan", "--help"])
    assert "--taint CLUSTER=KEY[=VALUE]:EFFECT" in result.output
    assert "flotilla plan --taint member2=maintenance:NoExecute" in result.output


@pytest.mark.parametrize(
    ("taint", "message"),
    [
        (
            "maintenance:NoExecute",
            'Error: invalid --taint "maintenance:NoExecute": expected CLUSTER=KEY[=VALUE]:EFFECT',
        ),
        (
            "member2=maintenance:Evict",
            'Error: invalid --taint "member2=maintenance:Evict": '
            "invalid taint effect: Evict, unsupported taint effect",
        ),
    ],
)
def test_a_bad_taint_is_a_one_line_error_before_the_hub_is_asked(
    tmp_path: Path, taint: str, message: str
) -> None:
    """kubectl taint's syntax is checked first: one `Error:` line, exit code 1, the hub never asked."""
    result = CliRunner().invoke(
        cli, ["plan", "--taint", taint, "--kubeconfig", str(unreachable_kubeconfig(tmp_path / "k"))]
    )
    assert result.exit_code == 1
    assert result.output == message + "\n"


def test_an_unreadable_manifest_is_a_one_line_error(tmp_path: Path) -> None:
    """Bad YAML stops the plan before the hub is asked: one `Error:` line, exit code 1."""
    manifest = tmp_path / "bad.yaml"
    manifest.write_text("kind: [unclosed")
    result = CliRunner().invoke(
        cli, ["plan", "-f", str(manifest), "--kubeconfig", str(unreachable_kubeconfig(tmp_path / "k"))]
    )
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: error parsing {manifest}: ")
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_a_manifest_without_a_name_is_an_error_before_any_plan(tmp_path: Path) -> None:
    """Every object is planned under its name: one without `metadata.name` is refused, exit code 1."""
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: shop}\n")
    result = CliRunner().invoke(
        cli, ["plan", "-f", str(manifest), "--kubeconfig", str(unreachable_kubeconfig(tmp_path / "k"))]
    )
    assert result.exit_code == 1
    assert result.output == f'Error: unable to plan "{manifest}": a ConfigMap has no metadata.name\n'


def test_an_unreachable_hub_is_a_one_line_error(tmp_path: Path) -> None:
    """A hub that does not answer is exit code 1 with one line, never a traceback."""
    manifest = tmp_path / "web.yaml"
    manifest.write_text(DEPLOYMENT)
    result = CliRunner().invoke(
        cli, ["plan", "-f", str(manifest), "--kubeconfig", str(unreachable_kubeconfig(tmp_path / "k"))]
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "127.0.0.1:1" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert isinstance(result.exception, SystemExit)  # click's clean exit, not an escaped error
