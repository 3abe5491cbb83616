"""`--hub-endpoints`: more API servers of the hub than the kubeconfig's `server`.

A highly available hub runs several API server processes on one etcd. The controller manager, the
agent and the CLI's hub verbs take the extra ones as `--hub-endpoints URL,URL` and fail over
between them (`flotilla.client.endpoints`); the kubeconfig's credentials serve every endpoint. A
malformed URL is a usage error naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

ENVIRONMENT_VARIABLE = "FLOTILLA_HUB_ENDPOINTS"
HELP = (
    "More API servers of the hub, comma-separated (https://host:port,…), tried in turn after the "
    "kubeconfig's server when it fails; same CA and credentials."
)


class HubEndpoints(click.ParamType[tuple[str, ...], Any]):
    """A comma-separated list of API server URLs, each checked."""

    name = "url,url"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, ...]:
        if isinstance(value, tuple):
            return value
        # Imported here: the client (and aiohttp under it) loads only when a command runs.
        from flotilla.client.endpoints import EndpointError, parse_endpoints

        try:
            return parse_endpoints(str(value))
        except EndpointError as exc:
            self.fail(str(exc), param, ctx)


def hub_endpoints_option(*, envvar: str | None = None, **options: Any) -> Callable[[F], F]:
    """The `--hub-endpoints` option (a tuple of URLs, empty when not given); `options` go to
    `click.option` (a callback, `expose_value`)."""
    return click.option(
        "--hub-endpoints",
        type=HubEndpoints(),
        default="",
        envvar=envvar,
        show_envvar=envvar is not None,
        help=HELP,
        **options,
    )
