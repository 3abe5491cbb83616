"""Properties of server-side apply and field sets over generated Deployments and paths."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from flotilla.apiserver.registry.apply import (
    FieldSet,
    InvalidObjectError,
    apply,
    compare,
    fields_of,
    raw_fields_of,
)
from flotilla.apiserver.registry.apply.atoms import object_schema
from flotilla.apiserver.registry.apply.fieldpath import Path, index_element, key_element, value_element
from flotilla.apiserver.registry.apply.merge import merge_objects, merge_value
from tests.unit.apiserver.registry.apply.objects import APPS_V1, LATER, NOW, deployment_schema

short_text = st.text("pqr", min_size=1, max_size=2)
ports = st.lists(
    st.fixed_dictionaries(
        {"containerPort": st.sampled_from([80, 443])},
        optional={"protocol": st.sampled_from(["TCP", "UDP"]), "name": short_text},
    ),
    max_size=3,
    unique_by=lambda port: (port["containerPort"], port.get("protocol", "TCP")),
)
containers = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b", "c"])},
        optional={
            "image": short_text,
            "args": st.lists(short_text, max_size=2),
            "ports": ports,
            "env": st.lists(
                st.fixed_dictionaries({"name": st.sampled_from(["X", "Y"])}, optional={"value": short_text}),
                max_size=2,
                unique_by=lambda variable: variable["name"],
            ),
        },
    ),
    max_size=3,
    unique_by=lambda container: container["name"],
)
metadata = st.fixed_dictionaries(
    {"name": st.just("web")},
    optional={
        "labels": st.dictionaries(st.sampled_from(["app", "tier", "x"]), short_text, max_size=3),
        "finalizers": st.lists(st.sampled_from(["f/a", "f/b", "f/c"]), unique=True, max_size=3),
    },
)
specs = st.fixed_dictionaries(
    {},
    optional={
        "replicas": st.integers(0, 3),
        "selector": st.fixed_dictionaries(
            {"matchLabels": st.dictionaries(st.sampled_from(["app"]), short_text)}
        ),
        "template": st.fixed_dictionaries(
            {},
            optional={
                "spec": st.fixed_dictionaries(
                    {},
                    optional={
                        "containers": containers,
                        "tolerations": st.lists(st.fixed_dictionaries({"key": short_text}), max_size=2),
                    },
                )
            },
        ),
    },
)
configurations = st.builds(
    lambda meta, spec: {"apiVersion": APPS_V1, "kind": "Deployment", "metadata": meta, "spec": spec},
    metadata,
    specs,
)


def applied(
    live: dict[str, Any] | None, configuration: dict[str, Any], manager: str, *, force: bool = False
) -> Any:
    managed = live["metadata"].get("managedFields") if live is not None else None
    return apply(
        live,
        configuration,
        manager=manager,
        schema=deployment_schema(),
        managed_fields=managed,
        force=force,
        api_version=APPS_V1,
        now=LATER if live is not None else NOW,
    )


def without_empty_and_managed(value: Any) -> Any:
    """The value with empty maps and lists (and managedFields) dropped, for comparing declared states."""
    if isinstance(value, dict):
        cleaned = {k: without_empty_and_managed(v) for k, v in value.items() if k != "managedFields"}
        return {k: v for k, v in cleaned.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [without_empty_and_managed(item) for item in value]
    return value


@settings(max_examples=150, deadline=None)
@given(configuration=configurations)
def test_applying_the_same_configuration_twice_is_a_no_op(configuration: dict[str, Any]) -> None:
    """A second identical apply returns the same object and the same managedFields."""
    first = applied(None, configuration, "kubectl")
    second = applied(first.obj, configuration, "kubectl")
    assert second.obj == first.obj
    assert second.managed_fields == first.managed_fields


@settings(max_examples=150, deadline=None)
@given(first=configurations, second=configurations)
def test_a_forced_apply_sets_every_field_it_applies(first: dict[str, Any], second: dict[str, Any]) -> None:
    """After a forced apply the object sets all the applied fields and the applier owns exactly them."""
    live = applied(None, first, "one").obj
    result = applied(live, second, "two", force=True)
    applied_fields = fields_of(second, deployment_schema())
    assert not applied_fields - raw_fields_of(result.obj, deployment_schema())
    owned = [e for e in result.managed_fields if e["manager"] == "two"]
    assert FieldSet.from_fields_v1(owned[0]["fieldsV1"] if owned else {}) == applied_fields


@settings(max_examples=150, deadline=None)
@given(first=configurations, second=configurations)
def test_a_sole_manager_ends_with_exactly_its_latest_configuration(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    """Declarative management: with no other writers, re-applying yields the new configuration itself."""
    live = applied(None, first, "kubectl").obj
    result = applied(live, second, "kubectl").obj
    assert without_empty_and_managed(result) == without_empty_and_managed(second)


@settings(max_examples=150, deadline=None)
@given(first=configurations, second=configurations, third=configurations)
def test_every_owned_field_exists_in_the_object(
    first: dict[str, Any], second: dict[str, Any], third: dict[str, Any]
) -> None:
    """Through forced applies by two managers, no entry ever owns a field the object does not set."""
    obj = applied(None, first, "one").obj
    obj = applied(obj, second, "two", force=True).obj
    obj = applied(obj, third, "one", force=True).obj
    present = raw_fields_of(obj, deployment_schema())
    for managed in obj["metadata"].get("managedFields", []):
        assert not FieldSet.from_fields_v1(managed["fieldsV1"]) - present, managed["manager"]


elements = st.one_of(
    st.sampled_from(["f:spec", "f:metadata", "f:a", "f:b"]),
    st.builds(
        lambda name, port: key_element({"name": name, "port": port}), st.sampled_from("xy"), st.integers(0, 2)
    ),
    st.builds(value_element, st.one_of(st.integers(-2, 2), st.text("ab", max_size=2), st.booleans())),
    st.builds(index_element, st.integers(0, 3)),
)
paths = st.lists(elements, min_size=1, max_size=4).map(tuple)
field_sets = st.lists(paths, max_size=8).map(FieldSet)


def path_set(fields: FieldSet) -> set[Path]:
    return set(fields)


@settings(max_examples=200, deadline=None)
@given(fields=field_sets)
def test_fields_v1_round_trips(fields: FieldSet) -> None:
    """Writing a set as FieldsV1 and reading it back gives the same set."""
    assert FieldSet.from_fields_v1(fields.to_fields_v1()) == fields


@settings(max_examples=200, deadline=None)
@given(left=field_sets, right=field_sets)
def test_set_algebra_matches_sets_of_paths(left: FieldSet, right: FieldSet) -> None:
    """Union, intersection and difference agree with the same operations on the member paths."""
    assert path_set(left | right) == path_set(left) | path_set(right)
    assert path_set(left & right) == path_set(left) & path_set(right)
    assert path_set(left - right) == path_set(left) - path_set(right)
    assert len(left) == len(path_set(left))


@settings(max_examples=200, deadline=None)
@given(left=field_sets, right=field_sets)
def test_subsets_match_sets_of_paths(left: FieldSet, right: FieldSet) -> None:
    """`issubset` agrees with the member paths, including for a union and its operands."""
    assert left.issubset(right) == (path_set(left) <= path_set(right))
    assert left.issubset(left | right)
    assert (left - right).issubset(left)


def with_unnamed_container(configuration: dict[str, Any], unnamed: bool) -> dict[str, Any]:
    """The configuration, with a container that has no name (which no field set can hold) if asked."""
    if not unnamed:
        return configuration
    changed = copy.deepcopy(configuration)
    template = changed["spec"].setdefault("template", {})
    template.setdefault("spec", {}).setdefault("containers", []).append({"image": "unnamed"})
    return changed


def comparison_or_error(old: dict[str, Any], new: dict[str, Any], within: FieldSet | None) -> Any:
    try:
        return compare(old, new, deployment_schema(), within=within)
    except InvalidObjectError as error:
        return str(error)


@settings(max_examples=300, deadline=None)
@given(
    old=configurations,
    new=configurations,
    owner=configurations,
    unnamed=st.tuples(st.booleans(), st.booleans()).filter(lambda flags: not all(flags)),
    shared=st.booleans(),
)
def test_a_comparison_within_some_fields_agrees_with_the_full_one_on_them(
    old: dict[str, Any],
    new: dict[str, Any],
    owner: dict[str, Any],
    unnamed: tuple[bool, bool],
    shared: bool,
) -> None:
    """Restricted to the fields one manager owns, a comparison finds the same changes among them,
    finds no change the full one does not, and fails exactly when the full one fails."""
    old, new = with_unnamed_container(old, unnamed[0]), with_unnamed_container(new, unnamed[1])
    if shared:  # as after a merge: the parts the configuration leaves alone are the live ones
        new = {**new, "metadata": old["metadata"]}
    within = fields_of(owner, deployment_schema())
    full, part = comparison_or_error(old, new, None), comparison_or_error(old, new, within)
    if isinstance(full, str) or isinstance(part, str):
        assert part == full
        return
    for found, told in (
        (full.added, part.added),
        (full.removed, part.removed),
        (full.modified, part.modified),
    ):
        assert told & within == found & within
        assert told.issubset(found)


odd_values = st.one_of(
    st.none(),
    st.just({}),
    st.just([]),
    st.integers(0, 2),
    short_text,
    st.lists(st.one_of(short_text, st.fixed_dictionaries({"name": short_text}), st.just({})), max_size=2),
    st.dictionaries(st.sampled_from(["name", "image", "x"]), st.one_of(short_text, st.just([])), max_size=2),
)
ODD_PLACES = (
    ("spec", "replicas"),
    ("spec", "selector"),
    ("spec", "template", "spec", "containers"),
    ("spec", "template", "spec", "tolerations"),
    ("metadata", "labels"),
    ("metadata", "finalizers"),
    ("spec", "template", "metadata"),
)


def with_oddities(configuration: dict[str, Any], oddities: dict[int, Any]) -> dict[str, Any]:
    """The configuration with values of unexpected types (nulls, empties, lists for maps…) put in."""
    changed = copy.deepcopy(configuration)
    for place, value in oddities.items():
        *parents, name = ODD_PLACES[place]
        node = changed
        for parent in parents:
            child = node.get(parent)
            if not isinstance(child, dict):
                child = node[parent] = {}
            node = child
        node[name] = value
    return changed


EMPTY_DEPLOYMENT: dict[str, Any] = {"apiVersion": APPS_V1, "kind": "Deployment", "metadata": {"name": "web"}}


@settings(max_examples=400, deadline=None)
@example(  # the configuration's containers replace a map whole, and one has no name
    live=EMPTY_DEPLOYMENT, configuration=EMPTY_DEPLOYMENT, live_oddities={2: {}}, oddities={2: [{}]}
)
@example(  # the same, where merging fails further on: that is the error that counts
    live={"apiVersion": APPS_V1, "kind": "Deployment", "spec": {}},
    configuration={**EMPTY_DEPLOYMENT, "metadata": {"name": "web", "finalizers": [{}]}},
    live_oddities={2: {}},
    oddities={2: [{}]},
)
@given(
    live=configurations,
    configuration=configurations,
    live_oddities=st.dictionaries(st.integers(0, len(ODD_PLACES) - 1), odd_values, max_size=2),
    oddities=st.dictionaries(st.integers(0, len(ODD_PLACES) - 1), odd_values, max_size=2),
)
def test_merging_whole_objects_finds_what_the_two_walks_find(
    live: dict[str, Any],
    configuration: dict[str, Any],
    live_oddities: dict[int, Any],
    oddities: dict[int, Any],
) -> None:
    """One walk gives the merge and the configuration's fields as the merge and `raw_fields_of` do,
    and fails with the same error where they fail."""
    live, configuration = with_oddities(live, live_oddities), with_oddities(configuration, oddities)
    schema = deployment_schema()
    try:
        expected: Any = (
            merge_value(live, configuration, object_schema(schema), ()),
            raw_fields_of(configuration, schema),
        )
    except InvalidObjectError as error:
        expected = str(error)
    try:
        found: Any = merge_objects(live, configuration, schema)
    except InvalidObjectError as error:
        found = str(error)
    assert found == expected
