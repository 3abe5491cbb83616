"""The `$patch` directive in objects and lists, and directives inside values with nothing under them."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.patch import apply_strategic_merge_patch
from flotilla.apiserver.registry.schema.model import Schema
from tests.unit.apiserver.registry.patch.workloads import container_names, containers, template_patch


def test_patch_replace_in_an_object_replaces_it_whole(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$patch: replace` in labels drops every label the patch does not send."""
    patch = {"metadata": {"labels": {"$patch": "replace", "owner": "ops"}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["labels"] == {"owner": "ops"}


def test_patch_delete_in_an_object_removes_the_field(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$patch: delete` in annotations removes the annotations field."""
    result = apply_strategic_merge_patch(
        deployment, {"metadata": {"annotations": {"$patch": "delete"}}}, deployment_schema
    )

    assert "annotations" not in result["metadata"]
    assert result["metadata"]["labels"] == deployment["metadata"]["labels"]


def test_patch_merge_in_an_object_is_the_default(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$patch: merge` merges as if no directive were sent."""
    patch = {"metadata": {"labels": {"$patch": "merge", "release": "canary"}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["labels"] == {"app": "web", "tier": "front", "release": "canary"}


def test_patch_replace_element_replaces_the_whole_list(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A `{"$patch": "replace"}` element makes the other patch elements the whole container list."""
    patch = template_patch({"containers": [{"$patch": "replace"}, {"name": "only", "image": "busybox"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result) == [{"name": "only", "image": "busybox"}]


def test_patch_replace_element_with_merge_key_replaces_that_element(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """An element carrying its name and `$patch: replace` replaces that container and keeps the rest."""
    patch = template_patch({"containers": [{"name": "nginx", "image": "nginx:1.27", "$patch": "replace"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result) == [{"name": "nginx", "image": "nginx:1.27"}, containers(deployment)[1]]


def test_patch_delete_element_removes_env_var(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A `{"name": ..., "$patch": "delete"}` env element removes that variable only."""
    patch = template_patch({"containers": [{"name": "nginx", "env": [{"name": "MODE", "$patch": "delete"}]}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result)[0]["env"] == [{"name": "LOG", "value": "info"}]


def test_delete_then_add_in_one_patch_recreates_the_element(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Deleting a container and sending it again yields only the fields sent, not a merge."""
    patch = template_patch(
        {"containers": [{"name": "x", "$patch": "delete"}, {"name": "x", "image": "alpine"}]}
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert {"name": "x", "image": "alpine"} in containers(result)
    assert len(containers(result)) == 2


def test_deleting_an_element_the_live_list_lacks_changes_nothing(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A delete element naming no live container leaves the list as it was."""
    patch = template_patch({"containers": [{"name": "ghost", "$patch": "delete"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result) == containers(deployment)


def test_replace_marker_in_a_value_set_replaces_it(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A `{"$patch": "replace"}` element in finalizers makes the sent values the whole list."""
    patch = {"metadata": {"finalizers": [{"$patch": "replace"}, "example.com/z"]}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["finalizers"] == ["example.com/z"]


def test_replace_marker_in_a_replaced_list_is_dropped(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A `{"$patch": "replace"}` element in tolerations asks for what happens anyway and is dropped."""
    toleration = {"key": "gpu", "operator": "Exists"}
    patch = template_patch({"tolerations": [{"$patch": "replace"}, toleration]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["template"]["spec"]["tolerations"] == [toleration]


def test_directives_in_a_new_field_are_resolved_not_stored(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Directives inside a list or object the live object lacks are applied and leave no `$` keys."""
    patch = template_patch(
        {
            "$setElementOrder/initContainers": [{"name": "b"}, {"name": "a"}],
            "initContainers": [
                {"name": "b", "image": "busybox", "securityContext": {"$patch": "replace", "runAsUser": 1}},
                {"name": "a", "image": "busybox", "env": [{"name": "GONE", "$patch": "delete"}]},
                {"name": "c", "$patch": "delete"},
            ],
            "securityContext": {"$retainKeys": ["runAsUser"], "runAsUser": 1000},
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    pod_spec = result["spec"]["template"]["spec"]
    assert pod_spec["initContainers"] == [
        {"name": "b", "image": "busybox", "securityContext": {"runAsUser": 1}},
        {"name": "a", "image": "busybox", "env": []},
    ]
    assert pod_spec["securityContext"] == {"runAsUser": 1000}
    assert "$" not in repr(result)


def test_null_list_field_wins_over_its_order_directive(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A list set to null is removed even when the patch also sends `$setElementOrder` for it."""
    patch = {"metadata": {"finalizers": None, "$setElementOrder/finalizers": ["example.com/a"]}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert "finalizers" not in result["metadata"]


def test_top_level_patch_delete_empties_the_object(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$patch: delete` at the root leaves an empty object (the server then rejects it as invalid)."""
    assert apply_strategic_merge_patch(deployment, {"$patch": "delete"}, deployment_schema) == {}


def test_set_element_order_naming_absent_elements_ignores_them(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Entries of `$setElementOrder` that match no element are skipped."""
    patch = template_patch(
        {"$setElementOrder/containers": [{"name": "x"}, {"name": "ghost"}, {"name": "nginx"}]}
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert container_names(result) == ["x", "nginx"]
