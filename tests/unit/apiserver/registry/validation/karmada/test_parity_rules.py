"""The refusals Karmada's CRDs make, repeated by the built-in webhook for objects no schema checked."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.validation import karmada as validation


def policy(**spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "namespace": "apps"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            **spec,
        },
    }


@pytest.mark.parametrize(
    ("priority", "expected"),
    [
        ({"priorityClassSource": "KubePriorityClass", "priorityClassName": "high"}, []),
        (
            {"priorityClassSource": "PodPriorityClass", "priorityClassName": "high"},
            [
                'spec.schedulePriority.priorityClassSource: Unsupported value: "PodPriorityClass": '
                'supported values: "KubePriorityClass"'
            ],
        ),
        ({"priorityClassName": "high"}, ["spec.schedulePriority.priorityClassSource: Required value"]),
        (
            {"priorityClassSource": "KubePriorityClass"},
            ["spec.schedulePriority.priorityClassName: Required value"],
        ),
    ],
)
def test_a_schedule_priority_names_karmadas_one_source_and_a_class(
    priority: dict[str, str], expected: list[str]
) -> None:
    errors = validation.validate_propagation_policy(policy(schedulePriority=priority))
    assert [str(error) for error in errors] == expected


@pytest.mark.parametrize("kind", ["labelsOverrider", "annotationsOverrider"])
def test_a_label_or_annotation_overrider_carries_a_value(kind: str) -> None:
    override = {"spec": {"overrideRules": [{"overriders": {kind: [{"operator": "remove"}]}}]}}
    errors = validation.validate_override_policy(override)
    assert [str(error) for error in errors] == [
        f"spec.overrideRules[0].overriders.{kind}[0].value: Required value"
    ]
    override["spec"]["overrideRules"][0]["overriders"][kind][0]["value"] = {"team": ""}
    assert validation.validate_override_policy(override) == []
