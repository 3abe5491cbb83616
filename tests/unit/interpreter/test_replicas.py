"""GetReplicas and ReviseReplica for the built-in workloads."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.interpreter import InterpreterError, get_replicas, revise_replica
from tests.unit.interpreter.samples import web_deployment


def _workload(api_version: str, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": spec,
    }


def _job(**spec: Any) -> dict[str, Any]:
    return _workload("batch/v1", "Job", {"template": {"spec": {"containers": [{"name": "c"}]}}, **spec})


def test_deployment_replicas_and_requirements_come_from_spec_and_pod_template() -> None:
    """A Deployment reports spec.replicas and what one of its pods needs to be scheduled."""
    result = get_replicas(web_deployment())
    assert result is not None
    assert result.replicas == 4
    assert result.requirements == {
        "nodeClaim": {
            "hardNodeAffinity": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}
                        ]
                    }
                ]
            },
            "nodeSelector": {"disktype": "ssd"},
            "tolerations": [
                {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}
            ],
        },
        "resourceRequest": {"cpu": "2", "ephemeral-storage": "2Gi", "memory": "704Mi", "nvidia.com/gpu": "1"},
        "namespace": "shop",
        "priorityClassName": "high",
    }


@pytest.mark.parametrize(("api_version", "kind"), [("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet")])
def test_replica_set_and_stateful_set_report_spec_replicas(api_version: str, kind: str) -> None:
    """ReplicaSets and StatefulSets are read like Deployments."""
    template = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
    result = get_replicas(_workload(api_version, kind, {"replicas": 3, "template": template}))
    assert result is not None
    assert (result.replicas, result.requirements) == (3, {"resourceRequest": {"cpu": "1"}, "namespace": "ns"})


def test_a_template_that_needs_nothing_has_no_requirements() -> None:
    """No requests and no node claim means no requirements, not an empty object."""
    result = get_replicas(
        _workload("apps/v1", "Deployment", {"template": {"spec": {"containers": [{"name": "c"}]}}})
    )
    assert result is not None
    assert (result.replicas, result.requirements) == (0, None)


@pytest.mark.parametrize(
    ("spec", "replicas"),
    [
        ({"parallelism": 5}, 5),
        ({"parallelism": 5, "completions": 3}, 3),
        ({"parallelism": 2, "completions": 10}, 2),
        ({}, 0),
    ],
)
def test_job_replicas_are_its_parallelism_capped_by_completions(spec: dict[str, Any], replicas: int) -> None:
    """A Job never runs more pods at once than it has completions."""
    result = get_replicas(_job(**spec))
    assert result is not None
    assert result.replicas == replicas


def test_a_pod_is_one_replica() -> None:
    """A bare Pod always counts as a single replica with its own requirements."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "250m"}}}]},
    }
    result = get_replicas(pod)
    assert result is not None
    assert (result.replicas, result.requirements) == (1, {"resourceRequest": {"cpu": "250m"}})


def test_kinds_without_replicas_are_not_workloads() -> None:
    """A ConfigMap or a custom resource has no replicas to divide."""
    assert get_replicas({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}) is None
    assert (
        get_replicas({"apiVersion": "example.com/v1", "kind": "Deployment", "spec": {"replicas": 3}}) is None
    )


def test_a_replica_count_that_is_not_an_integer_is_an_interpreter_error() -> None:
    """A malformed replica count is reported, not guessed."""
    with pytest.raises(InterpreterError, match=r"spec\.replicas"):
        get_replicas(_workload("apps/v1", "Deployment", {"replicas": "three"}))


def test_revise_replica_sets_the_replicas_of_a_copy() -> None:
    """Revising returns a new manifest and leaves the template alone."""
    template = web_deployment()
    revised = revise_replica(template, 1)
    assert revised["spec"]["replicas"] == 1
    assert template["spec"]["replicas"] == 4
    revised["spec"]["template"]["metadata"]["labels"]["changed"] = "yes"
    assert "changed" not in template["spec"]["template"]["metadata"]["labels"]


def test_revise_replica_of_a_job_sets_its_parallelism() -> None:
    """A Job's share of replicas is its parallelism; completions stay as the template says."""
    revised = revise_replica(_job(parallelism=6, completions=12), 2)
    assert (revised["spec"]["parallelism"], revised["spec"]["completions"]) == (2, 12)


def test_revise_replica_refuses_kinds_without_replicas() -> None:
    """A Pod or a ConfigMap cannot be given another replica count."""
    with pytest.raises(InterpreterError, match="cannot be revised"):
        revise_replica({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, 2)


@given(
    kind=st.sampled_from([("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet")]),
    original=st.integers(min_value=0, max_value=1000),
    revised=st.integers(min_value=0, max_value=1000),
)
def test_revised_replicas_read_back_as_revised(kind: tuple[str, str], original: int, revised: int) -> None:
    """ReviseReplica then GetReplicas returns the revised count for every replica workload."""
    workload = _workload(*kind, {"replicas": original, "template": {"spec": {"containers": [{"name": "c"}]}}})
    result = get_replicas(revise_replica(workload, revised))
    assert result is not None
    assert result.replicas == revised


@given(revised=st.integers(min_value=0, max_value=1000), spare=st.integers(min_value=0, max_value=1000))
def test_revised_job_parallelism_reads_back_while_completions_allow_it(revised: int, spare: int) -> None:
    """A Job revised to n reads back n as long as it has at least n completions."""
    result = get_replicas(revise_replica(_job(parallelism=1, completions=revised + spare), revised))
    assert result is not None
    assert result.replicas == revised
