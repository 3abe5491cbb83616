"""Placeholder for `flotilla describe` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def describe(args: tuple[str, ...]) -> None:
    """Show details of a resource on the hub or a member."""
    raise click.ClickException("flotilla describe is not available yet")
