"""Every `flotilla` command documents itself, and the shell completion the CLI offers works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from flotilla.cli.main import cli

BIN = Path(sys.executable).parent


def _commands(group: click.Group, prefix: str = "flotilla") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = [(prefix, group)]
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, f"{prefix} {name} does not load"
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            found.extend(_commands(command, path))
        else:
            found.append((path, command))
    return found


COMMANDS = _commands(cli)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_has_help_with_examples(path: str, command: click.Command) -> None:
    """`--help` of every command and subcommand shows a summary and an Examples block."""
    args = path.split()[1:]
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0, result.output
    assert command.help and command.help.strip(), f"{path} has no help text"
    assert "Example" in result.output, f"{path} --help shows no examples"


def test_completion_script_names_the_program() -> None:
    """`flotilla completion bash` prints a script that calls back with _FLOTILLA_COMPLETE."""
    result = CliRunner().invoke(cli, ["completion", "bash"], prog_name="flotilla")
    assert result.exit_code == 0, result.output
    assert "_FLOTILLA_COMPLETE=bash_complete" in result.output


def test_completion_unknown_shell_is_a_usage_error() -> None:
    """An unsupported shell is refused with the choices named."""
    result = CliRunner().invoke(cli, ["completion", "powershell"])
    assert result.exit_code == 2
    assert "bash" in result.output


def test_bash_completion_completes_commands() -> None:
    """The completion protocol offers `get` for `flotilla ge<TAB>` from the installed program."""
    env = {
        **os.environ,
        "_FLOTILLA_COMPLETE": "bash_complete",
        "COMP_WORDS": "flotilla ge",
        "COMP_CWORD": "1",
    }
    answer = subprocess.run(
        [str(BIN / "flotilla")], check=False, env=env, capture_output=True, text=True, timeout=30
    )
    assert "plain,get" in answer.stdout.splitlines()


def test_commands_load_lazily() -> None:
    """Running one verb does not import the API server or the other verbs (a fast start for every call)."""
    code = (
        "import sys; from flotilla.cli.main import cli; "
        "assert not [m for m in sys.modules if m.startswith(("
        "'flotilla.apiserver', 'flotilla.cli.commands', 'flotilla.cli.components'))], "
        "sorted(m for m in sys.modules if m.startswith('flotilla'))"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60
    )
    assert answer.returncode == 0, answer.stderr


def test_kubectl_plugin_is_found_by_kubectl() -> None:
    """`kubectl flotilla --help` runs the plugin, which names itself as kubectl does."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    answer = subprocess.run(
        ["kubectl", "flotilla", "--help"], check=False, env=env, capture_output=True, text=True, timeout=60
    )
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.startswith("Usage: kubectl flotilla")
