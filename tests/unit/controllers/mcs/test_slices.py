"""Copies of a source cluster's EndpointSlices: names, MCS labels and owner, Karmada's dispatch labels."""

from __future__ import annotations

from typing import Any

from flotilla.controllers.mcs.slices import copy_name, differs, dispatched_slice, mcs_slice, source_slices


def source(name: str = "web-abc12", **labels: str) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": "demo",
            "labels": {
                "kubernetes.io/service-name": "web",
                "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                **labels,
            },
        },
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": ["10.0.0.5"],
                "conditions": {"ready": True},
                "hostname": "web-0",
                "nodeName": "member1-node-0",
                "targetRef": {"kind": "Pod", "name": "web-0"},
            }
        ],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
    }


IMPORT = {"apiVersion": "multicluster.x-k8s.io/v1beta1", "metadata": {"name": "web", "uid": "u-1"}}


def test_an_mcs_slice_carries_the_mcs_labels_and_a_non_controller_owner() -> None:
    copy = mcs_slice(source(), "member1", IMPORT, namespace="demo", service_name="web")
    meta = copy["metadata"]
    assert meta["name"] == "member1-web-abc12"
    assert meta["labels"] == {
        "multicluster.kubernetes.io/service-name": "web",
        "multicluster.kubernetes.io/source-cluster": "member1",
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.multicluster.flotilla.io",
    }
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "multicluster.x-k8s.io/v1beta1",
            "kind": "ServiceImport",
            "name": "web",
            "uid": "u-1",
            "controller": False,
        }
    ]
    assert "kubernetes.io/service-name" not in meta["labels"]


def test_endpoints_lose_what_means_nothing_in_another_cluster() -> None:
    copy = mcs_slice(source(), "member1", IMPORT, namespace="demo", service_name="web")
    assert copy["endpoints"] == [
        {"addresses": ["10.0.0.5"], "conditions": {"ready": True}, "hostname": "web-0"}
    ]
    assert copy["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]


def test_a_dispatched_slice_is_selected_by_the_consumers_own_service() -> None:
    copy = dispatched_slice(source(), "member2", namespace="demo", service_name="web")
    assert copy["metadata"]["labels"] == {
        "kubernetes.io/service-name": "web",
        "endpointslice.kubernetes.io/managed-by": "endpointslice-dispatch-controller.karmada.io",
    }
    assert copy["metadata"]["annotations"] == {"endpointslice.karmada.io/provision-cluster": "member2"}


def test_copies_are_never_sources() -> None:
    own = source("web-1")
    dispatched = source("member2-web-1", **{"endpointslice.kubernetes.io/managed-by": "x"})
    dispatched["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"] = (
        "endpointslice-dispatch-controller.karmada.io"
    )
    other = source("db-1")
    other["metadata"]["labels"]["kubernetes.io/service-name"] = "db"
    assert source_slices([dispatched, other, own], "web") == [own]


def test_long_names_are_shortened_with_a_hash() -> None:
    name = copy_name("c" * 60, "s" * 200)
    assert len(name) == 253 and name != copy_name("c" * 60, "s" * 199 + "t")


def test_a_copy_equal_to_what_is_there_needs_no_write() -> None:
    copy = mcs_slice(source(), "member1", IMPORT, namespace="demo", service_name="web")
    stored = {**copy, "metadata": {**copy["metadata"], "resourceVersion": "7", "uid": "x"}}
    assert not differs(copy, stored)
    moved = {**stored, "endpoints": []}
    assert differs(copy, moved)
    assert differs(copy, None)
