"""Workloads default to what `kubectl get -o yaml` shows on a Kubernetes 1.32 cluster.

The golden specs below are kube-apiserver's output for the same minimal manifests (minus what other
parts of the server add: system metadata, status, admission plugins' additions).
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults, prepare_for_create

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
STATEFUL_SET = GroupVersionKind("apps", "v1", "StatefulSet")
DAEMON_SET = GroupVersionKind("apps", "v1", "DaemonSet")
REPLICA_SET = GroupVersionKind("apps", "v1", "ReplicaSet")
JOB = GroupVersionKind("batch", "v1", "Job")
CRON_JOB = GroupVersionKind("batch", "v1", "CronJob")
UID = "863452e6-270d-420e-9b94-53a54146c223"

NGINX_POD_SPEC: dict[str, Any] = {
    "containers": [
        {
            "image": "nginx",
            "imagePullPolicy": "Always",
            "name": "nginx",
            "resources": {},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
    ],
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
}


def workload(kind: str, **spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
    }
    body = {"selector": {"matchLabels": {"app": "web"}}, "template": template, **spec}
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default"},
        "spec": body,
    }


def defaulted(gvk: GroupVersionKind, manifest: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(manifest)
    prepare_for_create(gvk, result)
    return result


def test_deployment_defaults_match_kubectl_output() -> None:
    """`kubectl create deployment web --image=nginx` reads back with exactly these spec fields."""
    assert defaulted(DEPLOYMENT, workload("Deployment"))["spec"] == {
        "progressDeadlineSeconds": 600,
        "replicas": 1,
        "revisionHistoryLimit": 10,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": NGINX_POD_SPEC},
    }


def test_recreate_deployments_get_no_rolling_update_block() -> None:
    """Only RollingUpdate strategies get surge and unavailability defaults."""
    spec = defaulted(DEPLOYMENT, workload("Deployment", strategy={"type": "Recreate"}))["spec"]
    assert spec["strategy"] == {"type": "Recreate"}


def test_explicit_deployment_values_are_kept() -> None:
    """Defaults never overwrite what the user set, including zeros."""
    spec = defaulted(DEPLOYMENT, workload("Deployment", replicas=0, revisionHistoryLimit=0))["spec"]
    assert (spec["replicas"], spec["revisionHistoryLimit"]) == (0, 0)


def test_replica_set_defaults_to_one_replica() -> None:
    """ReplicaSets only gain a replica count besides the pod template defaults."""
    spec = defaulted(REPLICA_SET, workload("ReplicaSet"))["spec"]
    assert spec["replicas"] == 1
    assert spec["template"]["spec"] == NGINX_POD_SPEC
    assert set(spec) == {"replicas", "selector", "template"}


def test_stateful_set_defaults_match_kubectl_output() -> None:
    """StatefulSets default their policies, strategy and claim templates as kube does."""
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1024Mi"}}},
    }
    manifest = workload("StatefulSet", serviceName="web", volumeClaimTemplates=[claim])
    assert defaulted(STATEFUL_SET, manifest)["spec"] == {
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "podManagementPolicy": "OrderedReady",
        "replicas": 1,
        "revisionHistoryLimit": 10,
        "selector": {"matchLabels": {"app": "web"}},
        "serviceName": "web",
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": NGINX_POD_SPEC},
        "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "volumeMode": "Filesystem",
                },
                "status": {"phase": "Pending"},
            }
        ],
    }


def test_explicit_stateful_set_rolling_update_gets_no_partition_block() -> None:
    """kube adds `rollingUpdate` only when it also chose the RollingUpdate type."""
    strategy = defaulted(STATEFUL_SET, workload("StatefulSet", updateStrategy={"type": "RollingUpdate"}))[
        "spec"
    ]["updateStrategy"]
    assert strategy == {"type": "RollingUpdate"}


def test_daemon_set_defaults_match_kubectl_output() -> None:
    """DaemonSets roll one node at a time without surge."""
    spec = defaulted(DAEMON_SET, workload("DaemonSet"))["spec"]
    assert spec["updateStrategy"] == {
        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
        "type": "RollingUpdate",
    }
    assert spec["revisionHistoryLimit"] == 10
    assert "replicas" not in spec


def pi_job(**spec: Any) -> dict[str, Any]:
    template = {
        "spec": {
            "containers": [
                {"name": "pi", "image": "perl:5.34.0", "command": ["perl", "-Mbignum=bpi", "-wle"]}
            ],
            "restartPolicy": "Never",
        }
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "default", "uid": UID},
        "spec": {"template": template, "backoffLimit": 4, **spec},
    }


def test_job_defaults_and_generated_selector_match_kubectl_output() -> None:
    """The Kubernetes docs' `pi` Job reads back with these spec fields and labels."""
    job = defaulted(JOB, pi_job())
    generated = {
        "batch.kubernetes.io/controller-uid": UID,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": UID,
        "job-name": "pi",
    }
    assert job["metadata"]["labels"] == generated
    spec = job["spec"]
    assert spec["template"]["metadata"]["labels"] == generated
    del spec["template"]
    assert spec == {
        "backoffLimit": 4,
        "completionMode": "NonIndexed",
        "completions": 1,
        "manualSelector": False,
        "parallelism": 1,
        "podReplacementPolicy": "TerminatingOrFailed",
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}},
        "suspend": False,
    }


