"""Work objects of the binding controller: their shape, when a write can be skipped, the binding index."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.controllers.binding.render import BindingReference, RenderedManifest
from flotilla.controllers.binding.works import (
    WorksByBinding,
    WrittenWorks,
    binding_key_of_work,
    work_object,
    work_up_to_date,
)

BINDING = BindingReference("ResourceBinding", "default", "nginx-deployment", "rb-id")
MANIFEST = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default"},
}


def desired(**annotations: str) -> dict[str, Any]:
    rendered = RenderedManifest(
        copy.deepcopy(MANIFEST),
        {
            "resourcebinding.karmada.io/name": "nginx-deployment",
            "resourcebinding.karmada.io/namespace": "default",
            **annotations,
        },
    )
    return work_object(
        rendered,
        binding=BINDING,
        name="nginx-687f7fb96f",
        namespace="karmada-es-sz",
        suspend_dispatching=False,
        preserve_resources_on_deletion=False,
    )


def as_stored(work: dict[str, Any], **extra_annotations: str) -> dict[str, Any]:
    """The Work as the informer would hold it after the server stored it."""
    stored = copy.deepcopy(work)
    stored["metadata"]["labels"]["work.karmada.io/permanent-id"] = "work-id"
    stored["metadata"]["annotations"].update(extra_annotations)
    stored["metadata"]["resourceVersion"] = "7"
    stored["status"] = {"conditions": [{"type": "Applied", "status": "True"}]}
    return stored


def test_a_work_carries_the_manifest_labels_annotations_and_execution_finalizer() -> None:
    """The Work names its binding and holds the one manifest, with the execution finalizer set."""
    work = desired()
    assert work["metadata"]["labels"] == {"resourcebinding.karmada.io/permanent-id": "rb-id"}
    assert work["metadata"]["finalizers"] == ["karmada.io/execution-controller"]
    assert work["spec"]["workload"]["manifests"] == [MANIFEST]
    assert work["spec"]["suspendDispatching"] is False
    assert work["spec"]["preserveResourcesOnDeletion"] is False


def test_a_stored_work_equal_to_the_desired_one_needs_no_write() -> None:
    """Server additions (permanent id, status, foreign annotations) do not force a write."""
    work = desired()
    assert work_up_to_date(as_stored(work, **{"example.com/note": "x"}), work)


def test_a_changed_manifest_needs_a_write() -> None:
    """A different manifest (e.g. new replicas) makes the stored Work stale."""
    stored = as_stored(desired())
    changed = desired()
    changed["spec"]["workload"]["manifests"][0]["spec"] = {"replicas": 2}
    assert not work_up_to_date(stored, changed)


def test_an_annotation_the_controller_no_longer_wants_needs_a_write() -> None:
    """Applied overrides that no longer apply must be removed from the Work."""
    stored = as_stored(desired(**{"policy.karmada.io/applied-overrides": "[]"}))
    assert not work_up_to_date(stored, desired())


def test_a_missing_finalizer_needs_a_write() -> None:
    """A Work without the execution finalizer is re-applied to get it back."""
    stored = as_stored(desired())
    stored["metadata"]["finalizers"] = []
    assert not work_up_to_date(stored, desired())


def test_binding_of_a_work_reads_its_annotations() -> None:
    """RB Works name namespace and name; CRB Works only the name; other Works none."""
    crb_work = {"metadata": {"annotations": {"clusterresourcebinding.karmada.io/name": "r-clusterrole"}}}
    assert binding_key_of_work(desired()) == ("ResourceBinding", "default", "nginx-deployment")
    assert binding_key_of_work(crb_work) == ("ClusterResourceBinding", "", "r-clusterrole")
    assert binding_key_of_work({"metadata": {}}) is None


def test_the_index_follows_added_moved_and_deleted_works() -> None:
    """Works are found by binding until they are deleted or re-annotated to another binding."""
    index = WorksByBinding()
    work = desired()
    other = copy.deepcopy(work)
    other["metadata"]["namespace"] = "karmada-es-fz"
    index.observe("ADDED", work, None)
    index.observe("ADDED", other, None)
    key = ("ResourceBinding", "default", "nginx-deployment")
    assert index.works_of(key) == {
        ObjectKey("karmada-es-sz", "nginx-687f7fb96f"),
        ObjectKey("karmada-es-fz", "nginx-687f7fb96f"),
    }
    moved = copy.deepcopy(work)
    moved["metadata"]["annotations"]["resourcebinding.karmada.io/name"] = "other-deployment"
    index.observe("MODIFIED", moved, work)
    assert index.works_of(key) == {ObjectKey("karmada-es-fz", "nginx-687f7fb96f")}
    index.observe("DELETED", None, other)
    assert index.works_of(key) == frozenset()
    assert index.binding_of(ObjectKey("karmada-es-sz", "nginx-687f7fb96f")) == (
        "ResourceBinding",
        "default",
        "other-deployment",
    )


def test_a_remembered_write_stands_in_for_a_lagging_informer() -> None:
    """The same desired Work is not written twice while the informer has not seen the first write."""
    written = WrittenWorks()
    work = desired()
    key = ObjectKey("karmada-es-sz", "nginx-687f7fb96f")
    assert not written.already_written(key, work)
    written.remember(key, work, {"metadata": {"resourceVersion": "10"}})
    assert written.already_written(key, copy.deepcopy(work))
    changed = desired(**{"policy.karmada.io/applied-overrides": "[]"})
    assert not written.already_written(key, changed)


def test_a_foreign_write_or_deletion_forgets_the_remembered_write() -> None:
    """Another resourceVersion (someone else wrote) or a deletion makes the informer the truth again."""
    written = WrittenWorks()
    work = desired()
    key = ObjectKey("karmada-es-sz", "nginx-687f7fb96f")
    written.remember(key, work, {"metadata": {"resourceVersion": "10"}})
    ours = as_stored(work)
    ours["metadata"]["resourceVersion"] = "10"
    written.observe("MODIFIED", ours, None)
    assert written.already_written(key, work)
    theirs = as_stored(work)
    theirs["metadata"]["resourceVersion"] = "11"
    written.observe("MODIFIED", theirs, ours)
    assert not written.already_written(key, work)
    written.remember(key, work, {"metadata": {"resourceVersion": "12"}})
    written.observe("DELETED", None, theirs)
    assert not written.already_written(key, work)
