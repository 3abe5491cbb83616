"""A Karmada-style federation for integration tests: a hub, simulated members, a controller manager.

`Federation` owns the processes a propagation test needs: the hub (`flotilla apiserver`), one
`flotilla sim` serving every member cluster (sized by a `MemberCluster` each, written to a sim
config file), the `flotilla join` of each Push member, the `flotilla register` and the agent of each
Pull member, and a controller manager against the hub (more of them for a leader-election test). A
module builds one, runs the steps it needs in order (`start` runs them all) and asks it for
kubectl against the hub or a member. The manifests (the nginx walkthrough's Deployment and
PropagationPolicy, a CustomResourceDefinition) and the waits most tests share sit beside it, so a
test states only what it places where and what it expects to find.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from tests.support.kubectl import Kubectl
from tests.support.processes import (
    AgentProcess,
    ControllerManagerProcess,
    ServerProcess,
    SimProcess,
    flotilla,
    stop_detached_agent,
)
from tests.support.waiting import eventually

BIN = Path(sys.executable).parent
FAST_CLUSTER_STATUS = ("--cluster-status-interval", "1", "--cluster-success-threshold", "0")
"""Controller manager flags: probe members every second and call them Ready on the first success."""
FAST_AGENT_STATUS = ("--lease-seconds", "1", *FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2")
"""Agent flags: renew the Lease and report status every second, Ready at once, NotReady after two misses."""


@dataclass(frozen=True)
class MemberCluster:
    """One simulated member: its size in the sim, and the flags `flotilla join` (or `register`) gives it.

    A Push member is joined; a Pull member registers with a bootstrap token and is served by an agent.
    """

    name: str
    nodes: int = 1
    node_cpu: str = "8"
    node_memory: str = "32Gi"
    node_pods: int = 110
    labels: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None
    zones: str | None = None
    provider: str | None = None
    sync_mode: Literal["Push", "Pull"] = "Push"

    def sim_entry(self) -> dict[str, Any]:
        """This member as an entry of the `clusters:` list of a `flotilla sim --config` file."""
        entry = {
            "name": self.name,
            "nodes": self.nodes,
            "nodeCPU": self.node_cpu,
            "nodeMemory": self.node_memory,
            "nodePods": self.node_pods,
        }
        return {**entry, "labels": dict(self.labels)} if self.labels else entry

    def join_flags(self) -> list[str]:
        """`--cluster-region`, `--cluster-zones`, `--cluster-provider`: join and register take the same."""
        flags = {
            "--cluster-region": self.region,
            "--cluster-zones": self.zones,
            "--cluster-provider": self.provider,
        }
        return [word for flag, value in flags.items() if value for word in (flag, value)]


def members_named(*names: str, **sizes: Any) -> tuple[MemberCluster, ...]:
    """Members of the same size, e.g. `members_named("member1", "member2", nodes=2)`."""
    return tuple(MemberCluster(name, **sizes) for name in names)


class Federation:
    """A hub, a sim serving `members`, their joins (or registrations) and a controller manager, under `root`.

    A context manager: leaving the `with` block stops every process, also when starting failed.
    """

    def __init__(
        self,
        root: Path,
        members: Sequence[MemberCluster],
        *,
        manager_args: Sequence[str] = FAST_CLUSTER_STATUS,
        agent_args: Sequence[str] = FAST_AGENT_STATUS,
        pod_start_seconds: float | None = 0.1,
        sim_config: Mapping[str, Any] | None = None,
    ) -> None:
        self.root = root
        self.sim_config = dict(sim_config or {})
        """Top-level fields of the sim's config file beside `clusters` (its `execs` and `logs`)."""
        self.members = {member.name: member for member in members}
        self.hub = ServerProcess(root / "hub")
        pod_start = [] if pod_start_seconds is None else ["--pod-start-seconds", str(pod_start_seconds)]
        self.sim = SimProcess(root / "sim", ["--config", str(root / "sim.yaml"), *pod_start])
        self.manager_args = list(manager_args)
        self.manager = ControllerManagerProcess(self.hub.kubeconfig, root / "logs", self.manager_args)
        self.managers = [self.manager]
        self.agents = {
            name: AgentProcess(
                root / f"agent-{name}", self.sim.kubeconfig(name), root / "logs" / name, list(agent_args)
            )
            for name, member in self.members.items()
            if member.sync_mode == "Pull"
        }

    @property
    def names(self) -> list[str]:
        return list(self.members)

    def start(self, *, wait_ready: bool = True) -> Federation:
        """Every step: hub and sim, every member joined or registered, the controller manager, all Ready."""
        self.start_hub_and_sim()
        self.join_all()
        self.manager.start()
        if wait_ready:
            self.wait_clusters_ready()
        return self

    def start_hub_and_sim(self) -> None:
        """Start the hub and the sim side by side (neither needs the other to come up)."""
        self.root.mkdir(parents=True, exist_ok=True)
        config = {**self.sim_config, "clusters": [member.sim_entry() for member in self.members.values()]}
        (self.root / "sim.yaml").write_text(yaml.safe_dump(config))
        with ThreadPoolExecutor(2) as pool:
            hub, sim = pool.submit(self.hub.start), pool.submit(self.sim.start)
            hub.result()
            sim.result()

    def join(self, name: str) -> None:
        """`flotilla join NAME` in Push mode with the member's sim kubeconfig and join flags."""
        kubeconfigs = [
            "--kubeconfig",
            str(self.hub.kubeconfig),
            "--cluster-kubeconfig",
            str(self.sim.kubeconfig(name)),
        ]
        flotilla("join", name, *kubeconfigs, *self.members[name].join_flags())

    def register(self, name: str) -> None:
        """Register Pull member `name` as an operator does, and serve it with the Federation's agent.

        `flotilla register` runs with the line `flotilla token create --print-register-command`
        prints (the hub accepts the cluster: the Cluster, the agent's RBAC, its certificate); the
        agent it starts detached is then replaced by `agents[name]`, which runs with this
        Federation's agent flags and which a test may stop, kill and start again.
        """
        agent = self.agents[name]
        hub_kubeconfig = ["--kubeconfig", str(self.hub.kubeconfig)]
        printed = flotilla("token", "create", "--print-register-command", *hub_kubeconfig).stdout.split()
        assert printed[:2] == ["flotilla", "register"], printed
        registered = flotilla(
            *printed[1:],
            *("--kubeconfig", str(self.sim.kubeconfig(name)), "--cluster-name", name),
            *("--data-dir", str(agent.data_dir), "--detach"),
            *self.members[name].join_flags(),
        )
        assert "agent started" in registered.stdout, registered.stdout
        pid_file = agent.data_dir / "agent.pid"
        stop_detached_agent(int(pid_file.read_text()))
        pid_file.unlink()
        agent.start()

    def join_all(self) -> None:
        """Join every Push member and register every Pull member, side by side."""
        with ThreadPoolExecutor(len(self.members)) as pool:
            steps = [
                pool.submit(self.register if member.sync_mode == "Pull" else self.join, name)
                for name, member in self.members.items()
            ]
            for step in steps:
                step.result()

    def additional_manager(self) -> ControllerManagerProcess:
        """Another controller manager with the same flags and its own log directory, not yet started.

        Stopped with the Federation; a leader-election test starts one beside `manager`.
        """
        log_dir = self.root / f"logs-{len(self.managers)}"
        manager = ControllerManagerProcess(self.hub.kubeconfig, log_dir, self.manager_args)
        self.managers.append(manager)
        return manager

    def wait_clusters_ready(self, names: Sequence[str] | None = None, timeout: float = 60.0) -> None:
        """Wait until the hub reports Ready=True for `names` (every member by default), and only those."""
        hub = self.kubectl(self.root / "cache-ready")
        expected = set(self.members if names is None else names)
        eventually(
            lambda: ready_clusters(hub) == expected, timeout=timeout, what=f"clusters Ready: {expected}"
        )

    def __enter__(self) -> Federation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop whatever runs, agents and controller managers first; safe after a failed or partial start."""
        for process in [*self.agents.values(), *self.managers]:
            process.stop()
        self.sim.stop()
        self.hub.stop()

    def kubectl(self, cache: Path) -> Kubectl:
        """kubectl against the hub."""
        return Kubectl(self.hub.kubeconfig, cache)

    def member(self, name: str, cache: Path) -> Kubectl:
        """kubectl against member `name` directly, with the sim's admin kubeconfig."""
        return Kubectl(self.sim.kubeconfig(name), cache)

    def agent_kubectl(self, name: str, cache: Path) -> Kubectl:
        """kubectl with the credentials of Pull member `name`'s agent (the hub.kubeconfig it was given)."""
        return Kubectl(self.agents[name].data_dir / "hub.kubeconfig", cache)

    def member_kubectls(self, cache_root: Path) -> dict[str, Kubectl]:
        """kubectl against each member, by name, each with its own cache under `cache_root`."""
        return {name: self.member(name, cache_root / f"{name}-cache") for name in self.members}

    def flotilla(
        self, *args: str, input: str | None = None, program: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """The installed `flotilla` script (or `program`) as a user runs it: KUBECONFIG names the hub."""
        environ = {
            **os.environ,
            "KUBECONFIG": str(self.hub.kubeconfig),
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        command = [program or str(BIN / "flotilla"), *args]
        return subprocess.run(
            command, input=input, capture_output=True, text=True, env=environ, timeout=60, check=False
        )


def condition(obj: Mapping[str, Any] | None, kind: str) -> dict[str, Any]:
    """The status condition of type `kind` of `obj`, or {} when it has none."""
    conditions = ((obj or {}).get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c["type"] == kind), {})


def ready_clusters(hub: Kubectl) -> set[str]:
    """Names of the Clusters whose Ready condition is True."""
    return {
        cluster["metadata"]["name"]
        for cluster in hub.json("get", "clusters")["items"]
        if condition(cluster, "Ready").get("status") == "True"
    }


def member_deployments(members: Mapping[str, Kubectl], ns: str, name: str) -> dict[str, dict[str, Any]]:
    """Deployment `name` in `ns` on each member that has it, by cluster."""
    found = {
        cluster: kubectl.json_or_none("get", "deploy", name, "-n", ns) for cluster, kubectl in members.items()
    }
    return {cluster: obj for cluster, obj in found.items() if obj is not None}


def replicas_on(members: Mapping[str, Kubectl], ns: str, name: str) -> dict[str, int]:
    """spec.replicas of Deployment `name` on each member that has it."""
    return {
        cluster: obj["spec"]["replicas"] for cluster, obj in member_deployments(members, ns, name).items()
    }


def ready_on(members: Mapping[str, Kubectl], ns: str, name: str) -> dict[str, int]:
    """status.readyReplicas of Deployment `name` on each member that has it."""
    return {
        cluster: obj.get("status", {}).get("readyReplicas", 0)
        for cluster, obj in member_deployments(members, ns, name).items()
    }


def template_ready(hub: Kubectl, ns: str, name: str) -> str:
    """The READY column `kubectl get deploy` prints for the hub's Deployment, e.g. `2/2`."""
    return hub("get", "deploy", name, "-n", ns).splitlines()[1].split()[1]


def deployment(
    name: str,
    replicas: int | None = 2,
    *,
    image: str = "nginx",
    namespace: str | None = None,
    requests: Mapping[str, str] | None = None,
    **pod_spec: Any,
) -> dict[str, Any]:
    """A Deployment of one `nginx` container labelled `app: NAME`; `replicas=None` leaves them unset."""
    container: dict[str, Any] = {"name": "nginx", "image": image}
    if requests:
        container["resources"] = {"requests": dict(requests)}
    metadata: dict[str, Any] = {"name": name, "labels": {"app": name}}
    if namespace:
        metadata["namespace"] = namespace
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **pod_spec}},
    }
    if replicas is not None:
        spec = {"replicas": replicas, **spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata, "spec": spec}