def test_job_selector_is_not_generated_without_a_uid() -> None:
    """Without a uid (not a create) there is nothing to select on, so no selector is made."""
    manifest = pi_job()
    del manifest["metadata"]["uid"]
    assert "selector" not in defaulted(JOB, manifest)["spec"]


def test_manual_job_selectors_are_left_alone() -> None:
    """`manualSelector: true` keeps the user's selector and labels."""
    manifest = pi_job(manualSelector=True, selector={"matchLabels": {"app": "pi"}})
    manifest["spec"]["template"]["metadata"] = {"labels": {"app": "pi"}}
    job = defaulted(JOB, manifest)
    assert job["spec"]["selector"] == {"matchLabels": {"app": "pi"}}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "pi"}


def test_job_parallelism_alone_leaves_completions_unset() -> None:
    """Completions default only when neither count is given (work-queue Jobs)."""
    spec = defaulted(JOB, pi_job(parallelism=3))["spec"]
    assert spec["parallelism"] == 3
    assert "completions" not in spec


def test_pod_failure_policies_change_the_replacement_default() -> None:
    """With a pod failure policy, pods are replaced only once Failed, and condition patterns default True."""
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    spec = defaulted(JOB, pi_job(podFailurePolicy=policy))["spec"]
    assert spec["podReplacementPolicy"] == "Failed"
    assert spec["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
        {"type": "DisruptionTarget", "status": "True"}
    ]


def test_per_index_backoff_makes_the_global_limit_unbounded() -> None:
    """backoffLimitPerIndex sets backoffLimit to MaxInt32 when it is absent."""
    manifest = pi_job(backoffLimitPerIndex=1, completionMode="Indexed", completions=3)
    del manifest["spec"]["backoffLimit"]
    assert defaulted(JOB, manifest)["spec"]["backoffLimit"] == 2147483647


def test_cron_job_defaults_match_kubectl_output() -> None:
    """CronJobs get their policies and history limits; the job template only gets pod defaults."""
    template = {"spec": {"containers": [{"name": "nginx", "image": "nginx"}], "restartPolicy": "OnFailure"}}
    manifest = {
        "metadata": {"name": "hello"},
        "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}},
    }
    spec = defaulted(CRON_JOB, manifest)["spec"]
    job_spec = spec.pop("jobTemplate")["spec"]
    assert spec == {
        "concurrencyPolicy": "Allow",
        "failedJobsHistoryLimit": 1,
        "schedule": "* * * * *",
        "successfulJobsHistoryLimit": 3,
        "suspend": False,
    }
    assert job_spec == {"template": {"spec": {**NGINX_POD_SPEC, "restartPolicy": "OnFailure"}}}


def test_defaulting_is_idempotent() -> None:
    """Running the defaults again (as every update does) changes nothing."""
    for gvk, manifest in (
        (DEPLOYMENT, workload("Deployment")),
        (JOB, pi_job()),
        (STATEFUL_SET, workload("StatefulSet")),
    ):
        once = defaulted(gvk, manifest)
        twice = copy.deepcopy(once)
        apply_defaults(gvk, twice)
        assert twice == once


def test_a_created_job_with_an_emptied_selector_gets_the_generated_one() -> None:
    """A Job Karmada propagates comes with the hub's generated labels stripped (`matchLabels: {}`):
    creating it generates this cluster's selector and labels, as kube's PrepareForCreate does."""
    job = pi_job(manualSelector=False, selector={"matchLabels": {}})
    apply_defaults(JOB, job)
    prepare_for_create(JOB, job)
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}}
    assert job["spec"]["template"]["metadata"]["labels"]["controller-uid"] == UID
