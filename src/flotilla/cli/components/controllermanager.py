"""`flotilla controller-manager`: run the hub's controllers against a hub kubeconfig.

With `--leader-elect` (the default) several managers may run against one hub: one holds the Lease
and acts, the others wait. A manager that loses the Lease exits with status 1 for its supervisor
to restart it; SIGTERM stops it cleanly (status 0) and hands the Lease over at once.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flotilla.cli.arguments.hubendpoints import hub_endpoints_option

if TYPE_CHECKING:
    from flotilla.runtime.manager import ControllerManager


class GoDuration(click.ParamType[float, Any]):
    """A duration as Go writes it (`15s`, `1m30s`, `500ms`), in seconds."""

    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, int | float):
            return float(value)
        from flotilla.api.duration import parse_go_duration

        try:
            return float(value)  # a bare number of seconds, for convenience
        except ValueError:
            pass
        try:
            return parse_go_duration(str(value).strip())
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


@click.command("controller-manager")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="KUBECONFIG",
    help="Kubeconfig of the hub (default: $KUBECONFIG or ~/.kube/config).",
)
@click.option("--context", default=None, help="Context in the kubeconfig (default: its current context).")
@hub_endpoints_option()
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
@click.option(
    "--leader-elect",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Hold a Lease before running controllers, so only one of several managers acts "
    "(--leader-elect=false to run at once).",
)
@click.option(
    "--leader-elect-lease-duration",
    type=GoDuration(),
    default="15s",
    show_default=True,
    help="How long a standby waits, after the leader's Lease last changed, before taking over.",
)
@click.option(
    "--leader-elect-renew-deadline",
    type=GoDuration(),
    default="10s",
    show_default=True,
    help="How long the leader keeps trying to renew before it gives up (and exits).",
)
@click.option(
    "--leader-elect-retry-period",
    type=GoDuration(),
    default="2s",
    show_default=True,
    help="Time between attempts to acquire or renew the Lease.",
)
@click.option("--leader-elect-resource-namespace", default="kube-system", show_default=True)
@click.option("--leader-elect-resource-name", default="flotilla-controller-manager", show_default=True)
@click.option(
    "--feature-gates",
    default="",
    help="Karmada's feature gates as key=value pairs, e.g. Failover=true,GracefulEviction=true. Flotilla "
    "turns Failover on by default (Karmada: off since v1.12), so a member's NoExecute taint moves its "
    "workloads without a flag; Failover=false stops the taint manager and the ClusterTaintPolicy "
    "controller.",
)
@click.option(
    "--enable-taint-manager",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Run the taint manager, which evicts workloads from clusters with NoExecute taints they do not "
    "tolerate.",
)
@click.option(
    "--enable-no-execute-taint-eviction",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Let the taint manager evict on NoExecute taints (Flotilla's default; Karmada's is false).",
)
@click.option(
    "--no-execute-taint-eviction-purge-mode",
    type=click.Choice(["Directly", "Gracefully"]),
    default="Gracefully",
    show_default=True,
    help="How a taint eviction removes the old copy when the binding's failover.cluster does not say: "
    "Gracefully keeps it until the workload is healthy elsewhere (or --graceful-eviction-timeout), "
    "Directly removes it at once.",
)
@click.option(
    "--graceful-eviction-timeout",
    type=GoDuration(),
    default="10m",
    show_default=True,
    help="How long an eviction task without gracePeriodSeconds keeps the old copy at most.",
)
@click.option(
    "--resource-eviction-rate",
    type=click.FloatRange(min=0, min_open=True),
    default=200.0,
    show_default=True,
    help="Bindings the taint manager evicts per second at most. Karmada's 0.5 takes ten minutes to move "
    "300 workloads off a dead member; each eviction is one binding write, which the hub takes by the "
    "hundreds per second, so the limit only guards against a storm.",
)
@click.option(
    "--enable-scheduler-estimator",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Size Push members by their nodes and pods (Karmada's accurate estimator) as well as by their "
    "resource summaries. On by default: here it reads the member informers this process already keeps "
    "and needs no estimator service per member (Karmada's default is false for that reason).",
)
@click.option(
    "--scheduler-estimator-timeout",
    type=GoDuration(),
    default="3s",
    show_default=True,
    help="How long the scheduler and the descheduler wait for a member's first node and pod lists; "
    "past it the member is sized by its resource summary alone.",
)
@click.option(
    "--descheduling-interval",
    type=GoDuration(),
    default="2m",
    show_default=True,
    help="Time between the descheduler's rounds over Deployments divided dynamically "
    "(Divided with Aggregated or DynamicWeight).",
)
@click.option(
    "--unschedulable-threshold",
    type=GoDuration(),
    default="5m",
    show_default=True,
    help="How long a replica must have been unschedulable on a member before the descheduler takes it "
    "back, for the scheduler to place elsewhere.",
)
@click.option(
    "--horizontal-pod-autoscaler-sync-period",
    type=GoDuration(),
    default="15s",
    show_default=True,
    help="Time between two looks of the FederatedHPA controller at each FederatedHPA.",
)
@click.option(
    "--horizontal-pod-autoscaler-tolerance",
    type=click.FloatRange(min=0),
    default=0.1,
    show_default=True,
    help="The least change (from 1.0) of the usage-to-target ratio a FederatedHPA scales for.",
)
@click.option(
    "--horizontal-pod-autoscaler-downscale-stabilization",
    type=GoDuration(),
    default="5m",
    show_default=True,
    help="How far back a FederatedHPA looks for a higher recommendation before it scales down.",
)
@click.option(
    "--horizontal-pod-autoscaler-cpu-initialization-period",
    type=GoDuration(),
    default="5m",
    show_default=True,
    help="The period after a pod's start when its CPU samples may be skipped.",
)
@click.option(
    "--horizontal-pod-autoscaler-initial-readiness-delay",
    type=GoDuration(),
    default="30s",
    show_default=True,
    help="The period after a pod's start during which readiness changes count as initial readiness.",
)
@click.option(
    "--cron-federated-hpa-clock-rate",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    hidden=True,
    help="For tests: run the CronFederatedHPA controller's clock this many times faster than real time.",
)
@click.option("--log-level", default="info", show_default=True)
def controller_manager(
    kubeconfig: Path | None,
    context: str | None,
    hub_endpoints: tuple[str, ...],
    controllers: str,
    health_address: str,
    cluster_status_interval: float,
    cluster_success_threshold: float,
    cluster_failure_threshold: float,
    cluster_lease_grace: float,
    leader_elect: bool,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
    leader_elect_resource_namespace: str,
    leader_elect_resource_name: str,
    feature_gates: str,
    enable_taint_manager: bool,
    enable_no_execute_taint_eviction: bool,
    no_execute_taint_eviction_purge_mode: str,
    graceful_eviction_timeout: float,
    resource_eviction_rate: float,
    enable_scheduler_estimator: bool,
    scheduler_estimator_timeout: float,
    descheduling_interval: float,
    unschedulable_threshold: float,
    horizontal_pod_autoscaler_sync_period: float,
    horizontal_pod_autoscaler_tolerance: float,
    horizontal_pod_autoscaler_downscale_stabilization: float,
    horizontal_pod_autoscaler_cpu_initialization_period: float,
    horizontal_pod_autoscaler_initial_readiness_delay: float,
    cron_federated_hpa_clock_rate: float,
    log_level: str,
) -> None:
    """Run Flotilla's controllers (detector, scheduler, binding, execution, status, cluster…) for a hub.

    \b
    Examples:
      flotilla controller-manager --kubeconfig .flotilla/hub/admin.kubeconfig --controllers '*,-namespace'
      flotilla controller-manager --kubeconfig hub.kubeconfig --leader-elect-lease-duration 30s
      flotilla controller-manager --kubeconfig hub.kubeconfig --feature-gates=Failover=false
      flotilla controller-manager --kubeconfig hub.kubeconfig --hub-endpoints https://10.0.0.2:6443
    """
    from flotilla.cli.components.logging import configure_logging
    from flotilla.controllers.registry import DEFAULT_OFF, FACTORIES, switched_off
    from flotilla.runtime.hubcontroller import FeatureGates, ManagerSettings
    from flotilla.runtime.leaderelection import LeaderElectionConfig, default_identity
    from flotilla.runtime.manager import ControllerManager

    host, _, port = health_address.rpartition(":")
    try:
        settings = ManagerSettings(
            cluster_status_interval=cluster_status_interval,
            cluster_success_threshold=cluster_success_threshold,
            cluster_failure_threshold=cluster_failure_threshold,
            cluster_lease_grace=cluster_lease_grace,
            feature_gates=FeatureGates.parse(feature_gates),
            enable_taint_manager=enable_taint_manager,
            enable_no_execute_taint_eviction=enable_no_execute_taint_eviction,
            no_execute_taint_eviction_purge_mode=no_execute_taint_eviction_purge_mode,
            graceful_eviction_timeout=graceful_eviction_timeout,
            resource_eviction_rate=resource_eviction_rate,
            enable_scheduler_estimator=enable_scheduler_estimator,
            scheduler_estimator_timeout=scheduler_estimator_timeout,
            descheduling_interval=descheduling_interval,
            unschedulable_threshold=unschedulable_threshold,
            hpa_sync_period=horizontal_pod_autoscaler_sync_period,
            hpa_tolerance=horizontal_pod_autoscaler_tolerance,
            hpa_downscale_stabilization=horizontal_pod_autoscaler_downscale_stabilization,
            hpa_cpu_initialization_period=horizontal_pod_autoscaler_cpu_initialization_period,
            hpa_initial_readiness_delay=horizontal_pod_autoscaler_initial_readiness_delay,
            cron_federated_hpa_clock_rate=cron_federated_hpa_clock_rate,
        )
        election = (
            LeaderElectionConfig(
                identity=default_identity(),
                namespace=leader_elect_resource_namespace,
                name=leader_elect_resource_name,
                lease_duration=leader_elect_lease_duration,
                renew_deadline=leader_elect_renew_deadline,
                retry_period=leader_elect_retry_period,
            )
            if leader_elect
            else None
        )
        manager = ControllerManager(
            kubeconfig,
            FACTORIES,
            controllers=controllers_spec(controllers, switched_off(settings)),
            context=context,
            hub_endpoints=hub_endpoints,
            health_address=(host or "127.0.0.1", int(port)),
            settings=settings,
            default_off=DEFAULT_OFF,
            leader_election=election,
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    configure_logging(log_level)
    code = _run(manager)
    if code:
        sys.exit(code)


def controllers_spec(controllers: str, switched_off: Iterable[str]) -> str:
    """`--controllers` with the controllers the settings switch off disabled (`-name` wins over a name)."""
    disabled = ",".join(f"-{name}" for name in sorted(switched_off))
    return f"{controllers.strip() or '*'},{disabled}" if disabled else controllers


def _run(manager: ControllerManager) -> int:
    """Run the manager until SIGTERM/SIGINT (0) or until it ends by itself (its exit code)."""

    async def main() -> int:
        from flotilla.runtime.garbage import CollectorPacing

        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stopping.set)
        try:
            await manager.start()
        except Exception as exc:
            await manager.stop()
            raise click.ClickException(f"cannot start: {exc}") from exc
        click.echo(f"flotilla controller-manager: running (health: {manager.health_url})", err=True)
        signalled = asyncio.create_task(stopping.wait())
        ended = asyncio.create_task(manager.done.wait())
        pacing = CollectorPacing()
        pacing.start()
        try:
            await asyncio.wait({signalled, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            pacing.stop()
        for task in (signalled, ended):
            task.cancel()
        await manager.stop()
        if manager.done.is_set():
            click.echo("flotilla controller-manager: lost the leader Lease, exiting", err=True)
        return manager.exit_code

    try:
        import uvloop

        return int(uvloop.run(main()))
    except ImportError:
        return asyncio.run(main())
