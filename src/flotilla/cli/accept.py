"""Placeholder for `flotilla accept` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def accept(args: tuple[str, ...]) -> None:
    """Accept a cluster waiting for manual acceptance."""
    raise click.ClickException("flotilla accept is not available yet")
