"""`flotilla get` and `describe` end to end: the real binary against a hub with two simulated members.

One hub, one `flotilla sim` process serving `member1` and `member2` (joined in Push mode) and a
controller manager run for the whole module; the nginx walkthrough propagates a Deployment split
1:1 over both members. Tests run in file order on the shared processes; the last one makes
`member2` unreachable and recovers it. The commands run as a user runs them: the installed
`flotilla` script (and `kubectl flotilla`, the plugin), with the hub kubeconfig in `KUBECONFIG`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    members_named,
    nginx_walkthrough,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("member1", "member2")
NAMESPACE = "default"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    root = tmp_path_factory.mktemp("cli-get")
    with Federation(root, members_named(*MEMBERS), manager_args=manager_args) as federation:
        # Both members Ready first: scheduled earlier, the 1:1 split can land wholly on member1.
        federation.start()
        hub = federation.kubectl(root / "kube-cache")
        hub.apply_yaml(nginx_walkthrough(*MEMBERS), "-n", NAMESPACE)
        eventually(
            lambda: template_ready(hub, NAMESPACE, "nginx") == "2/2",
            timeout=60,
            what="nginx READY 2/2 on the hub",
        )
        yield federation


def rows(output: str) -> list[list[str]]:
    """Table output as cells per line, the header first."""
    return [line.split() for line in output.splitlines()]


def without_ages(output: str) -> list[tuple[list[str], bool]]:
    """Each line's cells but AGE (ages tick between two commands), and whether it ends in padding."""
    lines = output.splitlines()
    age = lines[0].split().index("AGE")
    return [([cell for i, cell in enumerate(line.split()) if i != age], line.endswith(" ")) for line in lines]


def test_get_clusters_lists_every_member_ready_as_kubectl_does(federation: Federation, hub: Kubectl) -> None:
    """`flotilla get clusters` prints the Cluster printer columns, each member Ready, laid out as kubectl."""
    result = federation.flotilla("get", "clusters")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table[0] == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    assert [(line[0], line[2], line[3]) for line in table[1:]] == [(m, "Push", "True") for m in MEMBERS]
    theirs = hub("get", "clusters")
    assert without_ages(result.stdout) == without_ages(theirs)
    assert result.stdout.index("AGE") == theirs.index("AGE")


def test_get_deployment_across_all_clusters_shows_adoption(federation: Federation) -> None:
    """Scope all lists the template (CLUSTER Karmada, ADOPTION -) and both managed copies (Y)."""
    result = federation.flotilla("get", "deploy", "nginx", "--operation-scope", "all")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table[0] == ["NAME", "CLUSTER", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "ADOPTION"]
    assert [(line[1], line[2], line[-1]) for line in table[1:]] == [
        ("Karmada", "2/2", "-"),
        ("member1", "1/1", "Y"),
        ("member2", "1/1", "Y"),
    ]


def test_clusters_flag_filters_members_and_yaml_marks_their_objects(federation: Federation) -> None:
    """`--clusters member2 -o yaml` of one name prints member2's copy itself, annotated with its cluster."""
    result = federation.flotilla(
        "get", "deploy", "nginx", "-s", "members", "--clusters", "member2", "-o", "yaml"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("apiVersion: apps/v1\nkind: Deployment\n")
    assert "resource.karmada.io/cached-from-cluster: member2\n" in result.stdout
    assert 'karmada.io/managed: "true"\n' in result.stdout


def test_errors_are_kubectls_lines_with_exit_1(federation: Federation) -> None:
    """Unknown types, missing objects and unknown clusters read as kubectl and karmadactl report them."""
    result = federation.flotilla("get", "deploy,foo", "nope")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        'Error from server (NotFound): deployments.apps "nope" not found',
        'error: the server doesn\'t have a resource type "foo"',
    ]
    unknown = federation.flotilla("get", "deploy", "-s", "members", "--clusters", "member9")
    assert (unknown.returncode, unknown.stderr) == (1, "error: clusters don't exist: member9\n")


def test_describe_deployment_shows_where_it_was_propagated(federation: Federation) -> None:
    """describe lists the binding's clusters with the replicas and status each member reported."""
    result = federation.flotilla("describe", "deployment", "nginx")
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert ["Binding:", "ResourceBinding", "default/nginx-deployment"] in lines
    clusters = {line[0]: line[1:4] for line in lines if line and line[0] in MEMBERS}
    assert clusters == {member: ["1", "true", "Healthy"] for member in MEMBERS}


def test_kubectl_runs_flotilla_as_a_plugin(federation: Federation) -> None:
    """`kubectl flotilla get clusters` finds `kubectl-flotilla` on PATH and prints the same table."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    result = federation.flotilla("flotilla", "get", "clusters", program=kubectl)
    assert result.returncode == 0, result.stderr
    assert [line[0] for line in rows(result.stdout)] == ["NAME", *MEMBERS]


def test_an_unreachable_member_is_reported_while_the_others_are_listed(federation: Federation) -> None:
    """member2 refusing connections is one `error: cluster member2:` line; the hub and member1 still print.

    Last in the module: member2 stays unreachable until the processes stop.
    """
    federation.sim.fault("member2", "--unreachable")
    result = federation.flotilla("get", "deploy", "-s", "all")
    assert result.returncode == 1
    assert [line[1] for line in rows(result.stdout)[1:]] == ["Karmada", "member1"]
    # Members are read through the hub's cluster proxy, which answers 503 for a member it cannot dial.
    assert result.stderr.startswith("error: cluster member2: error trying to reach cluster member2: ")
    assert len(result.stderr.splitlines()) == 1
