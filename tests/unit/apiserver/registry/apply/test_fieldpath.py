"""Field paths, FieldSet algebra and the FieldsV1 form."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.apply.fieldpath import (
    FieldSet,
    FieldsV1Error,
    describe_path,
    key_element,
    value_element,
)

KUBECTL_CREATE_DEPLOYMENT: dict[str, Any] = {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
    "f:spec": {
        "f:progressDeadlineSeconds": {},
        "f:replicas": {},
        "f:revisionHistoryLimit": {},
        "f:selector": {},
        "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
        "f:template": {
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {
                "f:containers": {
                    'k:{"name":"nginx"}': {
                        ".": {},
                        "f:image": {},
                        "f:imagePullPolicy": {},
                        "f:name": {},
                        "f:resources": {},
                        "f:terminationMessagePath": {},
                        "f:terminationMessagePolicy": {},
                    }
                },
                "f:dnsPolicy": {},
                "f:restartPolicy": {},
                "f:schedulerName": {},
                "f:securityContext": {},
                "f:terminationGracePeriodSeconds": {},
            },
        },
    },
}
"""The `kubectl-create` entry of `kubectl create deployment nginx --image=nginx`."""

CONTROLLER_STATUS: dict[str, Any] = {
    "f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/revision": {}}},
    "f:status": {
        "f:availableReplicas": {},
        "f:conditions": {
            ".": {},
            'k:{"type":"Available"}': {
                ".": {},
                "f:lastTransitionTime": {},
                "f:lastUpdateTime": {},
                "f:message": {},
                "f:reason": {},
                "f:status": {},
                "f:type": {},
            },
        },
        "f:observedGeneration": {},
        "f:readyReplicas": {},
    },
}
"""kube-controller-manager's `status` entry on the same Deployment."""

SERVICE_AND_FINALIZERS: dict[str, Any] = {
    "f:metadata": {"f:finalizers": {".": {}, 'v:"example.com/cleanup"': {}}},
    "f:spec": {
        "f:ports": {
            'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}}
        }
    },
}


@pytest.mark.parametrize("document", [KUBECTL_CREATE_DEPLOYMENT, CONTROLLER_STATUS, SERVICE_AND_FINALIZERS])
def test_fields_v1_from_real_objects_round_trips(document: dict[str, Any]) -> None:
    """Parsing a kube-written FieldsV1 trie and writing it back gives the same trie."""
    assert FieldSet.from_fields_v1(document).to_fields_v1() == document


def test_dot_marks_a_node_that_is_itself_a_member() -> None:
    """`f:labels` with `.` is a member; `f:metadata` without it is only a parent."""
    fields = FieldSet.from_fields_v1(KUBECTL_CREATE_DEPLOYMENT)
    assert ("f:metadata", "f:labels") in fields
    assert ("f:metadata", "f:labels", "f:app") in fields
    assert ("f:metadata",) not in fields
    assert ("f:spec", "f:selector") in fields


def test_written_fields_v1_puts_elements_in_kube_order_and_the_dot_last() -> None:
    """Fields come before keys and values, each sorted, and `.` closes a node, as kube writes them."""
    fields = FieldSet(
        [
            ("f:spec", "f:list", 'k:{"name":"b"}'),
            ("f:spec", "f:list", 'k:{"name":"a"}'),
            ("f:spec", "f:list", 'k:{"name":"a"}', "f:name"),
            ("f:spec", "f:list", "f:x"),
            ("f:spec", "f:list"),
        ]
    )
    written = fields.to_fields_v1()["f:spec"]["f:list"]
    assert list(written) == ["f:x", 'k:{"name":"a"}', 'k:{"name":"b"}', "."]
    assert list(written['k:{"name":"a"}']) == ["f:name", "."]


def test_keys_and_values_are_rewritten_in_canonical_form() -> None:
    """Key fields are sorted and spacing dropped, so two spellings of one item are one element."""
    fields = FieldSet.from_fields_v1(
        {'k:{ "protocol": "TCP", "containerPort": 80 }': {}, "v:1.0": {}, "i:+3": {}}
    )
    assert fields.members == {'k:{"containerPort":80,"protocol":"TCP"}', "v:1", "i:3"}


def test_unknown_element_types_are_dropped_as_kube_drops_them() -> None:
    """An element type from a newer version is ignored rather than rejected."""
    assert FieldSet.from_fields_v1({"x:something": {}, "f:a": {}}).to_fields_v1() == {"f:a": {}}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"f": {}}, "2 characters"),
        ({"fx": {}}, "missing colon"),
        ({"k:[1]": {}}, "must be a JSON object"),
        ({"k:{oops": {}}, "invalid JSON"),
        ({"i:one": {}}, "invalid index"),
        ({"f:a": []}, "must be a JSON object"),
        ([], "must be a JSON object"),
    ],
)
def test_malformed_fields_v1_is_rejected_with_a_reason(document: Any, message: str) -> None:
    """Malformed elements and non-object nodes raise `FieldsV1Error` naming the problem."""
    with pytest.raises(FieldsV1Error, match=message):
        FieldSet.from_fields_v1(document)


def test_paths_are_described_as_kube_prints_them() -> None:
    """Fields print as `.name`, keyed items as `[k=v,…]`, set items as `[=v]`, indexes as `[n]`."""
    container = key_element({"name": "nginx"})
    port = key_element({"protocol": "TCP", "containerPort": 80})
    assert (
        describe_path(("f:spec", "f:template", "f:spec", "f:containers", container, "f:image"))
        == '.spec.template.spec.containers[name="nginx"].image'
    )
    assert describe_path(("f:ports", port)) == '.ports[containerPort=80,protocol="TCP"]'
    assert describe_path(("f:finalizers", value_element("a/b"))) == '.finalizers[="a/b"]'
    assert describe_path(("f:args", "i:2")) == ".args[2]"


