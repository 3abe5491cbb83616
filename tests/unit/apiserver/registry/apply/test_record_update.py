"""managedFields bookkeeping for non-apply writes: POST, PUT and PATCH record Update entries."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from flotilla.apiserver.registry.apply import FieldSet, fields_of, record_update
from tests.unit.apiserver.registry.apply.objects import (
    APPS_V1,
    LATER,
    NOW,
    containers,
    deployment_schema,
    entry,
    managers,
    web_deployment,
)

IMAGE = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"nginx"}', "f:image")


def recorded(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    manager: str,
    managed_fields: list[dict[str, Any]] | None,
    *,
    now: datetime = NOW,
    api_version: str = APPS_V1,
    subresource: str = "",
) -> list[dict[str, Any]]:
    return record_update(
        old,
        new,
        manager=manager,
        schema=deployment_schema(),
        managed_fields=managed_fields,
        api_version=api_version,
        now=now,
        subresource=subresource,
    )


def owned(managed_fields: list[dict[str, Any]], manager: str) -> FieldSet:
    return FieldSet.from_fields_v1(entry(managed_fields, manager, "Update")["fieldsV1"])


def test_creating_gives_the_creator_every_field() -> None:
    """`kubectl create` owns the whole object as an Update entry."""
    managed = recorded(None, web_deployment(), "kubectl-create", None)
    assert managed == [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": APPS_V1,
            "time": "2024-05-01T10:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": fields_of(web_deployment(), deployment_schema()).to_fields_v1(),
        }
    ]


def test_changing_a_field_takes_it_from_its_owner() -> None:
    """After an edit of the image, the editor owns the image and the creator does not."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    edited = web_deployment()
    containers(edited)[0]["image"] = "nginx:1.26"
    managed = recorded(web_deployment(), edited, "kubectl-edit", created, now=LATER)
    assert owned(managed, "kubectl-edit") == FieldSet([IMAGE])
    assert IMAGE not in owned(managed, "kubectl-create")
    assert entry(managed, "kubectl-edit", "Update")["time"] == "2024-05-01T11:30:00Z"


def test_removing_a_field_removes_it_from_every_manager() -> None:
    """A label deleted by one writer is owned by nobody afterwards."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    unlabelled = web_deployment()
    unlabelled["metadata"]["labels"] = {"other": "x"}
    managed = recorded(web_deployment(), unlabelled, "kubectl-label", created)
    assert ("f:metadata", "f:labels", "f:app") not in owned(managed, "kubectl-create")
    assert owned(managed, "kubectl-label") == FieldSet([("f:metadata", "f:labels", "f:other")])


def test_a_write_that_changes_nothing_changes_no_entry() -> None:
    """No field changed hands, so no timestamp moves and no entry appears."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    assert recorded(web_deployment(), web_deployment(), "kubectl-replace", created, now=LATER) == created


def test_a_later_update_by_the_same_manager_adds_to_its_entry() -> None:
    """The entry keeps what it owned and gains what it changed now."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    scaled = web_deployment(replicas=2)
    first = recorded(web_deployment(), scaled, "kubectl-edit", created)
    imaged = copy.deepcopy(scaled)
    containers(imaged)[0]["image"] = "nginx:2"
    second = recorded(scaled, imaged, "kubectl-edit", first, now=LATER)
    assert owned(second, "kubectl-edit") == FieldSet([("f:spec", "f:replicas"), IMAGE])


def test_changing_only_owned_fields_keeps_the_entry_and_moves_its_time() -> None:
    """A renewal-like write leaves the writer's fields as they were and stamps the entry anew."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    rescaled = recorded(web_deployment(), web_deployment(replicas=7), "kubectl-create", created, now=LATER)
    assert (
        entry(rescaled, "kubectl-create", "Update")["fieldsV1"]
        == entry(created, "kubectl-create", "Update")["fieldsV1"]
    )
    assert entry(rescaled, "kubectl-create", "Update")["time"] == "2024-05-01T11:30:00Z"


def test_another_writer_changing_an_owned_field_still_takes_it() -> None:
    """The shortcut for a writer's own fields does not apply to fields another manager owns."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    scaled = recorded(web_deployment(), web_deployment(replicas=2), "hpa", created)
    rescaled = recorded(web_deployment(replicas=2), web_deployment(replicas=3), "kubectl-create", scaled)
    assert ("f:spec", "f:replicas") in owned(rescaled, "kubectl-create")
    assert managers(rescaled) == [("kubectl-create", "Update")]


def test_updates_through_another_api_version_get_their_own_entry() -> None:
    """Update entries are per apiVersion."""
    created = recorded(None, web_deployment(), "tool", None)
    managed = recorded(
        web_deployment(), web_deployment(replicas=4), "tool", created, api_version="apps/v1beta2"
    )
    assert [(e["manager"], e["apiVersion"]) for e in managed] == [
        ("tool", "apps/v1"),
        ("tool", "apps/v1beta2"),
    ]


def test_status_updates_own_status_under_their_subresource() -> None:
    """A controller writing status through /status owns it in an entry marked `subresource: status`."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    with_status = {**web_deployment(), "status": {"replicas": 1, "readyReplicas": 1}}
    managed = recorded(
        web_deployment(), with_status, "kube-controller-manager", created, subresource="status"
    )
    status_entry = entry(managed, "kube-controller-manager", "Update")
    assert status_entry["subresource"] == "status"
    # status appeared as a whole, so the controller owns the struct itself too (the `.`)
    assert status_entry["fieldsV1"] == {"f:status": {".": {}, "f:readyReplicas": {}, "f:replicas": {}}}


def test_objects_whose_managed_fields_were_cleared_are_not_tracked_again() -> None:
    """kube starts tracking at create or first apply, never at a later update."""
    assert recorded(web_deployment(), web_deployment(replicas=3), "kubectl-edit", []) == []


def test_objects_that_cannot_be_described_keep_their_managed_fields() -> None:
    """A container without a name leaves managedFields as they were, as kube does."""
    created = recorded(None, web_deployment(), "kubectl-create", None)
    broken = web_deployment()
    containers(broken).append({"image": "busybox"})
    assert recorded(web_deployment(), broken, "kubectl-edit", created) == created


def test_more_than_ten_update_managers_fold_the_oldest_into_ancient_changes() -> None:
    """Of eleven updaters, the two oldest become one `ancient-changes` entry holding both their fields."""
    managed = recorded(None, web_deployment(), "creator", None)
    current = web_deployment()
    for number in range(10):
        changed = copy.deepcopy(current)
        changed["metadata"]["labels"][f"w{number}"] = "x"
        managed = recorded(
            current, changed, f"writer-{number}", managed, now=NOW + timedelta(minutes=number + 1)
        )
        current = changed
    names = [name for name, _ in managers(managed)]
    assert len(names) == 10
    assert "creator" not in names
    assert "writer-0" not in names
    ancient = owned(managed, "ancient-changes")
    assert IMAGE in ancient
    assert ("f:metadata", "f:labels", "f:w0") in ancient
    assert ("f:metadata", "f:labels", "f:w9") in owned(managed, "writer-9")
