"""The fields an object sets, comparing objects, removing fields: kube's ToFieldSet, Compare, RemoveItems."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.apply import FieldSet, InvalidObjectError, compare, fields_of, raw_fields_of
from flotilla.apiserver.registry.apply.fieldpath import describe_path
from flotilla.apiserver.registry.apply.fieldsets import remove_fields, with_named_fields
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter
from tests.unit.apiserver.registry.apply.objects import (
    deployment_schema,
    kind_schema,
    partial_deployment,
    web_deployment,
)

CONTAINER = 'k:{"name":"nginx"}'
TEMPLATE_SPEC = ("f:spec", "f:template", "f:spec")


def described(fields: FieldSet) -> list[str]:
    return [describe_path(path) for path in fields]


def test_a_deployment_owns_its_leaves_items_and_map_keys_but_not_its_structs() -> None:
    """`kubectl apply --server-side` of a Deployment owns exactly what kube records for it."""
    fields = fields_of(web_deployment(), deployment_schema())
    assert fields.to_fields_v1() == {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {
                    "f:containers": {
                        CONTAINER: {
                            ".": {},
                            "f:image": {},
                            "f:name": {},
                            "f:ports": {
                                'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}
                            },
                        }
                    }
                },
            },
        },
    }


def test_apiversion_kind_and_system_metadata_are_never_owned() -> None:
    """Identity and server-maintained metadata are stripped; labels, finalizers and annotations stay."""
    obj = partial_deployment(
        metadata={
            "uid": "u",
            "resourceVersion": "7",
            "generation": 2,
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "generateName": "web-",
            "annotations": {"team": "a"},
            "finalizers": ["example.com/a"],
        }
    )
    assert described(fields_of(obj, deployment_schema())) == [
        ".metadata.generateName",
        ".metadata.annotations.team",
        '.metadata.finalizers[="example.com/a"]',
    ]
    assert ("f:apiVersion",) in raw_fields_of(obj, deployment_schema())


def test_status_is_owned_only_through_the_status_subresource() -> None:
    """The main resource resets status; the status subresource tracks only status and metadata."""
    obj = partial_deployment({"replicas": 2}, metadata={"labels": {"a": "b"}}) | {"status": {"replicas": 2}}
    assert described(fields_of(obj, deployment_schema())) == [".metadata.labels.a", ".spec.replicas"]
    assert described(fields_of(obj, deployment_schema(), subresource="status")) == [
        ".metadata.labels.a",
        ".status.replicas",
    ]


def test_atomic_lists_and_structs_are_single_leaves() -> None:
    """Tolerations and args (atomic lists) and the selector (atomic struct) are owned whole."""
    obj = web_deployment()
    obj["spec"]["template"]["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    obj["spec"]["template"]["spec"]["containers"][0]["args"] = ["a", "b"]
    fields = fields_of(obj, deployment_schema())
    assert (*TEMPLATE_SPEC, "f:tolerations") in fields
    assert (*TEMPLATE_SPEC, "f:containers", CONTAINER, "f:args") in fields
    assert not fields.child("f:spec").child("f:selector")
    assert not fields.child("f:spec").child("f:template").child("f:spec").child("f:tolerations")


def test_set_lists_own_their_items_by_value() -> None:
    """Finalizers are a set: one `v:` element per item."""
    obj = partial_deployment(metadata={"finalizers": ["b", "a"]})
    assert fields_of(obj, deployment_schema()).to_fields_v1() == {
        "f:metadata": {"f:finalizers": {'v:"a"': {}, 'v:"b"': {}}}
    }


def test_keyed_list_items_use_schema_defaults_for_missing_keys() -> None:
    """A Service port without a protocol is named with kube's default protocol, TCP."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 80}]},
    }
    fields = fields_of(service, kind_schema("", "v1", "Service"))
    assert ("f:spec", "f:ports", 'k:{"port":80,"protocol":"TCP"}', "f:port") in fields


def test_a_keyed_item_without_its_key_cannot_be_described() -> None:
    """A container without a name has no path; the error says where and why, like kube's."""
    obj = web_deployment()
    obj["spec"]["template"]["spec"]["containers"].append({"image": "busybox"})
    with pytest.raises(InvalidObjectError, match=r'\.spec\.template\.spec\.containers: element 1: .*"name"'):
        fields_of(obj, deployment_schema())


def test_without_a_schema_maps_are_granular_and_lists_atomic() -> None:
    """Unknown kinds deduce shapes from values: every key is a member, lists are leaves."""
    obj = {
        "apiVersion": "x/v1",
        "kind": "Thing",
        "metadata": {"name": "t"},
        "spec": {"a": {"b": 1}, "l": [1, 2]},
    }
    assert fields_of(obj, None).to_fields_v1() == {
        "f:spec": {".": {}, "f:a": {".": {}, "f:b": {}}, "f:l": {}}
    }


def test_custom_resources_follow_their_crd_schema_extensions() -> None:
    """A CRD's list-map and map-type extensions shape its field set; metadata is still ObjectMeta."""
    schema = SchemaConverter().convert(
        {
            "type": "object",
            "properties": {
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "properties": {
                        "clusters": {
                            "type": "array",
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "items": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}, "weight": {"type": "integer"}},
                            },
                        },
                        "selector": {
                            "type": "object",
                            "x-kubernetes-map-type": "atomic",
                            "additionalProperties": {"type": "string"},
                        },
                    },
                },
            },
        }
    )
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "p", "labels": {"team": "a"}},
        "spec": {"clusters": [{"name": "member1", "weight": 2}], "selector": {"app": "web"}},
    }
    assert described(fields_of(policy, schema)) == [
        ".metadata.labels.team",
        ".spec.selector",
        '.spec.clusters[name="member1"]',
        '.spec.clusters[name="member1"].name',
        '.spec.clusters[name="member1"].weight',
    ]


