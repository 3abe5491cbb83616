"""Attached bindings: the dependencies annotation, who requires an object, and what its binding says."""

from __future__ import annotations

import json
from typing import Any

from flotilla.api.karmada.names import fnv32a, safe_encode
from flotilla.controllers.dependencies.attached import (
    attached_binding,
    attached_up_to_date,
    binding_reference_key,
    depended_by_label,
    dependencies_annotation,
    recorded_dependencies,
    referrer_index_values,
    referrer_lookups,
    requires,
)

CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "app-config", "namespace": "shop", "uid": "uid-cm", "resourceVersion": "5"},
}
DEPENDENCY = {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "app-config"}


def referrer(
    name: str,
    clusters: list[str],
    *,
    dependencies: list[dict[str, Any]] | None = None,
    propagate: bool = True,
    **spec: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": f"{name}-deployment",
            "namespace": "shop",
            "labels": {"resourcebinding.karmada.io/permanent-id": f"id-{name}"},
            "annotations": {
                "resourcebinding.karmada.io/dependencies": dependencies_annotation(
                    [DEPENDENCY] if dependencies is None else dependencies
                )
            },
        },
        "spec": {
            "propagateDeps": propagate,
            "placement": {"clusterAffinity": {"clusterNames": clusters}},
            "clusters": [{"name": cluster, "replicas": 1} for cluster in clusters],
            **spec,
        },
    }


def test_the_dependencies_annotation_is_compact_json_in_karmadas_field_order() -> None:
    """apiVersion, kind, namespace, name (or labelSelector), no spaces; it reads back the same."""
    value = dependencies_annotation(
        [
            {"name": "app-config", "namespace": "shop", "kind": "ConfigMap", "apiVersion": "v1"},
            {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "namespace": "shop",
                "labelSelector": {"matchLabels": {"kubernetes.io/service-name": "derived-web"}},
            },
        ]
    )
    assert value == (
        '[{"apiVersion":"v1","kind":"ConfigMap","namespace":"shop","name":"app-config"},'
        '{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","namespace":"shop",'
        '"labelSelector":{"matchLabels":{"kubernetes.io/service-name":"derived-web"}}}]'
    )
    binding = {"metadata": {"annotations": {"resourcebinding.karmada.io/dependencies": value}}}
    assert recorded_dependencies(binding) == json.loads(value)
    assert (
        recorded_dependencies({"metadata": {"annotations": {"resourcebinding.karmada.io/dependencies": "{"}}})
        == []
    )


def test_the_depended_by_label_hashes_namespace_and_name_as_karmada_does() -> None:
    """FNV-1a of `namespace/name`, decimal, mapped through the safe alphabet."""
    assert binding_reference_key("shop", "web-deployment") == safe_encode(str(fnv32a("shop/web-deployment")))
    assert depended_by_label("shop", "web-deployment").startswith("resourcebinding.karmada.io/depended-by-")
    assert binding_reference_key("shop", "a") != binding_reference_key("shop", "b")


def test_only_live_bindings_with_propagate_deps_that_list_the_object_require_it() -> None:
    """propagateDeps off, deletion, another name or namespace: not required."""
    assert requires(referrer("web", ["sz"]), CONFIG_MAP)
    assert not requires(referrer("web", ["sz"], propagate=False), CONFIG_MAP)
    deleting = referrer("web", ["sz"])
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert not requires(deleting, CONFIG_MAP)
    assert not requires(referrer("web", ["sz"], dependencies=[{**DEPENDENCY, "name": "other"}]), CONFIG_MAP)
    assert not requires(referrer("web", ["sz"], dependencies=[{**DEPENDENCY, "namespace": "x"}]), CONFIG_MAP)


def test_label_selector_dependencies_match_by_labels() -> None:
    """An EndpointSlice listed by selector is required when its labels match."""
    selector = {"matchLabels": {"kubernetes.io/service-name": "derived-web"}}
    slice_reference = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "namespace": "shop",
        "labelSelector": selector,
    }
    endpoint_slice = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "derived-web-x1", "namespace": "shop", "labels": selector["matchLabels"]},
    }
    assert requires(referrer("web", ["sz"], dependencies=[slice_reference]), endpoint_slice)
    endpoint_slice["metadata"]["labels"] = {"kubernetes.io/service-name": "other"}
    assert not requires(referrer("web", ["sz"], dependencies=[slice_reference]), endpoint_slice)


