"""Conflicts on apply, ownership on delete, and member-owned fields on update."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.controllers.execution.ownership import (
    RetainFailed,
    conflict,
    delivered_by,
    desired_object,
    manifest_gvk,
    needs_observed,
    work_of_member_object,
)


def deployment(labels: dict[str, str] | None = None, **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": labels or {},
            "annotations": annotations,
        },
        "spec": {"replicas": 2},
    }


def test_an_unmanaged_member_object_is_a_conflict() -> None:
    """An object someone else created is left alone, and the message says how to take it over."""
    problem = conflict(deployment(), deployment(), "sz")
    assert problem is not None
    assert "Deployment default/web already exists in cluster sz" in problem
    assert "Overwrite" in problem


def test_a_managed_member_object_is_not_a_conflict() -> None:
    """Objects labelled karmada.io/managed are Karmada's to update."""
    assert conflict(deployment({"karmada.io/managed": "true"}), deployment(), "sz") is None


def test_overwrite_takes_an_unmanaged_object_over() -> None:
    """The manifest's conflict-resolution overwrite allows the apply."""
    manifest = deployment(**{"work.karmada.io/conflict-resolution": "overwrite"})
    assert conflict(deployment(), manifest, "sz") is None


def test_only_the_object_a_work_delivered_is_its_to_delete() -> None:
    """The work annotations must name this very Work."""
    mine = deployment(**{"work.karmada.io/namespace": "karmada-es-sz", "work.karmada.io/name": "web-1"})
    assert delivered_by(mine, "karmada-es-sz", "web-1")
    assert not delivered_by(mine, "karmada-es-fz", "web-1")
    assert not delivered_by(deployment(), "karmada-es-sz", "web-1")


def test_retained_replicas_are_read_from_the_member() -> None:
    """With the retain-replicas label the member's replicas win over the manifest's."""
    manifest = deployment({"resourcetemplate.karmada.io/retain-replicas": "true"})
    observed = deployment()
    observed["spec"]["replicas"] = 9
    assert needs_observed(manifest)
    assert desired_object(manifest, observed)["spec"]["replicas"] == 9


def test_a_plain_deployment_needs_no_read_and_is_applied_as_is() -> None:
    """Without retain rules the manifest is applied unchanged."""
    manifest = deployment()
    observed = deployment()
    observed["spec"]["replicas"] = 9
    assert not needs_observed(manifest)
    assert desired_object(manifest, observed)["spec"]["replicas"] == 2


def test_a_service_keeps_its_member_cluster_ip() -> None:
    """Services are read first so the member's allocated cluster IP is kept."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 80}]},
    }
    observed = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"clusterIP": "10.0.0.9"},
    }
    assert needs_observed(manifest)
    assert desired_object(manifest, observed)["spec"]["clusterIP"] == "10.0.0.9"


def test_manifest_kinds_parse_core_and_grouped_api_versions() -> None:
    """`v1` is the core group; `apps/v1` the apps group."""
    assert (manifest_gvk({"apiVersion": "v1", "kind": "Service"}).group, "Service") == ("", "Service")
    assert manifest_gvk(deployment()).group == "apps"


def test_a_retain_step_that_fails_is_a_retain_failure_naming_the_manifest() -> None:
    """An observed object the interpreter cannot read (no replicas to retain) is RetainFailed, not a crash."""
    managed = {constants.MANAGED_BY_KARMADA_LABEL: "true"}
    manifest = deployment({**managed, constants.RETAIN_REPLICAS_LABEL: "true"})
    observed = deployment({constants.MANAGED_BY_KARMADA_LABEL: "true"})
    del observed["spec"]["replicas"]
    with pytest.raises(RetainFailed, match="Deployment default/web: cannot retain the member's fields"):
        desired_object(manifest, observed)


def test_a_member_object_names_the_work_that_delivered_it() -> None:
    """The Work's namespace and name come from the object's annotations; without them there is none."""
    delivered = deployment(
        **{constants.WORK_NAMESPACE_ANNOTATION: "karmada-es-a", constants.WORK_NAME_ANNOTATION: "web-x"}
    )
    assert work_of_member_object(delivered) == ObjectKey("karmada-es-a", "web-x")
    assert work_of_member_object(deployment()) is None
