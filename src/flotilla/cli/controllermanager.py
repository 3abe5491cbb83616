"""`flotilla controller-manager`: run the hub's controllers against a hub kubeconfig."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("controller-manager")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="KUBECONFIG",
    help="Kubeconfig of the hub (default: $KUBECONFIG or ~/.kube/config).",
)
@click.option("--context", default=None, help="Context in the kubeconfig (default: its current context).")
@click.option(
    "--controllers",
    default="*",
    show_default=True,
    help="Controllers to run: '*' for the defaults, 'name' to enable, '-name' to disable.",
)
@click.option(
    "--health-address",
    default="127.0.0.1:10357",
    show_default=True,
    help="host:port serving /healthz, /readyz and /metrics (port 0 picks a free one).",
)
@click.option(
    "--cluster-status-interval",
    type=float,
    default=10.0,
    show_default=True,
    help="Seconds between health probes and status collection of each Push cluster.",
)
@click.option("--cluster-success-threshold", type=float, default=30.0, show_default=True)
@click.option("--cluster-failure-threshold", type=float, default=30.0, show_default=True)
@click.option(
    "--cluster-lease-grace",
    type=float,
    default=40.0,
    show_default=True,
    help="Seconds without a Lease renewal by a Pull cluster's agent before the cluster turns Ready=Unknown.",
)
@click.option("--log-level", default="info", show_default=True)
def controller_manager(
    kubeconfig: Path | None,
    context: str | None,
    controllers: str,
    health_address: str,
    cluster_status_interval: float,
    cluster_success_threshold: float,
    cluster_failure_threshold: float,
    cluster_lease_grace: float,
    log_level: str,
) -> None:
    """Run Flotilla's controllers (detector, scheduler, binding, execution, status, cluster…) for a hub.

    \b
    Example:
      flotilla controller-manager --kubeconfig .flotilla/hub/admin.kubeconfig --controllers '*,-namespace'
    """
    from flotilla.cli.apiserver import run_until_signalled
    from flotilla.cli.logging import configure_logging
    from flotilla.controllers.registry import DEFAULT_OFF, FACTORIES
    from flotilla.runtime.hubcontroller import ManagerSettings
    from flotilla.runtime.manager import ControllerManager

    configure_logging(log_level)
    host, _, port = health_address.rpartition(":")
    try:
        manager = ControllerManager(
            kubeconfig,
            FACTORIES,
            controllers=controllers,
            context=context,
            health_address=(host or "127.0.0.1", int(port)),
            settings=ManagerSettings(
                cluster_status_interval=cluster_status_interval,
                cluster_success_threshold=cluster_success_threshold,
                cluster_failure_threshold=cluster_failure_threshold,
                cluster_lease_grace=cluster_lease_grace,
            ),
            default_off=DEFAULT_OFF,
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    run_until_signalled(
        manager, lambda: f"flotilla controller-manager: running (health: {manager.health_url})"
    )
