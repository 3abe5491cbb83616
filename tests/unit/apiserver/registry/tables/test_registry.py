import json
from datetime import UTC, datetime

import pytest

from flotilla.api.builtin import BUILTIN_RESOURCES
from flotilla.apiserver.registry.tables import builtin_convertor, default_convertor
from flotilla.apiserver.registry.tables.registry import PRINTERS

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
KINDS = sorted({(resource.group, resource.kind) for resource in BUILTIN_RESOURCES})


@pytest.mark.parametrize(("group", "kind"), KINDS)
def test_every_builtin_kind_renders_a_full_row_of_json_cells(group: str, kind: str) -> None:
    """Each built-in kind renders one JSON scalar per column, even for a bare object."""
    convertor = builtin_convertor(group, kind)
    assert convertor is not None
    bare = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "x"}}
    row = convertor.cells(bare, NOW)
    assert len(row) == len(convertor.columns)
    assert all(cell is None or isinstance(cell, (str, int, float, bool)) for cell in row)
    json.dumps([column.to_json() for column in convertor.columns])


@pytest.mark.parametrize(("group", "kind"), KINDS)
def test_name_column_is_the_first_except_for_events(group: str, kind: str) -> None:
    """Every table starts with the `name`-formatted Name column, except events, which end with it."""
    convertor = builtin_convertor(group, kind)
    assert convertor is not None
    named = [column for column in convertor.columns if column.format == "name"]
    assert [column.name for column in named] == ["Name"]
    position = -1 if kind == "Event" else 0
    assert convertor.columns[position] is named[0]


@pytest.mark.parametrize(
    ("group", "kind"),
    [
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("", "LimitRange"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ],
)
def test_builtin_kinds_without_a_kubernetes_printer_use_the_default_table(group: str, kind: str) -> None:
    """Kinds Kubernetes prints with the generic table get `Name`, `Created At`."""
    assert (group, kind) not in PRINTERS
    assert builtin_convertor(group, kind) is default_convertor()


def test_default_table_prints_the_creation_timestamp() -> None:
    """The default table's second cell is the creation timestamp itself, typed `date`."""
    convertor = default_convertor()
    assert [(column.name, column.type) for column in convertor.columns] == [
        ("Name", "string"),
        ("Created At", "date"),
    ]
    assert convertor.cells(
        {"metadata": {"name": "admin", "creationTimestamp": "2025-02-01T08:00:00Z"}}, NOW
    ) == [
        "admin",
        "2025-02-01T08:00:00Z",
    ]


def test_unknown_kinds_have_no_builtin_convertor() -> None:
    """A kind that is not built in (a custom resource) gets None, not the default table."""
    assert builtin_convertor("stable.example.com", "CronTab") is None
    assert builtin_convertor("apps", "Pod") is None


def test_both_event_groups_share_the_event_printer() -> None:
    """core and events.k8s.io events are printed by the same convertor."""
    assert builtin_convertor("", "Event") is builtin_convertor("events.k8s.io", "Event")
