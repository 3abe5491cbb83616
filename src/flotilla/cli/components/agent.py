"""`flotilla agent`: run the Pull-mode agent of a member cluster (in the foreground)."""

from __future__ import annotations

from pathlib import Path

import click

from flotilla.cli.arguments.hubendpoints import hub_endpoints_option


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Where `flotilla register` left hub.kubeconfig and agent.json.",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="KUBECONFIG",
    help="Kubeconfig of the member cluster (default: $KUBECONFIG or ~/.kube/config).",
)
@click.option("--context", default=None, help="Context of the member in --kubeconfig.")
@hub_endpoints_option()
@click.option(
    "--cluster-name",
    default="",
    help="The cluster this agent runs for (default: the one its certificate names; must agree).",
)
@click.option(
    "--lease-seconds",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Seconds between renewals of the cluster's Lease on the hub.",
)
@click.option(
    "--renew-before",
    type=click.FloatRange(min=0),
    default=None,
    help="Renew the hub certificate this many seconds before it expires (default: at 80% of its lifetime).",
)
@click.option(
    "--cluster-status-interval",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Seconds between health probes and status collection of the member.",
)
@click.option("--cluster-success-threshold", type=float, default=30.0, show_default=True)
@click.option("--cluster-failure-threshold", type=float, default=30.0, show_default=True)
@click.option(
    "--health-address",
    default="127.0.0.1:0",
    show_default=True,
    help="host:port serving /healthz, /readyz and /metrics (port 0 picks a free one).",
)
@click.option("--log-level", default="info", show_default=True)
def agent(
    data_dir: Path,
    kubeconfig: Path | None,
    context: str | None,
    hub_endpoints: tuple[str, ...],
    cluster_name: str,
    lease_seconds: float,
    renew_before: float | None,
    cluster_status_interval: float,
    cluster_success_threshold: float,
    cluster_failure_threshold: float,
    health_address: str,
    log_level: str,
) -> None:
    """Run the Pull-mode agent of a member cluster: apply its Works, report its status, renew its Lease.

    The agent talks to the hub with the certificate `flotilla register` obtained (DIR/hub.kubeconfig)
    and to the member with --kubeconfig; it renews the certificate before it expires. With
    --hub-endpoints it fails over to the hub's other API servers.

    \b
    Example:
      flotilla agent --data-dir /var/lib/flotilla-agent --kubeconfig member.kubeconfig
    """
    from flotilla.agent.agent import Agent, AgentSettings
    from flotilla.cli.components.foreground import run_until_signalled
    from flotilla.cli.components.logging import configure_logging
    from flotilla.runtime.hubcontroller import ManagerSettings

    configure_logging(log_level)
    host, _, port = health_address.rpartition(":")
    if not port.isdigit():
        raise click.BadParameter(f"expected host:port, got {health_address!r}", param_hint="--health-address")
    component = Agent(
        AgentSettings(
            data_dir=data_dir,
            member_kubeconfig=kubeconfig,
            member_context=context,
            cluster_name=cluster_name,
            lease_seconds=lease_seconds,
            renew_before=renew_before,
            health_address=(host or "127.0.0.1", int(port)),
            hub_endpoints=hub_endpoints,
            controllers=ManagerSettings(
                cluster_status_interval=cluster_status_interval,
                cluster_success_threshold=cluster_success_threshold,
                cluster_failure_threshold=cluster_failure_threshold,
            ),
        )
    )
    # A configuration problem found at start-up (no credentials, a certificate for another cluster,
    # an unreadable kubeconfig) stops the command with "cannot start: <what to fix>".
    run_until_signalled(
        component,
        lambda: (
            f"flotilla agent: running for cluster {component.cluster_name} "
            f"(hub: {component.hub_server}, health: {component.health_url})"
        ),
    )
