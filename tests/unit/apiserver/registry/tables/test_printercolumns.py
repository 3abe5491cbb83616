from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.api.fielderrors import ErrorType
from flotilla.apiserver.registry.tables.printercolumns import (
    custom_resource_convertor,
    printer_column_errors,
    typed_cell,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)

CERTIFICATE: dict[str, Any] = {
    "apiVersion": "cert-manager.io/v1",
    "kind": "Certificate",
    "metadata": {"name": "shop-tls", "namespace": "default", "creationTimestamp": "2025-03-01T11:00:00Z"},
    "spec": {"secretName": "shop-tls", "dnsNames": ["shop.example", "www.shop.example"], "duration": "2160h"},
    "status": {
        "conditions": [
            {"type": "Issuing", "status": "False"},
            {"type": "Ready", "status": "True", "message": "Up to date"},
        ],
        "notAfter": "2025-05-30T11:00:00Z",
        "revision": 3,
    },
}

COLUMNS: list[dict[str, Any]] = [
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "Secret", "type": "string", "jsonPath": ".spec.secretName"},
    {"name": "Issuer", "type": "string", "jsonPath": ".spec.issuerRef.name", "priority": 1},
    {
        "name": "Status",
        "type": "string",
        "jsonPath": '.status.conditions[?(@.type=="Ready")].message',
        "priority": 1,
    },
    {
        "name": "Age",
        "type": "date",
        "jsonPath": ".metadata.creationTimestamp",
        "description": "Creation time",
    },
]


def test_columns_start_with_name_and_carry_the_crd_definitions() -> None:
    """A leading Name column, then each printer column with its type, priority and description."""
    convertor = custom_resource_convertor(COLUMNS)
    assert [column.to_json() for column in convertor.columns[:2]] == [
        {
            "name": "Name",
            "type": "string",
            "format": "name",
            "description": convertor.columns[0].description,
            "priority": 0,
        },
        {
            "name": "Ready",
            "type": "string",
            "format": "",
            "description": "Custom resource definition column (in JSONPath format): "
            + COLUMNS[0]["jsonPath"],
            "priority": 0,
        },
    ]
    assert [(column.name, column.priority) for column in convertor.columns] == [
        ("Name", 0),
        ("Ready", 0),
        ("Secret", 0),
        ("Issuer", 1),
        ("Status", 1),
        ("Age", 0),
    ]
    assert convertor.columns[-1].description == "Creation time"


def test_row_renders_matches_missing_paths_and_dates() -> None:
    """Matched values fill cells, a missing path gives None and a date column becomes an age."""
    assert custom_resource_convertor(COLUMNS).cells(CERTIFICATE, NOW) == [
        "shop-tls",
        "True",
        "shop-tls",
        None,
        "Up to date",
        "60m",
    ]


def test_without_printer_columns_the_table_is_name_and_age() -> None:
    """A CRD version without printer columns is served with Name and an Age date column."""
    convertor = custom_resource_convertor([])
    assert [(column.name, column.type) for column in convertor.columns] == [
        ("Name", "string"),
        ("Age", "date"),
    ]
    assert convertor.cells(CERTIFICATE, NOW) == ["shop-tls", "60m"]
    assert convertor.cells({"metadata": {"name": "new"}}, NOW) == ["new", None]


def test_only_the_first_match_is_used_and_lists_print_as_json() -> None:
    """A path selecting several values shows only the first; a list value prints as compact JSON."""
    convertor = custom_resource_convertor(
        [
            {"name": "Types", "type": "string", "jsonPath": ".status.conditions[*].type"},
            {"name": "DNS", "type": "string", "jsonPath": ".spec.dnsNames"},
            {"name": "Revision", "type": "string", "jsonPath": ".status.revision"},
        ]
    )
    assert convertor.cells(CERTIFICATE, NOW)[1:] == ["Issuing", '["shop.example","www.shop.example"]', "3"]


@pytest.mark.parametrize(
    ("column_type", "value", "expected"),
    [
        ("integer", 42, 42),
        ("integer", 3.9, 3),
        ("integer", True, None),
        ("integer", "42", None),
        ("number", 42, 42.0),
        ("number", 3.14, 3.14),
        ("number", "3", None),
        ("boolean", True, True),
        ("boolean", "true", None),
        ("string", "x", "x"),
        ("string", 7, "7"),
        ("string", None, "<no value>"),
        ("string", {"a": 1}, '{"a":1}'),
        ("date", "2025-03-01T11:30:00Z", "30m"),
        ("date", "2025-03-01T13:00:00Z", "<invalid>"),
        ("date", "last week", "<invalid>"),
        ("date", "", "<unknown>"),
        ("date", 5, None),
        ("unknown", "x", None),
    ],
)
def test_typed_cell_keeps_only_values_of_the_declared_type(
    column_type: str, value: Any, expected: Any
) -> None:
    """Typed columns keep values of their JSON type and are empty otherwise; strings print any value."""
    assert typed_cell(column_type, value, NOW) == expected


def test_unparseable_path_drops_that_column_and_the_following_ones() -> None:
    """As in kube-apiserver, a column whose path does not parse ends the column list."""
    convertor = custom_resource_convertor(
        [
            {"name": "Secret", "type": "string", "jsonPath": ".spec.secretName"},
            {"name": "Broken", "type": "string", "jsonPath": ".spec.dnsNames[x]"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ]
    )
    assert [column.name for column in convertor.columns] == ["Name", "Secret"]
    assert convertor.cells(CERTIFICATE, NOW) == ["shop-tls", "shop-tls"]


def test_valid_column_has_no_errors() -> None:
    """A well-formed column definition passes validation."""
    assert printer_column_errors(COLUMNS[0], "spec.versions[0].additionalPrinterColumns[0]") == []


def test_column_errors_match_kubernetes_wording() -> None:
    """Missing name and path, an unknown type and format, and a path not starting with `.` are reported."""
    base = "spec.versions[0].additionalPrinterColumns[1]"
    errors = printer_column_errors({"type": "text", "format": "uuid"}, base)
    assert [str(error) for error in errors] == [
        f"{base}.name: Required value",
        f'{base}.type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        f'{base}.format: Invalid value: "uuid": must be one of '
        "byte,date,date-time,double,float,int32,int64,password",
        f"{base}.JSONPath: Required value",
    ]
    relative = printer_column_errors({"name": "A", "type": "string", "jsonPath": "spec.a"}, base)
    assert [(error.type, str(error)) for error in relative] == [
        (
            ErrorType.INVALID,
            f'{base}.JSONPath: Invalid value: "spec.a": must be a simple json path starting with .',
        ),
    ]
    missing_type = printer_column_errors({"name": "A", "jsonPath": ".a"}, base)
    assert (
        str(missing_type[0])
        == f"{base}.type: Required value: must be one of boolean,date,integer,number,string"
    )


def test_syntax_check_is_opt_in() -> None:
    """Kubernetes accepts unparseable paths; `check_syntax` reports them with the parser's message."""
    column = {"name": "A", "type": "string", "jsonPath": ".a[x]"}
    assert printer_column_errors(column, "c") == []
    assert [str(error) for error in printer_column_errors(column, "c", check_syntax=True)] == [
        'c.JSONPath: Invalid value: ".a[x]": invalid array index x',
    ]
