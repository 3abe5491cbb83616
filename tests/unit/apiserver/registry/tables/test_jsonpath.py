from typing import Any

import pytest

from flotilla.apiserver.registry.tables.jsonpath import JSONPathError, parse_printer_jsonpath

RESOURCE: dict[str, Any] = {
    "metadata": {"name": "db", "labels": {"app": "shop", "app.kubernetes.io/name": "db"}},
    "spec": {
        "replicas": 3,
        "servers": [{"hosts": ["a.example"]}, {"hosts": ["b.example", "c.example"]}],
    },
    "status": {
        "conditions": [
            {"type": "Synced", "status": "False"},
            {"type": "Ready", "status": "True", "generation": 2},
        ],
    },
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".spec.replicas", [3]),
        (".status.conditions[0].type", ["Synced"]),
        ('.status.conditions[?(@.type=="Ready")].status', ["True"]),
        (".status.conditions[?(@.type=='Ready')].status", ["True"]),
        ('.status.conditions[?(@.type!="Ready")].type', ["Synced"]),
        (".status.conditions[?(@.generation>1)].type", ["Ready"]),
        (".status.conditions[?(@.generation)].type", ["Ready"]),
        (".metadata.labels.app", ["shop"]),
        ("['metadata']['name']", ["db"]),
        (".metadata.labels.app\\.kubernetes\\.io/name", ["db"]),
        (".spec.servers[*].hosts", [["a.example"], ["b.example", "c.example"]]),
        (".spec.servers[*].hosts[*]", ["a.example", "b.example", "c.example"]),
        (".status.conditions[-1].type", ["Ready"]),
        (".status.conditions[0:2].type", ["Synced", "Ready"]),
        (".status.conditions[0,1].status", ["False", "True"]),
        (".spec.*", [3, [{"hosts": ["a.example"]}, {"hosts": ["b.example", "c.example"]}]]),
        ("..hosts", [["a.example"], ["b.example", "c.example"]]),
    ],
)
def test_find_selects_what_client_go_selects(path: str, expected: list[Any]) -> None:
    """Fields, indices, slices, unions, wildcards, recursion and filters select what client-go selects."""
    assert parse_printer_jsonpath(path).find(RESOURCE) == expected


def test_bracketed_key_with_dots_splits_at_the_dots_like_kubernetes() -> None:
    """`['a.b']` is read as `.a.b` by client-go, so a dotted label key in brackets finds nothing."""
    assert parse_printer_jsonpath(".metadata.labels['app.kubernetes.io/name']").find(RESOURCE) == []


def test_missing_keys_select_nothing_rather_than_failing() -> None:
    """A path through absent fields gives no values, which renders an empty cell."""
    assert parse_printer_jsonpath(".status.observedGeneration").find(RESOURCE) == []
    assert parse_printer_jsonpath(".spec.template.spec.nodeName").find(RESOURCE) == []


@pytest.mark.parametrize(
    "path",
    [
        ".status.conditions[5].type",
        ".spec.replicas[0]",
        ".metadata[0]",
        '.status.conditions[?(@.generation=="2")].type',
        ".spec.servers[?(@.hosts)].hosts[?(@==1)]",
    ],
)
def test_paths_that_do_not_apply_fail_as_a_whole(path: str) -> None:
    """Out-of-range indices, indexing an object and comparing mismatched types make the path fail (None)."""
    assert parse_printer_jsonpath(path).find(RESOURCE) is None


def test_filter_skips_items_without_the_compared_field() -> None:
    """Items lacking the filtered field are skipped, not an error."""
    items = {"list": [{"name": "a"}, {"kind": "x", "name": "b"}]}
    assert parse_printer_jsonpath('.list[?(@.kind=="x")].name').find(items) == ["b"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (".spec[", "unterminated array"),
        (".spec[x]", "invalid array index x"),
        ('.spec["x"]', 'invalid array index "x"'),
        ('.status.conditions[?(@.type=="Ready")', "unclosed array expect ]"),
        (".spec....name", "invalid multiple recursive descent"),
        ("'abc", "unterminated quoted string"),
        (".spec}{.status", "only one JSONPath action"),
        (".spec[0]#", "unrecognized character in action"),
    ],
)
def test_parse_rejects_malformed_paths_with_client_go_messages(path: str, message: str) -> None:
    """Syntax errors are raised at parse time with the wording client-go uses."""
    with pytest.raises(JSONPathError, match=message):
        parse_printer_jsonpath(path)
