"""Entry point of the `flotilla` command."""

from __future__ import annotations

import click

from flotilla import __version__
from flotilla.cli.apiserver import apiserver
from flotilla.cli.certs import certs
from flotilla.cli.controllermanager import controller_manager
from flotilla.cli.join import join, unjoin
from flotilla.cli.secrets import secrets
from flotilla.cli.sim import sim


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(__version__, prog_name="flotilla")
def cli() -> None:
    """Flotilla: one Kubernetes-native hub for many clusters, with Karmada's API.

    \b
    Examples:
      flotilla apiserver --data-dir .flotilla/hub      # serve the hub API on https://127.0.0.1:6443
      kubectl --kubeconfig .flotilla/hub/admin.kubeconfig get namespaces
    """


cli.add_command(apiserver)
cli.add_command(certs)
cli.add_command(controller_manager)
cli.add_command(join)
cli.add_command(unjoin)
cli.add_command(secrets)
cli.add_command(sim)


def main() -> None:
    cli()
