"""Entry point of the `flotilla` command."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click

from flotilla import __version__

COMMANDS: dict[str, str] = {
    "up": "flotilla.cli.commands.up:up",
    "down": "flotilla.cli.commands.up:down",
    "get": "flotilla.cli.commands.get:get",
    "describe": "flotilla.cli.commands.describe:describe",
    "apply": "flotilla.cli.commands.apply:apply",
    "promote": "flotilla.cli.commands.promote:promote",
    "plan": "flotilla.cli.commands.plan:plan",
    "interpret": "flotilla.cli.commands.interpret:interpret",
    "cordon": "flotilla.cli.commands.cordon:cordon",
    "uncordon": "flotilla.cli.commands.cordon:uncordon",
    "taint": "flotilla.cli.commands.cordon:taint",
    "join": "flotilla.cli.commands.join:join",
    "unjoin": "flotilla.cli.commands.join:unjoin",
    "token": "flotilla.cli.commands.token:token",
    "register": "flotilla.cli.commands.register:register",
    "accept": "flotilla.cli.commands.accept:accept",
    "agent": "flotilla.cli.components.agent:agent",
    "apiserver": "flotilla.cli.components.apiserver:apiserver",
    "controller-manager": "flotilla.cli.components.controllermanager:controller_manager",
    "sim": "flotilla.cli.components.sim:sim",
    "certs": "flotilla.cli.commands.certs:certs",
    "secrets": "flotilla.cli.commands.secrets:secrets",
    "store": "flotilla.cli.commands.store:store",
    "completion": "flotilla.cli.commands.completion:completion",
    "dashboard": "flotilla.cli.commands.dashboard:dashboard",
}
"""Every command and where it lives: a verb imports its module (and its dependencies) only when run."""


class LazyGroup(click.Group):
    """A group whose commands are imported on first use, so `flotilla get` does not load the server."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110}
)
@click.version_option(__version__, prog_name="flotilla")
def cli() -> None:
    """Flotilla: one Kubernetes-native hub for many clusters, with Karmada's API.

    \b
    Examples:
      flotilla up                                      # a hub with 3 simulated members, in the foreground
      export KUBECONFIG=.flotilla/hub.kubeconfig
      flotilla get clusters
      flotilla apply -f nginx.yaml                     # a Deployment and its PropagationPolicy
      flotilla get deployments --operation-scope all   # the template and its copies in the members
      flotilla plan -f nginx.yaml                      # where it would land, and why not elsewhere
      flotilla down                                    # stop what `up` started
    """


def main() -> None:
    """The console scripts `flotilla` and `kubectl-flotilla` (run by kubectl as `kubectl flotilla`)."""
    invoked_as = Path(sys.argv[0]).name
    cli(prog_name="kubectl flotilla" if invoked_as == "kubectl-flotilla" else "flotilla")
