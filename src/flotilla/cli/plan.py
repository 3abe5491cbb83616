"""Placeholder for `flotilla plan` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def plan(args: tuple[str, ...]) -> None:
    """Preview where workloads would be placed."""
    raise click.ClickException("flotilla plan is not available yet")
