"""Override policies are validated by Karmada's rules: forms, JSON pointers, operators and values."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import LEGACY_OVERRIDE_POLICY, OVERRIDE_POLICY, fresh


def override(**overriders: Any) -> dict[str, Any]:
    """An OverridePolicy with one rule for cluster `a` holding `overriders`."""
    return {
        "metadata": {"name": "o", "namespace": "apps"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "overrideRules": [{"targetCluster": {"clusterNames": ["a"]}, "overriders": overriders}],
        },
    }


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_override_policy(obj)]


RULE = "spec.overrideRules[0].overriders"


def test_documented_override_policies_are_valid() -> None:
    """Every overrider type, and the legacy inline form on its own."""
    assert errors(fresh(OVERRIDE_POLICY)) == []
    assert errors(fresh(LEGACY_OVERRIDE_POLICY)) == []


def test_rules_and_legacy_fields_are_exclusive() -> None:
    """overrideRules cannot be combined with the deprecated targetCluster or overriders."""
    obj = override(labelsOverrider=[{"operator": "add", "value": {"a": "b"}}])
    obj["spec"]["targetCluster"] = {"clusterNames": ["b"]}
    obj["spec"]["overriders"] = {"plaintext": [{"path": "/x", "operator": "remove"}]}
    assert errors(obj) == [
        'spec.targetCluster: Invalid value: {"clusterNames":["b"]}: overrideRules and targetCluster can\'t '
        "co-exist",
        'spec.overriders: Invalid value: {"plaintext":[{"operator":"remove","path":"/x"}]}: overrideRules '
        "and "
        "overriders can't co-exist",
    ]


def test_plaintext_paths_are_json_pointers_and_values_follow_the_operator() -> None:
    """add and replace need a value, remove takes none; paths start with a slash."""
    obj = override(
        plaintext=[
            {"path": "spec/replicas", "operator": "replace", "value": 2},
            {"path": "/spec/replicas", "operator": "add"},
            {"path": "/metadata/labels/x", "operator": "remove", "value": "y"},
            {"path": "/a", "operator": "move", "value": 1},
        ]
    )
    assert errors(obj) == [
        f'{RULE}.plaintext[0].path: Invalid value: "spec/replicas": JSON pointer must be empty or start '
        'with a "/"',
        f"{RULE}.plaintext[1].value: Required value: value is required for add or replace operation",
        f'{RULE}.plaintext[2].value: Invalid value: "y": value is not allowed for remove operation',
        f'{RULE}.plaintext[3].operator: Unsupported value: "move": supported values: "add", "remove", '
        '"replace"',
    ]


def test_image_overriders_name_a_component_and_operator() -> None:
    """Registry, Repository or Tag; add, remove or replace; predicates are JSON pointers."""
    obj = override(
        imageOverrider=[
            {"component": "Digest", "operator": "replace", "value": "x"},
            {"predicate": {"path": "spec.containers[0].image"}, "component": "Tag", "operator": "set"},
            {"value": "x"},
        ]
    )
    assert errors(obj) == [
        f'{RULE}.imageOverrider[0].component: Unsupported value: "Digest": supported values: "Registry", '
        '"Repository", "Tag"',
        f'{RULE}.imageOverrider[1].predicate.path: Invalid value: "spec.containers[0].image": JSON pointer '
        "must "
        'be empty or start with a "/"',
        f'{RULE}.imageOverrider[1].operator: Unsupported value: "set": supported values: "add", "remove", '
        '"replace"',
        f"{RULE}.imageOverrider[2].component: Required value",
        f"{RULE}.imageOverrider[2].operator: Required value",
    ]


def test_command_and_args_overriders_add_or_remove_in_a_named_container() -> None:
    """There is no replace for command lines."""
    obj = override(
        commandOverrider=[{"operator": "add", "value": ["--x"]}],
        argsOverrider=[{"containerName": "c", "operator": "replace", "value": ["--y"]}],
    )
    assert errors(obj) == [
        f"{RULE}.commandOverrider[0].containerName: Required value",
        f'{RULE}.argsOverrider[0].operator: Unsupported value: "replace": supported values: "add", "remove"',
    ]


def test_label_and_annotation_overriders_carry_valid_keys_and_values() -> None:
    """Label keys and values, annotation keys, as metadata would require."""
    obj = override(
        labelsOverrider=[{"operator": "add", "value": {"ok": "not valid!"}}],
        annotationsOverrider=[{"operator": "add", "value": {"bad key": "any value at all"}}],
    )
    found = errors(obj)
    assert [e.split(": ")[0] for e in found] == [
        f"{RULE}.labelsOverrider[0].value",
        f"{RULE}.annotationsOverrider[0].value",
    ]
    assert found[0].startswith(f'{RULE}.labelsOverrider[0].value: Invalid value: "not valid!"')


def test_field_overriders_use_json_or_yaml_operations() -> None:
    """Exactly one of json and yaml; pointers and operations checked inside."""
    obj = override(
        fieldOverrider=[
            {
                "fieldPath": "/data/a",
                "json": [{"subPath": "/x", "operator": "add", "value": 1}],
                "yaml": [{"subPath": "/y", "operator": "remove"}],
            },
            {"fieldPath": "/data/b"},
            {"fieldPath": "data/c", "yaml": [{"subPath": "z", "operator": "replace"}]},
        ]
    )
    found = errors(obj)
    assert found[0].startswith(f"{RULE}.fieldOverrider[0]: Invalid value: ")
    assert found[0].endswith("FieldOverrider has both YAML and JSON set. Only one is allowed")
    assert found[1:] == [
        f"{RULE}.fieldOverrider[1]: Required value: FieldOverrider must have either YAML or JSON set",
        f'{RULE}.fieldOverrider[2].fieldPath: Invalid value: "data/c": JSON pointer must be empty or start '
        "with "
        'a "/"',
        f'{RULE}.fieldOverrider[2].yaml[0].subPath: Invalid value: "z": JSON pointer must be empty or '
        "start with "
        'a "/"',
        f"{RULE}.fieldOverrider[2].yaml[0].value: Required value: value is required for add or replace "
        "operation",
    ]


def test_target_clusters_are_validated_in_rules_and_the_legacy_form() -> None:
    """Field selectors and label selectors of target clusters follow the placement rules."""
    obj = fresh(LEGACY_OVERRIDE_POLICY)
    obj["spec"]["targetCluster"] = {
        "fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "Gt"}]}
    }
    assert errors(obj) == [
        'spec.targetCluster.fieldSelector.matchExpressions[0].operator: Unsupported value: "Gt": supported '
        'values: "In", "NotIn"'
    ]
