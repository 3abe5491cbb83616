"""Placeholder for `flotilla get` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def get(args: tuple[str, ...]) -> None:
    """Display resources of the hub and its members."""
    raise click.ClickException("flotilla get is not available yet")
