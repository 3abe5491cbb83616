"""Preserved state injection: the labels a failover kept reach the one cluster the workload moved to."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.work import ResourceBindingSpec
from flotilla.controllers.binding.render import BindingReference, preserved_labels, render_manifest

BINDING = BindingReference("ResourceBinding", "default", "flink-deployment", "rb-id-1")
STATE = {"example.io/failover-job-id": "job-7"}


def task(
    purge_mode: str = "Directly", before: tuple[str, ...] = ("member1",), **fields: Any
) -> dict[str, Any]:
    return {
        "fromCluster": before[0] if before else "member1",
        "reason": "ApplicationFailure",
        "producer": "resource-binding-application-failover-controller",
        "purgeMode": purge_mode,
        "preservedLabelState": dict(STATE),
        "clustersBeforeFailover": list(before),
        **fields,
    }


def spec(
    clusters: tuple[str, ...] = ("member2",), tasks: tuple[dict[str, Any], ...] = (), **more: Any
) -> ResourceBindingSpec:
    return ResourceBindingSpec.from_object(
        {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "default",
                "name": "flink",
            },
            "replicas": 1,
            "clusters": [{"name": name, "replicas": 1} for name in clusters],
            "gracefulEvictionTasks": list(tasks),
            **more,
        }
    )


def test_the_cluster_taking_over_gets_the_preserved_labels() -> None:
    """Directly purged, one target, not a cluster it ran on before: the state is handed on."""
    assert preserved_labels(spec(tasks=(task(),)), "member2") == STATE


def test_only_a_direct_purge_hands_the_state_on() -> None:
    """Gracefully and Never keep the old copy running beside the new one: no injection (Karmada's rule)."""
    for mode in ("Gracefully", "Never"):
        assert preserved_labels(spec(tasks=(task(mode),)), "member2") == {}


def test_a_workload_on_several_clusters_gets_no_injection() -> None:
    """Injection is for one copy moving to one other cluster; dependents' clusters count too."""
    assert preserved_labels(spec(("member2", "member3"), (task(),)), "member2") == {}
    required_by = [{"name": "config", "clusters": [{"name": "member3"}]}]
    assert preserved_labels(spec(tasks=(task(),), requiredBy=required_by), "member2") == {}


def test_a_cluster_it_ran_on_before_the_failover_gets_no_injection() -> None:
    """Going back to where the state came from needs no handing over."""
    assert preserved_labels(spec(("member1",), (task(before=("member1", "member3")),)), "member1") == {}


def test_the_last_task_decides() -> None:
    """After consecutive failovers the newest task's state is injected, and its purge mode rules."""
    older = task(preservedLabelState={"example.io/failover-job-id": "job-1"})
    newer = task(before=("member3",), preservedLabelState={"example.io/failover-job-id": "job-7"})
    assert preserved_labels(spec(tasks=(older, newer)), "member2") == STATE
    assert preserved_labels(spec(tasks=(task(), task("Gracefully", ("member3",)))), "member2") == {}


def test_no_task_no_injection() -> None:
    assert preserved_labels(spec(), "member2") == {}


def test_the_rendered_manifest_carries_the_labels_and_lists_them_as_managed() -> None:
    """The labels land on the member object's metadata beside Karmada's, and in managed-labels."""
    template = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "flink", "namespace": "default", "uid": "u", "labels": {"app": "flink"}},
        "spec": {"replicas": 1},
    }
    rendered = render_manifest(
        template,
        binding=BINDING,
        spec=spec(tasks=(task(),)),
        cluster={"metadata": {"name": "member2"}},
        replicas=1,
        completions=None,
        work_name="flink-1",
        work_namespace="karmada-es-member2",
    )
    metadata = rendered.manifest["metadata"]
    assert metadata["labels"]["example.io/failover-job-id"] == "job-7"
    assert metadata["labels"]["app"] == "flink"
    assert (
        "example.io/failover-job-id" in metadata["annotations"]["resourcetemplate.karmada.io/managed-labels"]
    )
    assert "example.io/failover-job-id" not in template["metadata"]["labels"]
