"""`flotilla sim`: serve simulated member clusters; `flotilla sim fault`: inject faults into them;
`flotilla sim load`: set the load a workload puts on one of them (what its metrics API shows)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click

from flotilla.cli.components.foreground import run_until_signalled


@click.group(invoke_without_command=True)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where every cluster keeps its state and <name>.kubeconfig is written.",
)
@click.option("--clusters", default="", help="Comma-separated cluster names, e.g. member1,member2.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="YAML file listing clusters (name, nodes, capacity, labels, kubernetesVersion).",
)
@click.option("--nodes", type=int, default=3, show_default=True, help="Nodes per cluster.")
@click.option("--node-cpu", default="8", show_default=True)
@click.option("--node-memory", default="32Gi", show_default=True)
@click.option("--node-pods", type=int, default=110, show_default=True)
@click.option(
    "--pod-start-seconds",
    type=float,
    default=1.0,
    show_default=True,
    help="Delay from a pod's binding to Running and Ready.",
)
@click.option("--log-level", default="info", show_default=True)
@click.pass_context
def sim(
    ctx: click.Context,
    data_dir: Path | None,
    clusters: str,
    config_file: Path | None,
    nodes: int,
    node_cpu: str,
    node_memory: str,
    node_pods: int,
    pod_start_seconds: float,
    log_level: str,
) -> None:
    """Serve simulated Kubernetes clusters, each a real HTTPS API endpoint with its own kubeconfig.

    \b
    Examples:
      flotilla sim --data-dir .flotilla/sim --clusters member1,member2 --nodes 3
      kubectl --kubeconfig .flotilla/sim/member1.kubeconfig get nodes
      flotilla sim fault member1 --data-dir .flotilla/sim --unreachable
      flotilla sim load deployment/web --cluster member1 --data-dir .flotilla/sim --cpu 2
    """
    if ctx.invoked_subcommand is not None:
        return
    from flotilla.cli.components.logging import configure_logging
    from flotilla.sim.config import ConfigError, clusters_from_file, clusters_from_flags
    from flotilla.sim.host import SimHost
    from flotilla.sim.spec import Timing

    if data_dir is None:
        raise click.UsageError("--data-dir is required")
    if bool(clusters) == bool(config_file):
        raise click.UsageError("give either --clusters NAME[,NAME…] or --config FILE")
    timing = Timing(pod_start=pod_start_seconds)
    try:
        if config_file is not None:
            specs = clusters_from_file(config_file, timing)
        else:
            specs = clusters_from_flags(
                clusters,
                nodes=nodes,
                node_cpu=node_cpu,
                node_memory=node_memory,
                node_pods=node_pods,
                timing=timing,
            )
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    configure_logging(log_level)
    host = SimHost(specs, data_dir)
    run_until_signalled(host, ready=lambda: _ready_message(host))


def _ready_message(host: object) -> str:
    from flotilla.sim.host import SimHost

    assert isinstance(host, SimHost)
    lines = [f"flotilla sim: serving {len(host.clusters)} cluster(s) (admin: {host.admin_url})"]
    lines += [f"  {name}: {c.url} (kubeconfig: {c.kubeconfig_path})" for name, c in host.clusters.items()]
    return "\n".join(lines)


@sim.command()
@click.argument("name")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The data dir of the running `flotilla sim`.",
)
@click.option(
    "--unreachable", "action", flag_value="unreachable", help="Stop answering on the cluster's port."
)
@click.option("--recover", "action", flag_value="recover", help="Clear every fault of the cluster.")
@click.option(
    "--latency", type=int, default=None, metavar="MS", help="Delay every request by MS milliseconds."
)
@click.option("--nodes-not-ready", "action", flag_value="nodes-not-ready", help="Mark every node NotReady.")
def fault(name: str, data_dir: Path, action: str | None, latency: int | None) -> None:
    """Inject a fault into (or --recover) a cluster of a running `flotilla sim`.

    \b
    Examples:
      flotilla sim fault member1 --data-dir .flotilla/sim --unreachable
      flotilla sim fault member1 --data-dir .flotilla/sim --latency 500
      flotilla sim fault member1 --data-dir .flotilla/sim --recover
    """
    body: dict[str, object] = {}
    if action == "unreachable":
        body["unreachable"] = True
    elif action == "nodes-not-ready":
        body["nodesNotReady"] = True
    elif action == "recover":
        body = {"unreachable": False, "latencyMs": 0, "nodesNotReady": False}
    if latency is not None:
        body["latencyMs"] = latency
    if not body:
        raise click.UsageError("say which fault: --unreachable, --latency MS, --nodes-not-ready or --recover")
    answer = _post_to_sim(data_dir, f"/clusters/{name}/faults", body)
    click.echo(f"{answer['cluster']}: {json.dumps(answer['faults'])}")


def _post_to_sim(data_dir: Path, path: str, body: dict[str, object]) -> dict[str, Any]:
    """POST `body` to the admin endpoint of the sim running in `data_dir`; its JSON answer."""
    from flotilla.sim.host import read_state

    try:
        state = read_state(data_dir)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc
    request = urllib.request.Request(  # noqa: S310 - the loopback admin endpoint from sim.json
        f"{state['admin']}{path}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {state['token']}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback admin endpoint
            answer: dict[str, Any] = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise click.ClickException(json.loads(exc.read() or b"{}").get("error", str(exc))) from exc
    except urllib.error.URLError as exc:
        raise click.ClickException(f"the sim at {state['admin']} does not answer: {exc.reason}") from exc
    return answer


@sim.command()
@click.argument("workload", metavar="KIND/NAME")
@click.option("-n", "--namespace", default="default", show_default=True)
@click.option("--cluster", required=True, help="The simulated cluster the load is in.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The data dir of the running `flotilla sim`.",
)
@click.option("--cpu", default=None, metavar="QUANTITY", help="Total CPU the workload uses there (2, 500m).")
@click.option("--memory", default=None, metavar="QUANTITY", help="Total memory it uses there (1Gi).")
@click.option("--clear", is_flag=True, help="Remove the load (its pods go back to a small base usage).")
def load(
    workload: str,
    namespace: str,
    cluster: str,
    data_dir: Path,
    cpu: str | None,
    memory: str | None,
    clear: bool,
) -> None:
    """Set the load a workload puts on one simulated cluster: what `kubectl top` and the metrics API show.

    The load is the workload's TOTAL usage in that cluster, divided among its ready pods. It is kept
    by the sim (the hub re-applying its copy of the workload does not undo it) and wins over the
    `load.sim.flotilla.io/cpu` and `load.sim.flotilla.io/memory` annotations.

    \b
    Examples:
      flotilla sim load deployment/web -n shop --cluster member1 --data-dir .flotilla/sim --cpu 2
      flotilla sim load deploy/web -n shop --cluster member1 --data-dir .flotilla/sim --memory 1Gi
      flotilla sim load deployment/web -n shop --cluster member1 --data-dir .flotilla/sim --clear
    """
    kind, _, name = workload.partition("/")
    if not kind or not name:
        raise click.UsageError(f"name the workload as KIND/NAME (deployment/web), not {workload!r}")
    if clear == (cpu is not None or memory is not None):
        raise click.UsageError("give --cpu and/or --memory, or --clear")
    body: dict[str, object] = {"kind": kind, "namespace": namespace, "name": name}
    if cpu is not None:
        body["cpu"] = cpu
    if memory is not None:
        body["memory"] = memory
    answer = _post_to_sim(data_dir, f"/clusters/{cluster}/loads", body)
    where = f"{answer['cluster']}: {answer['workload']} -n {answer['namespace']}"
    if not answer["load"]:
        click.echo(f"{where}: load cleared")
        return
    set_to = ", ".join(f"{dimension} {amount}" for dimension, amount in answer["load"].items())
    missing = "" if answer["found"] else " (it does not exist there yet: the load applies once it does)"
    click.echo(f"{where}: load {set_to}{missing}")
