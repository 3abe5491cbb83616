"""Reading an object's group and kind, and finding its pod template."""

from __future__ import annotations

import pytest

from flotilla.interpreter.kinds import GroupKind, InterpreterError, group_kind, pod_spec


@pytest.mark.parametrize(
    ("api_version", "expected"),
    [("apps/v1", GroupKind("apps", "Deployment")), ("v1", GroupKind("", "Deployment"))],
)
def test_group_kind_ignores_the_version(api_version: str, expected: GroupKind) -> None:
    """Only the group of the apiVersion matters, and the core group is empty."""
    assert group_kind({"apiVersion": api_version, "kind": "Deployment"}) == expected


def test_an_object_without_apiversion_or_kind_is_an_interpreter_error() -> None:
    """The interpreter cannot dispatch an object that does not say what it is."""
    with pytest.raises(InterpreterError, match="apiVersion or kind"):
        group_kind({"kind": "Pod"})


def test_pod_spec_is_found_where_each_kind_keeps_it() -> None:
    """A CronJob keeps it under its job template, a Pod is its own template, a ConfigMap has none."""
    cron_job = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}},
    }
    assert pod_spec(cron_job) == {"containers": []}
    assert pod_spec({"apiVersion": "v1", "kind": "Pod", "spec": {"nodeName": "n"}}) == {"nodeName": "n"}
    assert pod_spec({"apiVersion": "v1", "kind": "ConfigMap"}) is None
