"""How the user-facing verbs reach the hub and its members.

Every verb that talks to a running hub (`get`, `describe`, `apply`, `promote`, `cordon`, `plan`, …)
takes the same `--kubeconfig` / `--context` options as kubectl (with `KUBECONFIG` honoured, including a
list of files), and `--hub-endpoints` (or `FLOTILLA_HUB_ENDPOINTS`) for the other API servers of a
highly available hub; it runs one coroutine, and turns client failures into a one-line error instead
of a traceback. Member clusters are reached either through the hub's cluster proxy as the hub user
(`proxy_client`: Push and Pull members alike, the member's RBAC deciding, as karmadactl does), or the
way the controllers reach them, with the endpoint of the `Cluster` object and the credentials in the
Secret it references (`member_client`, for verbs that need the member's own identity).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click
import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.arguments.hubendpoints import ENVIRONMENT_VARIABLE, hub_endpoints_option
from flotilla.client import APIStatusError, Client, ClientError, ClusterConfig, load_kubeconfig
from flotilla.client.kubeconfig import KubeconfigError
from flotilla.runtime.members import MemberCredentialsError, member_config, proxied_config

CLUSTER = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
SECRET = GroupVersionKind("", "v1", "Secret")

P = ParamSpec("P")
T = TypeVar("T")

_ENDPOINTS = "flotilla.hub_endpoints"
"""Where `hub_options` keeps the verb's `--hub-endpoints` in the click context's meta."""


def command_hub_endpoints() -> tuple[str, ...]:
    """The `--hub-endpoints` of the verb being run (none outside a command)."""
    ctx = click.get_current_context(silent=True)
    return tuple(ctx.meta.get(_ENDPOINTS, ())) if ctx is not None else ()


@dataclass(frozen=True)
class HubTarget:
    """Which hub a verb talks to: a kubeconfig (None: `KUBECONFIG` or ~/.kube/config), a context, and
    the hub's API servers beyond the kubeconfig's (default: the verb's `--hub-endpoints`)."""

    kubeconfig: Path | None
    context: str | None
    endpoints: tuple[str, ...] = field(default_factory=command_hub_endpoints)

    def config(self) -> ClusterConfig:
        return load_kubeconfig(self.kubeconfig, self.context).with_endpoints(self.endpoints)

    def client(self, field_manager: str = "flotilla", timeout: float = 30.0) -> Client:
        return Client(self.config(), field_manager=field_manager, timeout=timeout)


def _remember_endpoints(ctx: click.Context, _: click.Parameter, value: tuple[str, ...]) -> None:
    ctx.meta[_ENDPOINTS] = value


def hub_options(command: Callable[P, T]) -> Callable[P, T]:
    """Add kubectl's `--kubeconfig` and `--context`, and `--hub-endpoints`; the command takes
    `kubeconfig` and `context`, and its `HubTarget` picks the endpoints up from the click context
    (so that one option serves every verb without a parameter of its own)."""
    with_endpoints = hub_endpoints_option(
        envvar=ENVIRONMENT_VARIABLE, expose_value=False, callback=_remember_endpoints
    )(command)
    with_context = click.option(
        "--context", default=None, help="The kubeconfig context of the hub (default: current-context)."
    )(with_endpoints)
    return click.option(
        "--kubeconfig",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Kubeconfig of the hub (default: $KUBECONFIG, else ~/.kube/config).",
    )(with_context)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a verb's coroutine; failures become `Error: …` on stderr with exit code 1, not a traceback."""
    _log_warnings_to_stderr()
    try:
        return asyncio.run(coroutine)
    except APIStatusError as exc:
        raise click.ClickException(_status_message(exc)) from exc
    except (ClientError, KubeconfigError, MemberCredentialsError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc


def _log_warnings_to_stderr() -> None:
    """The client's own log events (an API server endpoint that failed) reach the user as warnings
    on stderr, through the standard library's last-resort handler, never mixed into the verb's
    output. A component that configured logging keeps its configuration."""
    if not structlog.is_configured():
        structlog.configure(
            logger_factory=structlog.stdlib.LoggerFactory(),
            wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        )


def _status_message(exc: APIStatusError) -> str:
    lines = [f"{exc.message} ({exc.reason or exc.code})"]
    for cause in exc.causes:
        field = cause.get("field")
        lines.append(f"  {field}: {cause.get('message', '')}" if field else f"  {cause.get('message', '')}")
    return "\n".join(lines)


def proxy_client(hub: Client, cluster_name: str, field_manager: str = "flotilla") -> Client:
    """A client of member `cluster_name` through the hub's cluster proxy, with the hub user's credentials."""
    return Client(proxied_config(hub.config, cluster_name), field_manager=field_manager, timeout=15.0)


async def member_client(hub: Client, cluster_name: str, field_manager: str = "flotilla") -> Client:
    """A client of member `cluster_name`, built from its Cluster and credentials Secret on the hub."""
    cluster = await hub.get(CLUSTER, cluster_name)
    if (cluster.get("spec") or {}).get("syncMode") == "Pull":
        raise MemberCredentialsError(
            f"cluster {cluster_name} is in Pull mode: the hub cannot reach its API server "
            "(its agent dials out); use the member's own kubeconfig"
        )
    ref = (cluster.get("spec") or {}).get("secretRef") or {}
    secret = None
    if ref.get("name"):
        secret = await hub.get_or_none(SECRET, ref["name"], namespace=ref.get("namespace", ""))
    return Client(member_config(cluster, secret), field_manager=field_manager, timeout=15.0)


@contextlib.asynccontextmanager
async def member_clients(
    hub: Client, cluster_names: list[str], field_manager: str = "flotilla"
) -> AsyncIterator[dict[str, Client]]:
    """Clients of several members at once, closed on exit."""
    clients: dict[str, Client] = {}
    try:
        for name in cluster_names:
            clients[name] = await member_client(hub, name, field_manager)
        yield clients
    finally:
        await asyncio.gather(*(client.close() for client in clients.values()), return_exceptions=True)


async def gather_by_cluster(
    calls: dict[str, Awaitable[T]],
) -> tuple[dict[str, T], dict[str, str]]:
    """Await one call per cluster concurrently: (results, errors) keyed by cluster name.

    A member that fails (unreachable, forbidden) is reported in `errors` rather than failing the
    verb, as karmadactl does for `get` across clusters.
    """
    names = list(calls)
    outcomes = await asyncio.gather(*calls.values(), return_exceptions=True)
    results: dict[str, T] = {}
    errors: dict[str, str] = {}
    for name, outcome in zip(names, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, Exception):
                raise outcome
            errors[name] = str(outcome)
        else:
            results[name] = outcome
    return results, errors
