"""Placeholder for `flotilla register` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def register(args: tuple[str, ...]) -> None:
    """Register this member with a hub in Pull mode."""
    raise click.ClickException("flotilla register is not available yet")
