"""Whole objects for `-o name|yaml|json`: names, Lists, cluster marks and kubectl's encodings."""

from __future__ import annotations

import json

import yaml

from flotilla.api.karmada.constants import CACHED_FROM_CLUSTER_ANNOTATION
from flotilla.cli.output.printers import (
    as_list,
    dump_json,
    dump_yaml,
    from_cluster,
    object_name,
    with_type,
    without_managed_fields,
)
from flotilla.client.discovery import ResourceInfo

CONFIGMAPS = ResourceInfo("", "v1", "ConfigMap", "configmaps", namespaced=True)
CLUSTERS = ResourceInfo("cluster.karmada.io", "v1alpha1", "Cluster", "clusters", namespaced=False)


def test_object_names_are_lower_case_kind_dot_group_slash_name() -> None:
    """Core kinds have no group suffix; others carry their group."""
    assert object_name(CONFIGMAPS, {"metadata": {"name": "settings"}}) == "configmap/settings"
    assert object_name(CLUSTERS, {"metadata": {"name": "member1"}}) == "cluster.cluster.karmada.io/member1"


def test_member_objects_are_marked_with_their_cluster_without_touching_the_original() -> None:
    """The cached-from-cluster annotation is added to a copy; existing annotations stay."""
    original = {"metadata": {"name": "a", "annotations": {"keep": "me"}}}
    marked = from_cluster(original, "member2")
    assert marked["metadata"]["annotations"] == {"keep": "me", CACHED_FROM_CLUSTER_ANNOTATION: "member2"}
    assert original["metadata"]["annotations"] == {"keep": "me"}


def test_list_items_get_their_type_and_lose_managed_fields() -> None:
    """List items lack apiVersion and kind on the wire; kubectl fills them and hides managedFields."""
    item = with_type(CONFIGMAPS, {"metadata": {"name": "a", "managedFields": [{"manager": "x"}]}})
    assert (item["apiVersion"], item["kind"]) == ("v1", "ConfigMap")
    assert without_managed_fields(item)["metadata"] == {"name": "a"}
    assert "managedFields" in item["metadata"]


def test_yaml_quotes_like_kubectl_with_double_quotes_and_literal_blocks() -> None:
    """Strings that need quoting get double quotes; multi-line strings are literal blocks; keys sorted."""
    text = dump_yaml(
        as_list([{"metadata": {"resourceVersion": "12", "name": "a"}, "data": {"script": "a\nb\n"}}])
    )
    assert 'resourceVersion: "12"' in text and 'metadata:\n  resourceVersion: ""\n' in text
    assert "script: |\n" in text
    assert text.index("data:") < text.index("metadata:")
    assert yaml.safe_load(text)["items"][0]["data"]["script"] == "a\nb\n"


def test_json_is_indented_by_four_sorted_and_escapes_html_characters() -> None:
    """kubectl's JSON: 4-space indent, sorted keys, `<>&` escaped as Go's encoder does, trailing newline."""
    text = dump_json({"b": "<a&b>", "a": 1})
    assert text == '{\n    "a": 1,\n    "b": "\\u003ca\\u0026b\\u003e"\n}\n'
    assert json.loads(text) == {"a": 1, "b": "<a&b>"}
