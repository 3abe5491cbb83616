"""`flotilla register`: join a member to a hub in Pull mode, from the member's side (karmadactl register).

Run beside the member with a bootstrap token from `flotilla token create --print-register-command`:

1. learn the member's cluster id (the UID of its `kube-system` namespace);
2. trust the hub: read `cluster-info`, check its token signature and pin its CA
   (`registration/discovery.py`);
3. ask for the agent's certificate with the bootstrap token (`registration/request.py`): the hub
   accepts the registration — creating the Cluster (syncMode Pull) and the agent's RBAC — and issues
   it, at once or, with manual acceptance, once an operator runs `flotilla accept NAME`;
4. write the data directory (`registration/data.py`), check the new identity can read its Cluster,
   and start `flotilla agent` (in the foreground, or detached with `--detach`).

Every failure ends with one line saying what to do; the private key never leaves the member.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

import click

from flotilla.agent.datadir import AGENT_JSON, AGENT_LOG, AGENT_PID, HUB_KUBECONFIG, write_atomically
from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.karmada.registration import cluster_name_problems, registration_annotations
from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.registration.data import (
    agent_command,
    agent_settings,
    exited_early,
    hub_kubeconfig,
    run_in_foreground,
    running_agent,
    start_detached,
)
from flotilla.cli.registration.discovery import (
    REFUSED_TOKEN_MESSAGE,
    DiscoveryError,
    TrustedHub,
    discover_hub,
)
from flotilla.cli.registration.request import (
    RequestRefused,
    RequestTimedOut,
    new_agent_key,
    signing_request,
    wait_for_certificate,
)
from flotilla.cli.registration.tokens import BootstrapToken, parse_ca_hash, parse_duration, parse_token
from flotilla.client import APIStatusError, Client, ClientError, ClusterConfig, Forbidden, load_kubeconfig
from flotilla.client.errors import Unauthorized
from flotilla.client.kubeconfig import KubeconfigError
from flotilla.runtime.privatefiles import private_directory

NAMESPACE = GroupVersionKind("", "v1", "Namespace")
AGENT_START_CHECK_SECONDS = 1.0
"""How long a detached agent must stay up for `register --detach` to report it started."""
IDENTITY_CHECK_SECONDS = 20.0
"""How long the new identity may take to be let in (RBAC caches) before register gives up."""


@dataclass(frozen=True, slots=True)
class Registration:
    cluster_name: str
    cluster_id: str
    hub: TrustedHub
    certificate_pem: bytes
    key_pem: bytes


@click.command()
@click.argument("hub_address", metavar="HUB_HOST:PORT")
@click.option("--token", "token_text", required=True, help="The bootstrap token, ID.SECRET.")
@click.option(
    "--discovery-token-ca-cert-hash",
    "ca_hashes",
    multiple=True,
    help="sha256:HASH of the hub CA's public key, which it must present (repeatable).",
)
@click.option(
    "--discovery-token-unsafe-skip-ca-verification",
    "skip_ca_verification",
    is_flag=True,
    help="Trust whichever CA the hub's cluster-info names (it is still checked against the token).",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    required=True,
    help="Kubeconfig of this member cluster (the agent uses it too).",
)
@click.option("--context", default=None, help="Context of the member in --kubeconfig.")
@click.option("--cluster-name", required=True, help="The name of this cluster on the hub.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Where the agent keeps its hub credentials (hub.kubeconfig) and state.",
)
@click.option("--cluster-provider", default="", help="Provider recorded on the Cluster.")
@click.option("--cluster-region", default="", help="Region recorded on the Cluster.")
@click.option("--cluster-zones", default="", help="Comma-separated zones recorded on the Cluster.")
@click.option("--detach", is_flag=True, help="Start the agent in the background (log: DATA_DIR/agent.log).")
@click.option(
    "--timeout",
    default="5m",
    show_default=True,
    help="How long to wait for the hub to accept the cluster (a duration: 90s, 5m, 1h).",
)
def register(
    hub_address: str,
    token_text: str,
    ca_hashes: tuple[str, ...],
    skip_ca_verification: bool,
    kubeconfig: Path,
    context: str | None,
    cluster_name: str,
    data_dir: Path,
    cluster_provider: str,
    cluster_region: str,
    cluster_zones: str,
    detach: bool,
    timeout: str,
) -> None:
    """Register this member cluster with a hub in Pull mode and start its agent.

    \b
    Example (the first line as printed by `flotilla token create --print-register-command` on the hub):
      flotilla register 10.0.0.1:6443 --token abcdef.0123456789abcdef \\
          --discovery-token-ca-cert-hash sha256:<hash> \\
          --kubeconfig member.kubeconfig --cluster-name member1 --data-dir /var/lib/flotilla-agent --detach
    """
    problems = cluster_name_problems(cluster_name)
    if problems:
        raise click.BadParameter(f"{cluster_name!r}: {'; '.join(problems)}", param_hint="--cluster-name")
    try:
        token = parse_token(token_text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--token") from exc
    try:
        pins = tuple(parse_ca_hash(text) for text in ca_hashes)
        wait_seconds = parse_duration(timeout).total_seconds()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    if not pins and not skip_ca_verification:
        raise click.UsageError(
            "give the hub CA's hash with --discovery-token-ca-cert-hash sha256:HASH (printed by "
            "`flotilla token create --print-register-command` on the hub), or accept any CA with "
            "--discovery-token-unsafe-skip-ca-verification"
        )
    running = running_agent(data_dir)
    if running is not None:
        raise click.ClickException(
            f"an agent is already running from {data_dir} (pid {running}); stop it before registering again"
        )
    zones = [zone.strip() for zone in cluster_zones.split(",") if zone.strip()]
    server = hub_address if "://" in hub_address else f"https://{hub_address}"
    try:
        registration = asyncio.run(
            _register(
                server,
                token,
                pins,
                skip_ca_verification,
                load_kubeconfig(kubeconfig, context),
                cluster_name,
                registration_annotations("", cluster_provider, cluster_region, zones),
                time.monotonic() + wait_seconds,
            )
        )
    except (DiscoveryError, RequestRefused, KubeconfigError) as exc:
        raise click.ClickException(str(exc)) from exc
    except RequestTimedOut as exc:
        raise click.ClickException(
            f"the hub did not accept cluster {cluster_name} within {timeout}; ask the hub operator to run "
            f"`flotilla accept {cluster_name}`, then register again"
        ) from exc
    _write_data_dir(data_dir, registration)
    credentials = data_dir / HUB_KUBECONFIG
    click.echo(f"cluster {cluster_name} registered with the hub at {server} (credentials: {credentials})")
    command = agent_command(data_dir, kubeconfig, context, cluster_name)
    if not detach:
        run_in_foreground(command)
    pid = start_detached(command, data_dir)
    time.sleep(AGENT_START_CHECK_SECONDS)
    code = exited_early(pid)
    if code is not None:
        raise click.ClickException(f"the agent exited at once (exit code {code}); see {data_dir / AGENT_LOG}")
    click.echo(f"agent started (pid {pid}, log {data_dir / AGENT_LOG}, pid file {data_dir / AGENT_PID})")


async def _register(
    server: str,
    token: BootstrapToken,
    pins: tuple[str, ...],
    skip_ca_verification: bool,
    member: ClusterConfig,
    cluster_name: str,
    annotations: dict[str, str],
    deadline: float,
) -> Registration:
    cluster_id = await _cluster_id(member)
    hub = await discover_hub(server, token, pins, skip_ca_verification)
    key = new_agent_key(cluster_name)
    bootstrap = ClusterConfig(server=server, ca_pem=hub.ca_pem, token=str(token))
    annotations = {**annotations, **registration_annotations(cluster_id, "", "", [])}
    try:
        async with Client(
            bootstrap, field_manager="flotilla-register", user_agent="flotilla-register"
        ) as client:
            created = await client.create(signing_request(cluster_name, key.request_pem, annotations))
            name = created["metadata"]["name"]
            click.echo(
                f"certificate request {name} sent; waiting for the hub to accept cluster {cluster_name}"
            )

            def still_pending() -> None:
                click.echo(f"waiting for the hub operator to run `flotilla accept {cluster_name}`")

            certificate = await wait_for_certificate(client, name, deadline, still_pending)
    except Unauthorized as exc:
        raise DiscoveryError(REFUSED_TOKEN_MESSAGE) from exc
    except Forbidden as exc:
        raise DiscoveryError(f"the hub refused the bootstrap token's request: {exc.message}") from exc
    except APIStatusError as exc:
        raise DiscoveryError(f"the hub refused the certificate request: {exc.message}") from exc
    except ClientError as exc:
        raise DiscoveryError(f"cannot reach the hub at {server}: {exc}") from exc
    registration = Registration(cluster_name, cluster_id, hub, certificate, key.private_key_pem)
    await _check_identity(registration, deadline)
    return registration


async def _cluster_id(member: ClusterConfig) -> str:
    """The member's permanent id: the UID of its kube-system namespace (what `join` records too)."""
    try:
        async with Client(member, timeout=15.0) as client:
            system = await client.get(NAMESPACE, "kube-system")
    except ClientError as exc:
        raise DiscoveryError(f"the member cluster at {member.server} does not answer: {exc}") from exc
    return str((system.get("metadata") or {}).get("uid") or "")


