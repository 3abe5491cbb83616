"""What `flotilla get` prints around its tables: kind prefixes, empty results, names of clusters."""

from __future__ import annotations

from typing import Any

from flotilla.cli.arguments.resources import ResourceRequest
from flotilla.cli.commands.get import (
    Fetched,
    Found,
    GetSettings,
    human_output,
    no_resources_message,
    object_output,
)
from flotilla.cli.hub.operationscope import OperationScope, split_cluster_names
from flotilla.cli.output.printers import HUB_CLUSTER, ClusterTable, Column, Row
from flotilla.client.discovery import ResourceInfo

DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)
CLUSTERS = ResourceInfo("cluster.karmada.io", "v1alpha1", "Cluster", "clusters", namespaced=False)
COLUMNS = (Column("Name", 0, "name"), Column("Age", 0))


def settings(*types: str, **options: Any) -> GetSettings:
    return GetSettings(requests=tuple(ResourceRequest(t) for t in types), namespace="default", **options)


def hub(*found: Found) -> Fetched:
    return Fetched(HUB_CLUSTER, True, list(found))


def test_names_carry_their_kind_when_several_resources_answered_even_empty_ones() -> None:
    """Like `kubectl get all`: an empty second resource still makes the first print `kind.group/name`."""
    answered = hub(
        Found(DEPLOYMENTS, table=ClusterTable(HUB_CLUSTER, COLUMNS, (Row(("web", "1m"), {}),))),
        Found(CLUSTERS, table=ClusterTable(HUB_CLUSTER, COLUMNS, ())),
    )
    assert (
        human_output([answered], settings("all")) == "NAME                  AGE\ndeployment.apps/web   1m\n"
    )


def test_nothing_found_says_where_it_looked() -> None:
    """Namespaced types name the namespace; cluster-scoped ones or -A do not."""
    empty = ClusterTable(HUB_CLUSTER, COLUMNS, ())
    deployments = [hub(Found(DEPLOYMENTS, table=empty))]
    clusters = [hub(Found(CLUSTERS, table=empty))]
    assert (
        no_resources_message(deployments, settings("deploy"), "web") == "No resources found in web namespace."
    )
    assert (
        no_resources_message(deployments, settings("deploy", all_namespaces=True), "web")
        == "No resources found"
    )
    assert no_resources_message(clusters, settings("clusters"), "web") == "No resources found"


def test_a_named_object_that_was_not_found_prints_nothing_on_stdout() -> None:
    """One name of one type that is missing leaves stdout empty (the error goes to stderr)."""
    missing = GetSettings(
        requests=(ResourceRequest("deploy", ("nope",)),), namespace="default", output="json"
    )
    assert object_output([hub(Found(DEPLOYMENTS))], missing, targets=1) == ""


def test_several_names_or_clusters_print_a_list_even_of_one_object() -> None:
    """A List is printed unless exactly one name of one type was asked of one cluster."""
    found = hub(Found(DEPLOYMENTS, objects=[{"metadata": {"name": "web"}}]))
    across = GetSettings(
        requests=(ResourceRequest("deploy", ("web",)),),
        namespace="default",
        output="json",
        scope=OperationScope.ALL,
    )
    assert '"kind": "List"' in object_output([found], across, targets=2)
    assert '"kind": "List"' in object_output([found], settings("deploy", output="json"), targets=1)


def test_cluster_names_split_on_commas_and_repeats_without_duplicates() -> None:
    """`-C a,b -C c,a` reads as a, b, c."""
    assert split_cluster_names(["a,b", " c ,a", ","]) == ["a", "b", "c"]