left = FieldSet([("f:a",), ("f:b", "f:c"), ("f:b", "f:d")])
right = FieldSet([("f:b",), ("f:b", "f:c"), ("f:e",)])


def test_union_intersection_and_difference_follow_structured_merge_diff() -> None:
    """Difference removes only the paths named; a removed parent leaves its children."""
    assert left | right == FieldSet([("f:a",), ("f:b",), ("f:b", "f:c"), ("f:b", "f:d"), ("f:e",)])
    assert left & right == FieldSet([("f:b", "f:c")])
    assert left - right == FieldSet([("f:a",), ("f:b", "f:d")])
    assert FieldSet([("f:b",), ("f:b", "f:c")]) - FieldSet([("f:b",)]) == FieldSet([("f:b", "f:c")])


def test_recursive_difference_removes_everything_below_a_member() -> None:
    """left member of the subtrahend takes its whole subtree with it."""
    assert left.recursive_difference(FieldSet([("f:b",)])) == FieldSet([("f:a",)])


def test_leaves_drop_members_that_have_members_below() -> None:
    """`f:b` is a member with children, so it is not a leaf."""
    assert right.leaves() == FieldSet([("f:b", "f:c"), ("f:e",)])


def test_iteration_lists_a_nodes_members_before_its_childrens() -> None:
    """Members at one level come before any deeper path, each group sorted."""
    fields = FieldSet([("f:spec", "f:template", "f:x"), ("f:spec", "f:replicas"), ("f:apiVersion",)])
    assert [describe_path(path) for path in fields] == [".apiVersion", ".spec.replicas", ".spec.template.x"]
    assert len(fields) == 3


def test_set_operations_do_not_share_nodes_with_their_operands() -> None:
    """Building on a result leaves the operands as they were."""
    union = left | right
    union.insert(("f:b", "f:new"))
    assert ("f:b", "f:new") not in left
    assert ("f:b", "f:new") not in right


def test_the_empty_path_is_never_a_member() -> None:
    """Nobody owns the whole object."""
    fields = FieldSet([()])
    assert not fields
    assert () not in fields


def test_building_on_a_result_leaves_operands_alone_deep_down() -> None:
    """Results share untouched sub-tries with their operands, yet inserting below them copies first."""
    base = FieldSet([("f:spec", "f:template", "f:a"), ("f:spec", "f:template", "f:b")])
    grown = base.union(FieldSet([("f:status",)]))
    grown.insert(("f:spec", "f:template", "f:new"))
    assert ("f:spec", "f:template", "f:new") in grown
    assert base == FieldSet([("f:spec", "f:template", "f:a"), ("f:spec", "f:template", "f:b")])


def test_a_parsed_set_can_be_changed_without_changing_later_parses() -> None:
    """Parsing is remembered per document, so what one caller inserts must not reach the next."""
    first = FieldSet.from_fields_v1(KUBECTL_CREATE_DEPLOYMENT)
    first.insert(("f:spec", "f:paused"))
    second = FieldSet.from_fields_v1(KUBECTL_CREATE_DEPLOYMENT)
    assert ("f:spec", "f:paused") in first
    assert ("f:spec", "f:paused") not in second
    assert second.to_fields_v1() == KUBECTL_CREATE_DEPLOYMENT


def test_a_changed_parsed_set_writes_its_new_fields_v1() -> None:
    """A set remembers the document it was read from only until it changes."""
    fields = FieldSet.from_fields_v1(SERVICE_AND_FINALIZERS)
    fields.insert(("f:spec", "f:type"))
    assert "f:type" in fields.to_fields_v1()["f:spec"]


def test_a_document_in_another_order_is_written_in_kube_order() -> None:
    """Only canonical documents are written back as read; others are sorted as kube sorts them."""
    document: dict[str, Any] = {"f:spec": {"f:b": {}, "f:a": {}}, "f:metadata": {"f:name": {}}}
    written = FieldSet.from_fields_v1(document).to_fields_v1()
    assert list(written) == ["f:metadata", "f:spec"]
    assert list(written["f:spec"]) == ["f:a", "f:b"]


def test_a_malformed_document_fails_every_time_it_is_parsed() -> None:
    """Errors are not remembered as sets."""
    for _ in range(2):
        with pytest.raises(FieldsV1Error, match="missing colon"):
            FieldSet.from_fields_v1({"f:a": {"xy": {}}})


def test_keys_of_true_and_one_are_different_elements() -> None:
    """Python finds `True == 1`, JSON does not: remembered key elements keep them apart."""
    assert key_element({"port": 1}) == 'k:{"port":1}'
    assert key_element({"port": True}) == 'k:{"port":true}'
    assert key_element({"port": 1}) == 'k:{"port":1}'


def test_sets_can_be_built_from_their_parts() -> None:
    """`from_parts` puts members and sub-sets under one root."""
    below = FieldSet([("f:image",)])
    built = FieldSet.from_parts(["f:replicas"], {"f:template": below})
    assert built == FieldSet([("f:replicas",), ("f:template", "f:image")])


def test_children_are_sets_of_their_own() -> None:
    """Sub-sets are shared between sets: changing one handed out changes no other set."""
    parsed = FieldSet.from_fields_v1(SERVICE_AND_FINALIZERS)
    spec = parsed.children["f:spec"]
    spec.insert(("f:type",))
    assert ("f:spec", "f:type") not in parsed
    assert ("f:spec", "f:type") not in FieldSet.from_fields_v1(SERVICE_AND_FINALIZERS)
    with pytest.raises(TypeError):
        parsed.children["f:status"] = FieldSet()  # type: ignore[index]
