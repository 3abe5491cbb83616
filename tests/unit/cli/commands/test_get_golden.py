"""Golden layouts of `flotilla get`, from Tables and objects recorded from a hub and two members.

The inputs under `golden/` were answered by a real hub (`flotilla apiserver`) and simulated
members (`flotilla sim`) running the nginx walkthrough; the expected outputs beside them are what
kubectl (hub only) and karmadactl (across clusters) print for them. Regenerate the outputs after
an intended layout change with `FLOTILLA_UPDATE_GOLDEN=1 pytest tests/unit/cli`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from flotilla.cli.arguments.resources import ResourceRequest
from flotilla.cli.commands.get import Fetched, Found, GetSettings, human_output, object_output
from flotilla.cli.hub.operationscope import OperationScope
from flotilla.cli.output.printers import HUB_CLUSTER, parse_table
from flotilla.client.discovery import ResourceInfo

GOLDEN = Path(__file__).parents[1] / "golden"
"""Answers of a real hub and its members, shared by the tests of `get`, `describe` and the descriptions."""
CLUSTERS = ResourceInfo("cluster.karmada.io", "v1alpha1", "Cluster", "clusters", namespaced=False)
DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)
PROPAGATION_POLICIES = ResourceInfo(
    "policy.karmada.io",
    "v1alpha1",
    "PropagationPolicy",
    "propagationpolicies",
    namespaced=True,
)


def recorded(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text())


def assert_golden(name: str, actual: str) -> None:
    """Compare with golden/<name>, or rewrite it when FLOTILLA_UPDATE_GOLDEN is set."""
    path = GOLDEN / name
    if os.environ.get("FLOTILLA_UPDATE_GOLDEN"):
        path.write_text(actual)
    assert path.exists(), f"no golden file {path}; run with FLOTILLA_UPDATE_GOLDEN=1 to create it"
    assert actual == path.read_text()


def settings(*types: str, names: tuple[str, ...] = (), **options: Any) -> GetSettings:
    return GetSettings(
        requests=tuple(ResourceRequest(t, names) for t in types), namespace="default", **options
    )


def hub_tables(resource: ResourceInfo, table_file: str) -> Fetched:
    return Fetched(HUB_CLUSTER, True, [Found(resource, table=parse_table(HUB_CLUSTER, recorded(table_file)))])


def member_tables(cluster: str) -> Fetched:
    table = parse_table(cluster, recorded(f"deployments.{cluster}.table.json"))
    return Fetched(cluster, False, [Found(DEPLOYMENTS, table=table)])


def test_get_clusters_prints_the_cluster_printer_columns() -> None:
    """`get clusters` shows NAME VERSION MODE READY AGE, as the Cluster CRD's priority-0 columns."""
    output = human_output([hub_tables(CLUSTERS, "clusters.table.json")], settings("clusters"))
    assert output.splitlines()[0].split() == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    assert_golden("get_clusters.txt", output)


def test_get_clusters_wide_adds_the_priority_one_columns() -> None:
    """`get clusters -o wide` adds ZONES REGION PROVIDER API-ENDPOINT PROXY-URL, empty cells included."""
    output = human_output([hub_tables(CLUSTERS, "clusters.table.json")], settings("clusters", output="wide"))
    assert output.splitlines()[0].split()[5:] == ["ZONES", "REGION", "PROVIDER", "API-ENDPOINT", "PROXY-URL"]
    assert_golden("get_clusters_wide.txt", output)


def test_get_deployments_across_all_clusters_adds_cluster_and_adoption() -> None:
    """Scope all lists the hub's row (CLUSTER Karmada, ADOPTION -) then each member's (ADOPTION Y)."""
    fetched = [
        hub_tables(DEPLOYMENTS, "deployments.hub.table.json"),
        member_tables("member1"),
        member_tables("member2"),
    ]
    output = human_output(fetched, settings("deploy", scope=OperationScope.ALL))
    lines = output.splitlines()
    assert lines[0].split()[:2] == ["NAME", "CLUSTER"] and lines[0].split()[-1] == "ADOPTION"
    assert [line.split()[1] for line in lines[1:]] == [HUB_CLUSTER, "member1", "member2"]
    assert_golden("get_deploy_scope_all.txt", output)


def test_get_names_prints_kind_group_and_name_per_object() -> None:
    """`-o name` prints `kind.group/name` for every object, hub and members alike."""
    fetched = [
        Fetched(
            HUB_CLUSTER,
            True,
            [
                Found(DEPLOYMENTS, objects=[recorded("deployment.hub.json")]),
                Found(PROPAGATION_POLICIES, objects=[recorded("propagationpolicy.json")]),
            ],
        ),
        Fetched("member1", False, [Found(DEPLOYMENTS, objects=[recorded("deployment.member1.json")])]),
    ]
    output = object_output(
        fetched, settings("deploy", "pp", output="name", scope=OperationScope.ALL), targets=2
    )
    assert_golden("get_name.txt", output)


def test_get_yaml_across_clusters_is_one_list_marking_member_objects() -> None:
    """`-o yaml` across clusters is one v1 List; member items carry the cached-from-cluster annotation."""
    fetched = [
        Fetched(HUB_CLUSTER, True, [Found(DEPLOYMENTS, objects=[recorded("deployment.hub.json")])]),
        Fetched("member1", False, [Found(DEPLOYMENTS, objects=[recorded("deployment.member1.json")])]),
    ]
    output = object_output(
        fetched, settings("deploy", names=("nginx",), output="yaml", scope=OperationScope.ALL), targets=2
    )
    assert output.startswith("apiVersion: v1\nitems:\n")
    assert output.count("resource.karmada.io/cached-from-cluster: member1") == 1
    assert_golden("get_deploy_scope_all_yaml.txt", output)


@pytest.mark.parametrize("output_format", ["yaml", "json"])
def test_one_named_object_on_one_cluster_prints_the_object_itself(output_format: str) -> None:
    """kubectl prints the object, not a List, when one name of one type is asked of one cluster."""
    fetched = [Fetched(HUB_CLUSTER, True, [Found(DEPLOYMENTS, objects=[recorded("deployment.hub.json")])])]
    output = object_output(fetched, settings("deploy", names=("nginx",), output=output_format), targets=1)
    assert "List" not in output.split("\n", 3)[1] and "Deployment" in output
    assert ("apiVersion: apps/v1\n" in output) == (output_format == "yaml")
