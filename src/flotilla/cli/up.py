"""Placeholder for `flotilla up` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def up(args: tuple[str, ...]) -> None:
    """Start a local hub with simulated members (issue 6)."""
    raise click.ClickException("flotilla up is not available yet")


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def down(args: tuple[str, ...]) -> None:
    """Stop what `flotilla up` started."""
    raise click.ClickException("flotilla down is not available yet")