async def _check_identity(registration: Registration, deadline: float) -> None:
    """Read the cluster's own Cluster with the new certificate: the hub accepted it and RBAC lets it in."""
    config = ClusterConfig(
        server=registration.hub.server,
        ca_pem=registration.hub.ca_pem,
        client_cert_pem=registration.certificate_pem,
        client_key_pem=registration.key_pem,
    )
    name = registration.cluster_name
    # The hub grants the rights before it issues the certificate: only a slow cache needs a retry.
    deadline = min(deadline, time.monotonic() + IDENTITY_CHECK_SECONDS)
    async with Client(config, timeout=15.0, user_agent="flotilla-register") as client:
        while True:
            try:
                cluster = await client.get(CLUSTER, name)
            except ClientError as exc:
                if time.monotonic() > deadline:
                    raise DiscoveryError(
                        f"the agent's new identity cannot read its Cluster {name}: {exc}"
                    ) from exc
                await asyncio.sleep(0.5)
                continue
            mode = (cluster.get("spec") or {}).get("syncMode")
            if mode != "Pull":
                raise DiscoveryError(f"cluster {name} on the hub is in {mode} mode, not Pull")
            return


def _write_data_dir(data_dir: Path, registration: Registration) -> None:
    private_directory(data_dir)
    hub = registration.hub
    kubeconfig = hub_kubeconfig(
        hub.server, hub.ca_pem, registration.certificate_pem, registration.key_pem, registration.cluster_name
    )
    write_atomically(data_dir / HUB_KUBECONFIG, kubeconfig.encode())
    settings = agent_settings(registration.cluster_name, hub.server, registration.cluster_id)
    write_atomically(data_dir / AGENT_JSON, settings.encode(), mode=0o644)