def resource_selector(kind: str, name: str, api_version: str = "apps/v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name}


def propagation_policy(
    name: str,
    selectors: list[dict[str, Any]],
    placement: dict[str, Any],
    *,
    kind: str = "PropagationPolicy",
    namespace: str | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A (Cluster)PropagationPolicy; `spec` adds fields beside the selectors and placement."""
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": selectors, "placement": placement, **spec},
    }


def static_weights(weights: Mapping[str, int]) -> dict[str, Any]:
    """replicaScheduling dividing replicas by a static weight per cluster."""
    return {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": [cluster]}, "weight": weight}
                for cluster, weight in weights.items()
            ]
        },
    }


def nginx_walkthrough(first: str, second: str) -> list[dict[str, Any]]:
    """Karmada's getting-started manifests: nginx with 2 replicas split 1:1 over two clusters."""
    placement = {
        "clusterAffinity": {"clusterNames": [first, second]},
        "replicaScheduling": static_weights({first: 1, second: 1}),
    }
    policy = propagation_policy("nginx-propagation", [resource_selector("Deployment", "nginx")], placement)
    return [deployment("nginx", 2), policy]


def registry_override(deployment_name: str, cluster: str, registry: str) -> dict[str, Any]:
    """An OverridePolicy `registry` replacing the image registry of a Deployment on one cluster."""
    replace = {"component": "Registry", "operator": "replace", "value": registry}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "registry"},
        "spec": {
            "resourceSelectors": [resource_selector("Deployment", deployment_name)],
            "overrideRules": [
                {"targetCluster": {"clusterNames": [cluster]}, "overriders": {"imageOverrider": [replace]}}
            ],
        },
    }


def custom_resource_definition(
    group: str,
    kind: str,
    schema: Mapping[str, Any],
    *,
    names: Mapping[str, Any] | None = None,
    **version: Any,
) -> dict[str, Any]:
    """A namespaced CRD of `kind` (plural: lower-case kind + "s") serving `group`/v1 with `schema`.

    `names` adds to the kind's names (shortNames, categories, listKind); `version` adds fields of the
    v1 version (subresources, additionalPrinterColumns). The schema is copied: a test may edit it.
    """
    singular = kind.lower()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{singular}s.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": f"{singular}s", "singular": singular, "kind": kind, **(names or {})},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    **version,
                    "schema": {"openAPIV3Schema": copy.deepcopy(dict(schema))},
                }
            ],
        },
    }
