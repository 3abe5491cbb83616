"""Malformed strategic merge patches raise `PatchError` naming the field and what to change."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.patch import PatchError, apply_strategic_merge_patch
from flotilla.apiserver.registry.schema.model import Schema
from tests.unit.apiserver.registry.patch.workloads import template_patch


def rejection(original: dict[str, Any], patch: dict[str, Any], schema: Schema | None) -> PatchError:
    with pytest.raises(PatchError) as caught:
        apply_strategic_merge_patch(original, patch, schema)
    return caught.value


def test_element_without_merge_key_is_rejected(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A container without `name` cannot be matched, and the error says which element and key."""
    error = rejection(
        deployment, template_patch({"containers": [{"image": "nginx:1.26"}]}), deployment_schema
    )

    assert error.field == "spec.template.spec.containers[0]"
    assert 'missing merge key "name"' in str(error)


def test_unknown_patch_directive_in_an_object_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$patch: remove` is not a directive; the error lists the ones that are."""
    error = rejection(deployment, {"metadata": {"labels": {"$patch": "remove"}}}, deployment_schema)

    assert error.field == "metadata.labels"
    assert '"remove"' in str(error)
    assert '"replace", "delete" or "merge"' in str(error)


def test_unknown_patch_directive_in_a_list_element_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """An element with an unknown `$patch` value is rejected with the element's path."""
    error = rejection(
        deployment, template_patch({"containers": [{"name": "x", "$patch": "drop"}]}), deployment_schema
    )

    assert error.field == "spec.template.spec.containers[0]"


def test_bare_delete_element_is_rejected(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """`{"$patch": "delete"}` without a name does not say which container to remove."""
    error = rejection(deployment, template_patch({"containers": [{"$patch": "delete"}]}), deployment_schema)

    assert 'must name the element to remove by its "name"' in str(error)


def test_scalar_element_in_a_keyed_list_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Containers are objects; a string element is refused."""
    error = rejection(deployment, template_patch({"containers": ["nginx"]}), deployment_schema)

    assert 'are objects merged by "name", not a string' in str(error)


def test_patch_element_in_a_replaced_list_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Tolerations have no merge key, so deleting one element is refused with a way out."""
    patch = template_patch({"tolerations": [{"key": "dedicated", "$patch": "delete"}]})

    error = rejection(deployment, patch, deployment_schema)

    assert error.field == "spec.template.spec.tolerations[0]"
    assert "send the complete list" in str(error)


def test_directive_element_in_a_value_set_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A delete element in finalizers is refused and points at `$deleteFromPrimitiveList`."""
    patch = {"metadata": {"finalizers": [{"$patch": "delete", "name": "example.com/a"}]}}

    error = rejection(deployment, patch, deployment_schema)

    assert "$deleteFromPrimitiveList/finalizers" in str(error)


def test_delete_from_primitive_list_on_a_keyed_list_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Containers are removed with delete elements, not `$deleteFromPrimitiveList`."""
    error = rejection(
        deployment, template_patch({"$deleteFromPrimitiveList/containers": ["x"]}), deployment_schema
    )

    assert '"$patch": "delete"' in str(error)


def test_retain_keys_must_list_every_field_the_patch_sets(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A patch that sets rollingUpdate while `$retainKeys` omits it would clear it; it is refused."""
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "RollingUpdate", "rollingUpdate": {}}}}

    error = rejection(deployment, patch, deployment_schema)

    assert error.field == "spec.strategy"
    assert '"rollingUpdate"' in str(error)


def test_retain_keys_must_be_a_list_of_names(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """`$retainKeys` given as a string is refused."""
    error = rejection(deployment, {"spec": {"strategy": {"$retainKeys": "type"}}}, deployment_schema)

    assert "$retainKeys must be a list of field names" in str(error)


def test_set_element_order_disagreeing_with_the_patch_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Patch elements listed in a different order than `$setElementOrder` are refused."""
    patch = template_patch(
        {
            "$setElementOrder/containers": [{"name": "nginx"}, {"name": "x"}],
            "containers": [{"name": "x", "image": "a"}, {"name": "nginx", "image": "b"}],
        }
    )

    error = rejection(deployment, patch, deployment_schema)

    assert "in the same relative order" in str(error)


def test_set_element_order_missing_a_patched_element_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A patched container absent from `$setElementOrder` is refused."""
    patch = template_patch(
        {"$setElementOrder/containers": [{"name": "nginx"}], "containers": [{"name": "x", "image": "a"}]}
    )

    error = rejection(deployment, patch, deployment_schema)

    assert "must appear in $setElementOrder/containers" in str(error)


def test_set_element_order_entry_without_merge_key_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Order entries for containers must be objects carrying `name`."""
    error = rejection(
        deployment, template_patch({"$setElementOrder/containers": ["nginx"]}), deployment_schema
    )

    assert "entry 0 of $setElementOrder/containers" in str(error)


@pytest.mark.parametrize(
    "directive",
    ["$setElementOrder", "$setElementOrder/", "$setElementOrderX/containers", "$deleteFromPrimitiveList"],
)
def test_malformed_list_directive_names_are_rejected(
    deployment: dict[str, Any], deployment_schema: Schema, directive: str
) -> None:
    """A list directive without `/<field>` (or with a misspelt prefix) is refused."""
    error = rejection(deployment, template_patch({directive: []}), deployment_schema)

    assert "malformed directive" in str(error)


def test_list_directive_with_a_non_list_value_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$setElementOrder/<field>` must be a list."""
    error = rejection(
        deployment, template_patch({"$setElementOrder/containers": {"name": "x"}}), deployment_schema
    )

    assert "must be a list, not an object" in str(error)


def test_order_directive_beside_a_non_list_value_is_rejected(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$setElementOrder/finalizers` with finalizers set to a string is refused."""
    patch = {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": "a"}}

    error = rejection(deployment, patch, deployment_schema)

    assert "apply to lists" in str(error)


def test_deeply_nested_patch_is_a_patch_error() -> None:
    """A patch nested past the recursion limit is reported as a patch error."""
    patch: dict[str, Any] = {}
    innermost = patch
    for _ in range(5000):
        innermost["a"] = {}
        innermost = innermost["a"]

    error = rejection({}, patch, None)

    assert "nested too deeply" in str(error)
