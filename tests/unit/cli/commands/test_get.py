"""`flotilla get` and `describe` on the command line: usage errors, kubectl's error lines, exit codes."""

from __future__ import annotations

import socket
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from flotilla.cli.commands.describe import describe
from flotilla.cli.commands.get import get
from flotilla.cli.output.kubectlerrors import Failure, KubectlError, failure_of
from flotilla.client import NotFound, Unavailable


def closed_port_kubeconfig(tmp_path: Path) -> Path:
    """A kubeconfig whose server is a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "hub", "cluster": {"server": f"https://127.0.0.1:{port}"}}],
        "users": [{"name": "admin", "user": {"token": "x"}}],
        "contexts": [{"name": "hub", "context": {"cluster": "hub", "user": "admin"}}],
        "current-context": "hub",
    }
    path = tmp_path / "hub.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def test_failure_lines_follow_kubectl_and_karmadactl() -> None:
    """Statuses read `Error from server (Reason)`, client errors `error:`, members name their cluster."""
    not_found = failure_of(NotFound(404, {"reason": "NotFound", "message": 'deployments.apps "x" not found'}))
    assert not_found.line() == 'Error from server (NotFound): deployments.apps "x" not found'
    assert not_found.not_found
    assert not_found.on_cluster("member2").line() == 'error: cluster member2: deployments.apps "x" not found'
    assert Failure('the server doesn\'t have a resource type "foo"').line() == (
        'error: the server doesn\'t have a resource type "foo"'
    )
    assert failure_of(Unavailable("refused")).line() == "error: unable to connect to the server: refused"


def test_kubectl_errors_print_their_lines_without_clicks_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    """The exception shows each failure line as is, on stderr, and exits 1."""
    error = KubectlError(Failure("one"), Failure("two", "NotFound", from_server=True))
    error.show()
    assert capsys.readouterr().err == "error: one\nError from server (NotFound): two\n"
    assert error.exit_code == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "you must specify the type of resource to get"),
        (
            ["deploy", "--clusters", "member1"],
            "--clusters only applies with --operation-scope members or all",
        ),
        (["deploy", "-o", "table"], "Invalid value for '-o' / '--output'"),
        (["deploy", "--operation-scope", "everywhere"], "Invalid value for '-s' / '--operation-scope'"),
    ],
)
def test_get_usage_errors_exit_2(arguments: list[str], message: str) -> None:
    """Missing types and misplaced flags are usage errors, found before any hub is contacted."""
    result = CliRunner().invoke(get, arguments)
    assert result.exit_code == 2
    assert message in result.output


def test_get_refuses_selectors_with_names_and_mixed_argument_forms() -> None:
    """kubectl's argument errors are one `error:` line with exit code 1."""
    with_selector = CliRunner().invoke(get, ["deploy", "nginx", "-l", "app=x"])
    assert with_selector.exit_code == 1
    assert with_selector.stderr == (
        "error: selectors and the all flag cannot be used when passing resource/name arguments\n"
    )
    mixed = CliRunner().invoke(get, ["deploy", "svc/web"])
    assert mixed.exit_code == 1 and mixed.stderr.startswith(
        "error: there is no need to specify a resource type"
    )


def test_describe_scope_and_cluster_must_agree() -> None:
    """The members scope needs --cluster; --cluster contradicts an explicit karmada scope."""
    no_cluster = CliRunner().invoke(describe, ["deploy", "x", "--operation-scope", "members"])
    assert no_cluster.exit_code == 2 and "needs --cluster NAME" in no_cluster.output
    contradiction = CliRunner().invoke(describe, ["deploy", "x", "-s", "karmada", "--cluster", "m1"])
    assert contradiction.exit_code == 2 and "--cluster only applies" in contradiction.output
    assert CliRunner().invoke(describe, []).exit_code == 2


@pytest.mark.parametrize("command", [get, describe])
def test_an_unreachable_hub_is_one_error_line_with_exit_1(command: click.Command, tmp_path: Path) -> None:
    """A hub that refuses connections gives kubectl's `error:` line, not a traceback."""
    kubeconfig = closed_port_kubeconfig(tmp_path)
    result = CliRunner().invoke(command, ["deploy", "--kubeconfig", str(kubeconfig)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: unable to connect to the server: ")
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == ""


def test_a_missing_kubeconfig_is_one_error_line(tmp_path: Path) -> None:
    """No kubeconfig at the given path is reported in one line with exit code 1."""
    result = CliRunner().invoke(get, ["clusters", "--kubeconfig", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1 and "kubeconfig" in result.stderr


@pytest.mark.parametrize("command", [get, describe])
def test_help_shows_examples(command: click.Command) -> None:
    """Both commands document themselves with an Examples block."""
    result = CliRunner().invoke(command, ["--help"])
    assert result.exit_code == 0
    assert "  Examples:\n    flotilla " in result.output