def test_the_referrer_index_finds_every_binding_that_requires_an_object() -> None:
    """Whenever `requires` holds, one of the object's lookups is among the binding's index values."""
    selector_reference = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "namespace": "shop",
        "labelSelector": {"matchLabels": {"app": "web"}},
    }
    labelled: dict[str, Any] = json.loads(json.dumps(CONFIG_MAP))
    labelled["metadata"]["labels"] = {"app": "web"}
    bindings = [
        referrer("by-name", ["sz"]),
        referrer("by-selector", ["sz"], dependencies=[selector_reference]),
        referrer("other-name", ["sz"], dependencies=[{**DEPENDENCY, "name": "other"}]),
        referrer("other-namespace", ["sz"], dependencies=[{**DEPENDENCY, "namespace": "x"}]),
        referrer("off", ["sz"], propagate=False),
    ]
    for obj in (CONFIG_MAP, labelled):
        lookups = set(referrer_lookups(obj))
        for binding in bindings:
            if requires(binding, obj):
                assert lookups & set(referrer_index_values(binding)), binding["metadata"]["name"]
    assert referrer_index_values(bindings[0]) == [("shop", "v1", "ConfigMap", "app-config")]
    assert referrer_index_values(bindings[1]) == [("shop", "v1", "ConfigMap")]
    assert referrer_index_values(bindings[3]) == referrer_index_values(bindings[4]) == []


def test_an_attached_binding_follows_the_union_of_its_referrers() -> None:
    """requiredBy snapshots sorted by name, union of cluster names, owner, resource, one label each."""
    web = referrer("web", ["sz", "fz"])
    api = referrer("api", ["gz", "sz"])
    binding = attached_binding(CONFIG_MAP, [web, api], None)
    assert binding["kind"] == "ResourceBinding"
    assert binding["metadata"]["name"] == "app-config-configmap"
    assert binding["metadata"]["namespace"] == "shop"
    assert binding["metadata"]["ownerReferences"][0]["uid"] == "uid-cm"
    assert binding["metadata"]["labels"] == {
        depended_by_label("shop", "api-deployment"): "id-api",
        depended_by_label("shop", "web-deployment"): "id-web",
    }
    spec = binding["spec"]
    assert [snapshot["name"] for snapshot in spec["requiredBy"]] == ["api-deployment", "web-deployment"]
    assert spec["requiredBy"][1]["clusters"] == [{"name": "sz", "replicas": 1}, {"name": "fz", "replicas": 1}]
    assert spec["clusters"] == [{"name": "fz"}, {"name": "gz"}, {"name": "sz"}]
    assert spec["resource"]["resourceVersion"] == "5"
    assert spec["conflictResolution"] == "Abort"
    assert "preserveResourcesOnDeletion" not in spec
    assert "placement" not in spec


def test_disagreeing_referrers_resolve_to_overwrite_and_preserve() -> None:
    """Any Overwrite wins over Abort; any preserve wins over not preserving."""
    loose = referrer("a", ["sz"], conflictResolution="Overwrite")
    keeper = referrer("b", ["sz"], conflictResolution="Abort", preserveResourcesOnDeletion=True)
    spec = attached_binding(CONFIG_MAP, [loose, keeper], None)["spec"]
    assert spec["conflictResolution"] == "Overwrite"
    assert spec["preserveResourcesOnDeletion"] is True


def test_a_binding_a_policy_placed_only_gets_required_by_and_labels() -> None:
    """The policy's placement, scheduling and settings are left to their owners."""
    placed = {
        "metadata": {"name": "app-config-configmap"},
        "spec": {"placement": {}, "clusters": [{"name": "x"}]},
    }
    binding = attached_binding(CONFIG_MAP, [referrer("web", ["sz"])], placed)
    assert set(binding["spec"]) == {"requiredBy"}
    assert "ownerReferences" not in binding["metadata"]
    assert binding["metadata"]["labels"]


def test_up_to_date_means_same_snapshots_fields_and_no_stale_labels() -> None:
    """A current binding needs no write; a changed referrer cluster or a stale label does."""
    desired = attached_binding(CONFIG_MAP, [referrer("web", ["sz"])], None)
    existing = json.loads(json.dumps(desired))
    existing["status"] = {"aggregatedStatus": []}
    assert attached_up_to_date(existing, desired)
    moved = attached_binding(CONFIG_MAP, [referrer("web", ["gz"])], None)
    assert not attached_up_to_date(existing, moved)
    existing["metadata"]["labels"][depended_by_label("shop", "gone-deployment")] = "id-gone"
    assert not attached_up_to_date(existing, desired)
