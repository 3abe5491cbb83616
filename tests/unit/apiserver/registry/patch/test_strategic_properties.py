"""Properties of strategic merge patch over generated documents."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flotilla.apiserver.registry.patch import apply_merge_patch, apply_strategic_merge_patch
from tests.unit.apiserver.registry.patch.workloads import kind_schema

keys = st.sampled_from(["a", "b", "c", "metadata", "spec", "labels", "name"])
scalars = st.one_of(st.integers(-3, 3), st.text("xyz", max_size=2), st.booleans())
documents = st.recursive(
    st.one_of(scalars, st.none()),
    lambda children: st.dictionaries(keys, children, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(keys, documents, max_size=4)


@settings(max_examples=300, deadline=None)
@given(original=objects, patch=objects)
def test_without_schema_or_lists_it_equals_json_merge_patch(
    original: dict[str, Any], patch: dict[str, Any]
) -> None:
    """For objects without lists or directives, SMP with no schema gives the JSON merge patch result."""
    assert apply_strategic_merge_patch(original, patch, None) == apply_merge_patch(original, patch)


container = st.fixed_dictionaries(
    {"name": st.sampled_from(["a", "b", "c"])},
    optional={"image": st.text("xyz", min_size=1, max_size=2), "args": st.lists(st.text("xy", max_size=1))},
)
pod_specs = st.fixed_dictionaries(
    {},
    optional={
        "containers": st.lists(container, max_size=3, unique_by=lambda c: c["name"]),
        "tolerations": st.lists(st.fixed_dictionaries({"key": st.sampled_from(["k", "l"])}), max_size=2),
    },
)
pod_metas = st.fixed_dictionaries(
    {}, optional={"finalizers": st.lists(st.sampled_from(["f", "g", "h"]), unique=True, max_size=3)}
)


@settings(max_examples=200, deadline=None)
@given(live_spec=pod_specs, patch_spec=pod_specs, live_meta=pod_metas, patch_meta=pod_metas)
def test_merging_pods_keeps_inputs_intact_and_every_name_once(
    live_spec: dict[str, Any],
    patch_spec: dict[str, Any],
    live_meta: dict[str, Any],
    patch_meta: dict[str, Any],
) -> None:
    """Merging Pod specs never changes its inputs and yields each container name and finalizer once."""
    live = {"metadata": live_meta, "spec": live_spec}
    patch = {"metadata": patch_meta, "spec": patch_spec}
    live_before, patch_before = copy.deepcopy(live), copy.deepcopy(patch)

    result = apply_strategic_merge_patch(live, patch, kind_schema("", "v1", "Pod"))

    assert (live, patch) == (live_before, patch_before)
    names = [c["name"] for c in result["spec"].get("containers", [])]
    expected_names = {
        c["name"] for c in [*live_spec.get("containers", []), *patch_spec.get("containers", [])]
    }
    assert sorted(names) == sorted(expected_names)
    finalizers = result["metadata"].get("finalizers", [])
    assert sorted(finalizers) == sorted(
        set(live_meta.get("finalizers", [])) | set(patch_meta.get("finalizers", []))
    )
    if "tolerations" in patch_spec:
        assert result["spec"]["tolerations"] == patch_spec["tolerations"]
