"""`flotilla get` and `describe` end to end: the real binary against a hub with two simulated members.

One hub, one `flotilla sim` process serving `member1` and `member2` (joined in Push mode) and a
controller manager run for the whole module; the nginx walkthrough propagates a Deployment split
1:1 over both members. Tests run in file order on the shared processes; the last one makes
`member2` unreachable and recovers it. The commands run as a user runs them: the installed
`flotilla` script (and `kubectl flotilla`, the plugin), with the hub kubeconfig in `KUBECONFIG`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.integration.harness import (
    ControllerManagerProcess,
    Kubectl,
    ServerProcess,
    SimProcess,
    flotilla,
    wait_until,
)

pytestmark = pytest.mark.kubectl

BIN = Path(sys.executable).parent
MEMBERS = ("member1", "member2")
NAMESPACE = "default"
WALKTHROUGH = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, labels: {app: nginx}}
spec:
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec: {containers: [{name: nginx, image: nginx}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx-propagation}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [member1]}, weight: 1}
        - {targetCluster: {clusterNames: [member2]}, weight: 1}
"""


class Environment:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.hub = ServerProcess(root / "hub")
        self.sim = SimProcess(
            root / "sim", ["--clusters", ",".join(MEMBERS), "--nodes", "1", "--pod-start-seconds", "0.1"]
        )
        self.manager = ControllerManagerProcess(
            self.hub.kubeconfig,
            root / "logs",
            [
                "--cluster-status-interval",
                "1",
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                "2",
            ],
        )
        self.kubectl = Kubectl(self.hub.kubeconfig, root / "kube-cache")

    def start(self) -> Environment:
        with ThreadPoolExecutor(3) as pool:
            hub, sim = pool.submit(self.hub.start), pool.submit(self.sim.start)
            hub.result()
            sim.result()
            joined = [pool.submit(self.join, name) for name in MEMBERS]
            self.manager.start()
            for join in joined:
                join.result()
        self.kubectl("apply", "-f", "-", "-n", NAMESPACE, input=WALKTHROUGH)
        wait_until(
            lambda: self.kubectl("get", "deploy", "nginx", "-n", NAMESPACE).split()[6] == "2/2",
            timeout=60,
            message="nginx READY 2/2 on the hub",
        )
        return self

    def join(self, name: str) -> None:
        flotilla(
            "join",
            name,
            "--kubeconfig",
            str(self.hub.kubeconfig),
            "--cluster-kubeconfig",
            str(self.sim.kubeconfig(name)),
        )

    def stop(self) -> None:
        self.manager.stop()
        self.sim.stop()
        self.hub.stop()

    def environ(self) -> dict[str, str]:
        return {
            **os.environ,
            "KUBECONFIG": str(self.hub.kubeconfig),
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }

    def run(self, *args: str, program: str | None = None) -> subprocess.CompletedProcess[str]:
        """The installed `flotilla` script (or another program) with the hub kubeconfig."""
        command = [program, *args] if program else [str(BIN / "flotilla"), *args]
        return subprocess.run(
            command, capture_output=True, text=True, env=self.environ(), timeout=60, check=False
        )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("cli-get")).start()
    yield environment
    environment.stop()


def rows(output: str) -> list[list[str]]:
    """Table output as cells per line, the header first."""
    return [line.split() for line in output.splitlines()]


def without_ages(output: str) -> list[tuple[list[str], bool]]:
    """Each line's cells but AGE (ages tick between two commands), and whether it ends in padding."""
    lines = output.splitlines()
    age = lines[0].split().index("AGE")
    return [([cell for i, cell in enumerate(line.split()) if i != age], line.endswith(" ")) for line in lines]


def test_get_clusters_lists_every_member_ready_as_kubectl_does(env: Environment) -> None:
    """`flotilla get clusters` prints the Cluster printer columns, each member Ready, laid out as kubectl."""
    result = env.run("get", "clusters")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table[0] == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    assert [(line[0], line[2], line[3]) for line in table[1:]] == [(m, "Push", "True") for m in MEMBERS]
    theirs = env.kubectl("get", "clusters")
    assert without_ages(result.stdout) == without_ages(theirs)
    assert result.stdout.index("AGE") == theirs.index("AGE")


def test_get_deployment_across_all_clusters_shows_adoption(env: Environment) -> None:
    """Scope all lists the template (CLUSTER Karmada, ADOPTION -) and both managed copies (Y)."""
    result = env.run("get", "deploy", "nginx", "--operation-scope", "all")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table[0] == ["NAME", "CLUSTER", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "ADOPTION"]
    assert [(line[1], line[2], line[-1]) for line in table[1:]] == [
        ("Karmada", "2/2", "-"),
        ("member1", "1/1", "Y"),
        ("member2", "1/1", "Y"),
    ]


def test_clusters_flag_filters_members_and_yaml_marks_their_objects(env: Environment) -> None:
    """`--clusters member2 -o yaml` of one name prints member2's copy itself, annotated with its cluster."""
    result = env.run("get", "deploy", "nginx", "-s", "members", "--clusters", "member2", "-o", "yaml")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("apiVersion: apps/v1\nkind: Deployment\n")
    assert "resource.karmada.io/cached-from-cluster: member2\n" in result.stdout
    assert 'karmada.io/managed: "true"\n' in result.stdout


def test_errors_are_kubectls_lines_with_exit_1(env: Environment) -> None:
    """Unknown types, missing objects and unknown clusters read as kubectl and karmadactl report them."""
    result = env.run("get", "deploy,foo", "nope")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        'Error from server (NotFound): deployments.apps "nope" not found',
        'error: the server doesn\'t have a resource type "foo"',
    ]
    unknown = env.run("get", "deploy", "-s", "members", "--clusters", "member9")
    assert (unknown.returncode, unknown.stderr) == (1, "error: clusters don't exist: member9\n")


def test_describe_deployment_shows_where_it_was_propagated(env: Environment) -> None:
    """describe lists the binding's clusters with the replicas and status each member reported."""
    result = env.run("describe", "deployment", "nginx")
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert ["Binding:", "ResourceBinding", "default/nginx-deployment"] in lines
    clusters = {line[0]: line[1:4] for line in lines if line and line[0] in MEMBERS}
    assert clusters == {member: ["1", "true", "Healthy"] for member in MEMBERS}


def test_kubectl_runs_flotilla_as_a_plugin(env: Environment) -> None:
    """`kubectl flotilla get clusters` finds `kubectl-flotilla` on PATH and prints the same table."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    result = env.run("flotilla", "get", "clusters", program=kubectl)
    assert result.returncode == 0, result.stderr
    assert [line[0] for line in rows(result.stdout)] == ["NAME", *MEMBERS]


def test_an_unreachable_member_is_reported_while_the_others_are_listed(env: Environment) -> None:
    """member2 refusing connections is one `error: cluster member2:` line; the hub and member1 still print.

    Last in the module: member2 stays unreachable until the processes stop.
    """
    env.sim.fault("member2", "--unreachable")
    result = env.run("get", "deploy", "-s", "all")
    assert result.returncode == 1
    assert [line[1] for line in rows(result.stdout)[1:]] == ["Karmada", "member1"]
    assert result.stderr.startswith("error: cluster member2: unable to connect to the server: ")
    assert len(result.stderr.splitlines()) == 1
