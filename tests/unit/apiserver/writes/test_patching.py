"""A PATCH applies to the whole stored object, resourceVersion included, as kube-apiserver applies it;
the resourceVersion it leaves is the write's precondition."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.patching import decode_patch, patch_stored_object, pinned_resource_version

MANAGED = [
    {
        "manager": "kubectl-client-side-apply",
        "operation": "Update",
        "apiVersion": "v1",
        "time": "2026-01-01T00:00:00Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:data": {"f:a": {}}},
    }
]


def stored(revision: int = 42) -> CachedObject:
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "c",
            "namespace": "default",
            "uid": "0b6c1f8e-0000-4000-8000-000000000001",
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "resourceVersion": str(revision),
            "managedFields": MANAGED,
        },
        "data": {"a": "1"},
    }
    return CachedObject("/registry/core/configmaps/default/c", "default", "c", revision, obj)


async def patched(kind: str, patch: Any, current: CachedObject | None = None) -> dict[str, Any]:
    return await patch_stored_object(current or stored(), decode_patch(kind, orjson.dumps(patch)), None)


async def test_a_json_patch_may_test_the_resource_version_and_add_a_finalizer() -> None:
    """kopf's finalizer patch: test the current resourceVersion, then add to /metadata/finalizers."""
    result = await patched(
        JSON_PATCH,
        [
            {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
            {"op": "add", "path": "/metadata/finalizers", "value": ["x.example.com/f"]},
        ],
    )

    assert result["metadata"]["finalizers"] == ["x.example.com/f"]
    assert pinned_resource_version(result) == "42"


async def test_a_json_patch_sees_every_system_field() -> None:
    """uid, creationTimestamp and managedFields are there to test, as in kube-apiserver."""
    await patched(
        JSON_PATCH,
        [
            {"op": "test", "path": "/metadata/uid", "value": "0b6c1f8e-0000-4000-8000-000000000001"},
            {"op": "test", "path": "/metadata/creationTimestamp", "value": "2026-01-01T00:00:00Z"},
            {"op": "test", "path": "/metadata/managedFields/0/manager", "value": "kubectl-client-side-apply"},
        ],
    )


async def test_replacing_managed_fields_and_resource_version_is_what_kubectl_migration_sends() -> None:
    """csaupgrade's patch replaces managedFields and the resourceVersion; both reach the write."""
    migrated = [{**MANAGED[0], "manager": "kubectl", "operation": "Apply"}]
    result = await patched(
        JSON_PATCH,
        [
            {"op": "replace", "path": "/metadata/managedFields", "value": migrated},
            {"op": "replace", "path": "/metadata/resourceVersion", "value": "41"},
        ],
    )

    assert result["metadata"]["managedFields"] == migrated
    assert pinned_resource_version(result) == "41"


async def test_a_failed_test_is_422_in_words_without_python_reprs() -> None:
    """The message names the operation and path; it carries no dict, list or quoted Python string."""
    with pytest.raises(errors.Invalid) as refused:
        await patched(JSON_PATCH, [{"op": "test", "path": "/metadata/resourceVersion", "value": "7"}])

    assert refused.value.code == 422
    message = refused.value.message
    assert "test /metadata/resourceVersion" in message
    assert "{" not in message and "'" not in message


@pytest.mark.parametrize(
    ("kind", "patch", "pinned"),
    [
        (MERGE_PATCH, {"data": {"b": "2"}}, "42"),
        (MERGE_PATCH, {"metadata": {"resourceVersion": "40"}}, "40"),
        (MERGE_PATCH, {"metadata": {"resourceVersion": None}}, ""),
        (STRATEGIC_MERGE_PATCH, {"data": {"b": "2"}}, "42"),
        (STRATEGIC_MERGE_PATCH, {"metadata": {"resourceVersion": "40"}}, "40"),
        (JSON_PATCH, [{"op": "remove", "path": "/metadata/resourceVersion"}], ""),
    ],
)
async def test_the_resource_version_a_patch_leaves_is_the_precondition(
    kind: str, patch: Any, pinned: str
) -> None:
    """Left alone it is the stored one; set, it is the one set; removed, the write is unconditional."""
    assert pinned_resource_version(await patched(kind, patch)) == pinned


async def test_patching_leaves_the_stored_object_untouched() -> None:
    """The cached object is shared with readers and watchers: every patch type works on a copy."""
    current = stored()
    before = orjson.dumps(current.obj)
    await patched(JSON_PATCH, [{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}], current)
    await patched(MERGE_PATCH, {"metadata": {"labels": {"a": "b"}}, "data": None}, current)
    await patched(STRATEGIC_MERGE_PATCH, {"metadata": {"finalizers": ["f"]}}, current)

    assert orjson.dumps(current.obj) == before
