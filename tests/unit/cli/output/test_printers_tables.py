"""Server Tables laid out as kubectl prints them, and across clusters as karmadactl does."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.cli.output.printers import (
    HUB_CLUSTER,
    ClusterTable,
    Column,
    Row,
    TableOptions,
    cell_text,
    parse_table,
    render_tables,
    table_lines,
)
from flotilla.client.discovery import ResourceInfo

PODS = ResourceInfo("", "v1", "Pod", "pods", namespaced=True)
DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)
CLUSTERS = ResourceInfo("cluster.karmada.io", "v1alpha1", "Cluster", "clusters", namespaced=False)
COLUMNS = (Column("Name", 0, "name"), Column("Ready", 0), Column("Node", 1))


def row(name: str, ready: Any, node: Any, namespace: str = "default", **labels: str) -> Row:
    return Row((name, ready, node), {"name": name, "namespace": namespace, "labels": labels})


def table(cluster: str, *rows: Row) -> ClusterTable:
    return ClusterTable(cluster, COLUMNS, rows)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        ("plain", "plain"),
        ("first\nsecond", "first..."),
        ("a\rb", "a..."),
        ("a\tb", "a b"),
        (True, "true"),
        (3, "3"),
        (0.5, "0.5"),
        (1234567.5, "1.2345675e+06"),
        (0.00001, "1e-05"),
        (["a", 1], "[a 1]"),
        ({"b": 1, "a": "x"}, "map[a:x b:1]"),
    ],
)
def test_cells_print_as_kubectl_prints_them(value: Any, text: str) -> None:
    """nil is empty, text stops at a line break with `...`, other values read as Go's `%v`."""
    assert cell_text(value) == text


def test_parse_table_reads_columns_cells_and_row_metadata() -> None:
    """A Table answer keeps column priorities and formats, cells, and each row's object metadata."""
    answer = {
        "columnDefinitions": [
            {"name": "Name", "format": "name", "priority": 0},
            {"name": "Age", "priority": 1},
        ],
        "rows": [{"cells": ["web", "5m"], "object": {"metadata": {"name": "web", "labels": {"a": "b"}}}}],
    }
    parsed = parse_table("member1", answer)
    assert parsed.columns == (Column("Name", 0, "name"), Column("Age", 1, ""))
    assert parsed.rows[0].cells == ("web", "5m") and parsed.rows[0].metadata["labels"] == {"a": "b"}


def test_priority_columns_only_show_in_wide_output() -> None:
    """Columns of priority 1 are hidden unless `-o wide`."""
    tables = [table(HUB_CLUSTER, row("web-0", "1/1", "node-a"))]
    assert table_lines(PODS, tables, TableOptions()) == ["NAME\tREADY", "web-0\t1/1"]
    assert table_lines(PODS, tables, TableOptions(wide=True)) == ["NAME\tREADY\tNODE", "web-0\t1/1\tnode-a"]


def test_all_namespaces_prepends_namespace_only_for_namespaced_resources() -> None:
    """NAMESPACE comes first with -A, taken from the row's object; cluster-scoped tables lack it."""
    tables = [table(HUB_CLUSTER, row("web-0", "1/1", None, namespace="shop"))]
    assert table_lines(PODS, tables, TableOptions(all_namespaces=True))[1] == "shop\tweb-0\t1/1"
    assert table_lines(CLUSTERS, tables, TableOptions(all_namespaces=True))[0] == "NAME\tREADY"


def test_several_types_prefix_names_with_kind_and_group() -> None:
    """With kind prefixes a Deployment reads `deployment.apps/web`, a Pod `pod/web-0`."""
    assert table_lines(
        DEPLOYMENTS, [table(HUB_CLUSTER, row("web", "1/1", None))], TableOptions(with_kind=True)
    )[1].startswith("deployment.apps/web\t")
    assert table_lines(PODS, [table(HUB_CLUSTER, row("web-0", "1/1", None))], TableOptions(with_kind=True))[
        1
    ].startswith("pod/web-0\t")


def test_across_clusters_adds_cluster_after_name_and_adoption_last() -> None:
    """Hub rows read Karmada / -, managed member rows Y, unmanaged member rows N."""
    tables = [
        table(HUB_CLUSTER, row("web", "2/2", None)),
        table("member1", row("web", "1/1", None, **{"karmada.io/managed": "true"})),
        table("member2", row("web", "1/1", None)),
    ]
    lines = table_lines(DEPLOYMENTS, tables, TableOptions(across_clusters=True))
    assert lines == [
        "NAME\tCLUSTER\tREADY\tADOPTION",
        "web\tKarmada\t2/2\t-",
        "web\tmember1\t1/1\tY",
        "web\tmember2\t1/1\tN",
    ]


def test_pods_across_clusters_show_adoption_only_in_wide_output() -> None:
    """karmadactl hides ADOPTION for pods unless -o wide."""
    tables = [table("member1", row("web-0", "1/1", "node-a"))]
    assert table_lines(PODS, tables, TableOptions(across_clusters=True))[0] == "NAME\tCLUSTER\tREADY"
    assert table_lines(PODS, tables, TableOptions(across_clusters=True, wide=True))[0].endswith("\tADOPTION")


def test_short_rows_are_padded_and_long_rows_cut_to_the_columns() -> None:
    """A member whose table has fewer or more cells still lines up under the first table's columns."""
    tables = [ClusterTable("member1", COLUMNS, (Row(("web",), {}), Row(("db", "1/1", "n", "extra"), {})))]
    assert table_lines(PODS, tables, TableOptions(wide=True))[1:] == ["web\t\t", "db\t1/1\tn"]


def test_no_headers_and_empty_tables() -> None:
    """--no-headers drops the header line; a resource without rows prints nothing at all."""
    tables = [table(HUB_CLUSTER, row("web-0", "1/1", None))]
    assert table_lines(PODS, tables, TableOptions(no_headers=True)) == ["web-0\t1/1"]
    assert table_lines(PODS, [table(HUB_CLUSTER)], TableOptions()) == []


def test_resources_print_as_separately_aligned_blocks_with_a_blank_line_between() -> None:
    """Each resource is aligned on its own; empty resources leave no blank block behind."""
    sections = [
        (DEPLOYMENTS, [table(HUB_CLUSTER, row("a-very-long-name", "1/1", None))]),
        (PODS, [table(HUB_CLUSTER)]),
        (CLUSTERS, [table(HUB_CLUSTER, row("m1", "True", None))]),
    ]
    text = render_tables(sections, TableOptions())
    assert text == "NAME               READY\na-very-long-name   1/1\n\nNAME   READY\nm1     True\n"
