"""Entry point of the `flotilla` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from flotilla import __version__
from flotilla.cli.accept import accept
from flotilla.cli.agent import agent
from flotilla.cli.apiserver import apiserver
from flotilla.cli.apply import apply
from flotilla.cli.certs import certs
from flotilla.cli.completion import completion
from flotilla.cli.controllermanager import controller_manager
from flotilla.cli.cordon import cordon, taint, uncordon
from flotilla.cli.describe import describe
from flotilla.cli.get import get
from flotilla.cli.join import join, unjoin
from flotilla.cli.plan import plan
from flotilla.cli.promote import promote
from flotilla.cli.register import register
from flotilla.cli.secrets import secrets
from flotilla.cli.sim import sim
from flotilla.cli.token import token
from flotilla.cli.up import down, up


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
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


cli.add_command(up)
cli.add_command(down)
cli.add_command(get)
cli.add_command(describe)
cli.add_command(apply)
cli.add_command(promote)
cli.add_command(plan)
cli.add_command(cordon)
cli.add_command(uncordon)
cli.add_command(taint)
cli.add_command(join)
cli.add_command(unjoin)
cli.add_command(token)
cli.add_command(register)
cli.add_command(accept)
cli.add_command(agent)
cli.add_command(apiserver)
cli.add_command(controller_manager)
cli.add_command(sim)
cli.add_command(certs)
cli.add_command(secrets)
cli.add_command(completion)


def main() -> None:
    """The console scripts `flotilla` and `kubectl-flotilla` (run by kubectl as `kubectl flotilla`)."""
    invoked_as = Path(sys.argv[0]).name
    cli(prog_name="kubectl flotilla" if invoked_as == "kubectl-flotilla" else "flotilla")