def test_compare_reports_added_removed_and_modified_leaves() -> None:
    """Changing the image modifies it, a new container is added whole, a dropped label is removed."""
    old = web_deployment()
    new = web_deployment()
    new["metadata"]["labels"] = {}
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    new["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "envoy"})
    comparison = compare(old, new, deployment_schema())
    containers = (*TEMPLATE_SPEC, "f:containers")
    assert described(comparison.modified) == ['.spec.template.spec.containers[name="nginx"].image']
    assert (*containers, 'k:{"name":"sidecar"}') in comparison.added
    assert (*containers, 'k:{"name":"sidecar"}', "f:image") in comparison.added
    assert described(comparison.removed) == [".metadata.labels.app"]


def test_compare_owns_a_struct_that_appears_as_a_whole() -> None:
    """A struct present on one side only is itself added, so its updater owns it with a `.`."""
    new = web_deployment(strategy={"rollingUpdate": {"maxSurge": 1}})
    comparison = compare(web_deployment(), new, deployment_schema())
    assert ("f:spec", "f:strategy") in comparison.added
    assert ("f:spec", "f:strategy", "f:rollingUpdate", "f:maxSurge") in comparison.added


def test_equal_objects_compare_equal_even_with_reordered_keyed_lists() -> None:
    """Items are matched by key, not position."""
    old = web_deployment()
    old["spec"]["template"]["spec"]["containers"].append({"name": "b", "image": "x"})
    new = web_deployment()
    new["spec"]["template"]["spec"]["containers"].insert(0, {"name": "b", "image": "x"})
    comparison = compare(old, new, deployment_schema())
    assert not comparison.added
    assert not comparison.removed
    assert not comparison.modified


def test_remove_fields_drops_named_subtrees_and_containers_they_empty() -> None:
    """Removing the only label drops `labels`; removing a container removes the item."""
    obj = web_deployment()
    obj["spec"]["template"]["spec"]["containers"].append({"name": "b", "image": "x"})
    removed = remove_fields(
        obj,
        FieldSet(
            [
                ("f:metadata", "f:labels", "f:app"),
                (*TEMPLATE_SPEC, "f:containers", 'k:{"name":"b"}'),
            ]
        ),
        deployment_schema(),
    )
    assert "labels" not in removed["metadata"]
    assert [c["name"] for c in removed["spec"]["template"]["spec"]["containers"]] == ["nginx"]
    assert obj["metadata"]["labels"] == {"app": "web"}, "the input is left alone"


def test_named_struct_fields_become_members_where_they_have_members_below() -> None:
    """`f:spec` and `f:template` are declared fields; the container item is already a member."""
    fields = FieldSet([(*TEMPLATE_SPEC, "f:containers", CONTAINER, "f:image")])
    ensured = with_named_fields(fields, deployment_schema())
    assert ("f:spec",) in ensured
    assert ("f:spec", "f:template", "f:spec", "f:containers") in ensured
    assert (*TEMPLATE_SPEC, "f:containers", CONTAINER) not in ensured


def test_nulls_empty_containers_and_wrong_types_do_not_break_the_walk() -> None:
    """Nulls, empty containers and wrong types do not break the walk: they are leaves or nothing."""
    obj: dict[str, Any] = partial_deployment(
        {"replicas": None, "strategy": {}, "template": {"spec": {"containers": []}}}
    )
    obj["spec"]["selector"] = "not-an-object"
    assert described(fields_of(obj, deployment_schema())) == [".spec.replicas", ".spec.selector"]


def test_an_unchanged_subtree_with_an_unnamed_item_still_cannot_be_compared() -> None:
    """Skipping equal parts of two objects must not skip the check that their items have names."""
    old = web_deployment()
    old["spec"]["template"]["spec"]["containers"].append({"image": "busybox"})
    new = web_deployment(replicas=5)
    new["spec"]["template"]["spec"]["containers"].append({"image": "busybox"})
    with pytest.raises(InvalidObjectError, match="element 1"):
        compare(old, new, deployment_schema())


def test_a_subtree_both_objects_share_still_needs_names_for_its_items() -> None:
    """The same value on both sides changes nothing, yet an unnamed item in it cannot be compared."""
    old = web_deployment()
    old["spec"]["template"]["spec"]["containers"].append({"image": "busybox"})
    new = {**old, "metadata": {**old["metadata"], "labels": {"app": "other"}}}
    assert new["spec"] is old["spec"]
    with pytest.raises(InvalidObjectError, match="element 1"):
        compare(old, new, deployment_schema())


def test_compare_tells_true_from_one_inside_equal_looking_values() -> None:
    """A label map Python finds equal (`True == 1`) is modified for JSON; `1` and `1.0` are not."""
    old, changed, same = web_deployment(), web_deployment(), web_deployment()
    old["metadata"]["labels"] = {"x": 1}
    changed["metadata"]["labels"] = {"x": True}
    same["metadata"]["labels"] = {"x": 1.0}
    assert described(compare(old, changed, deployment_schema()).modified) == [".metadata.labels.x"]
    assert not compare(old, same, deployment_schema()).modified


def test_items_sharing_a_key_contribute_all_their_fields() -> None:
    """A live object may hold two ports with one key; its field set has the fields of both."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 81, "protocol": "TCP"}, {"port": 81, "name": "web"}]},
    }
    port = ("f:spec", "f:ports", 'k:{"port":81,"protocol":"TCP"}')
    fields = raw_fields_of(service, kind_schema("", "v1", "Service"))
    assert (*port, "f:protocol") in fields
    assert (*port, "f:name") in fields
