"""Placeholder for `flotilla agent` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def agent(args: tuple[str, ...]) -> None:
    """Run the pull-mode agent of a member cluster."""
    raise click.ClickException("flotilla agent is not available yet")
