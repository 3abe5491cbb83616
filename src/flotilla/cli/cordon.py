"""Placeholder for `flotilla cordon` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def cordon(args: tuple[str, ...]) -> None:
    """Mark a cluster unschedulable."""
    raise click.ClickException("flotilla cordon is not available yet")


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def uncordon(args: tuple[str, ...]) -> None:
    """Mark a cluster schedulable again."""
    raise click.ClickException("flotilla uncordon is not available yet")


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def taint(args: tuple[str, ...]) -> None:
    """Update the taints of a cluster."""
    raise click.ClickException("flotilla taint is not available yet")
