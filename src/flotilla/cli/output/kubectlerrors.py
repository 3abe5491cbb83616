"""Failures reported in kubectl's words, for the verbs that mirror kubectl (`get`, `describe`).

Users (and their scripts) recognise kubectl's lines: `Error from server (NotFound): deployments.apps
"x" not found` for a failure Status answered by a server, `error: …` for everything decided on the
client side. A failure on one member cluster is a line of its own, `error: cluster member2: …`, so
the other clusters' results still print. Every line goes to stderr and the exit code is 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

import click

from flotilla.client import APIStatusError, ClientError, Unavailable


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed part of a request: on the hub (`cluster` None) or on a member cluster."""

    message: str
    """The error's own words (a Status message, `the server doesn't have a resource type "x"`…)."""
    reason: str = ""
    """The Status reason when a server answered (`NotFound`, `Forbidden`); empty otherwise."""
    from_server: bool = False
    cluster: str | None = None

    @property
    def not_found(self) -> bool:
        return self.reason == "NotFound"

    def line(self) -> str:
        """The line kubectl (or karmadactl, for members) prints for this failure."""
        if self.cluster is not None:
            return f"error: cluster {self.cluster}: {self.message}"
        if self.from_server and self.reason:
            return f"Error from server ({self.reason}): {self.message}"
        if self.from_server:
            return f"Error from server: {self.message}"
        return f"error: {self.message}"

    def on_cluster(self, cluster: str | None) -> Failure:
        return Failure(self.message, self.reason, self.from_server, cluster)


def failure_of(error: ClientError) -> Failure:
    """The Failure for a client error: a Status answered by a server, or a server not answering."""
    if isinstance(error, APIStatusError):
        return Failure(error.message, error.reason, from_server=True)
    if isinstance(error, Unavailable):
        return Failure(f"unable to connect to the server: {error}")
    return Failure(str(error))


class KubectlError(click.ClickException):
    """Ends a verb with kubectl-style lines on stderr (no `Error:` prefix of click's) and exit code 1."""

    def __init__(self, *failures: Failure) -> None:
        self.failures = failures
        super().__init__("\n".join(failure.line() for failure in failures))

    def show(self, file: IO[str] | None = None) -> None:
        click.echo(self.message, err=True, file=file)
