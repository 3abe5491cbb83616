"""Deployments, ReplicaSets, StatefulSets and DaemonSets are validated as kube-apiserver validates them."""

from __future__ import annotations

import copy

import pytest

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import (
    DAEMON_SET,
    DEPLOYMENT,
    REPLICA_SET,
    STATEFUL_SET,
    container,
    create_errors,
    daemon_set,
    deployment,
    pod_template,
    replica_set,
    stateful_set,
    stored,
    update_errors,
)

MISMATCH = "`selector` does not match template `labels`"


@pytest.mark.parametrize(
    ("gvk", "manifest"),
    [
        (DEPLOYMENT, deployment()),
        (REPLICA_SET, replica_set()),
        (STATEFUL_SET, stateful_set()),
        (DAEMON_SET, daemon_set()),
    ],
)
def test_minimal_workloads_are_valid_after_defaulting(
    gvk: GroupVersionKind, manifest: dict[str, object]
) -> None:
    """A selector, matching template labels and one container is all a workload needs."""
    assert create_errors(gvk, manifest) == []


def test_negative_replicas_are_invalid() -> None:
    """The message is kube's, value unquoted."""
    assert create_errors(DEPLOYMENT, deployment(replicas=-1)) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    ]


def test_template_labels_must_match_the_selector() -> None:
    """A template the selector would not select is reported at its labels."""
    manifest = deployment(template=pod_template(labels={"app": "other"}))
    assert create_errors(DEPLOYMENT, manifest) == [
        f'spec.template.metadata.labels: Invalid value: {{"app":"other"}}: {MISMATCH}'
    ]


def test_a_selector_is_required() -> None:
    """Without a selector kube reports the missing selector and the unselected template."""
    manifest = deployment()
    del manifest["spec"]["selector"]
    assert create_errors(DEPLOYMENT, manifest) == [
        "spec.selector: Required value",
        f'spec.template.metadata.labels: Invalid value: {{"app":"web"}}: {MISMATCH}',
    ]


def test_an_empty_selector_is_invalid() -> None:
    """`selector: {}` would select every pod in the namespace."""
    errors = create_errors(DEPLOYMENT, deployment(selector={}))
    assert errors == ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]


def test_replica_sets_reuse_the_deployment_wording() -> None:
    """kube's ReplicaSet validation says "deployment" too; so do we."""
    assert create_errors(REPLICA_SET, replica_set(selector={})) == [
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment"
    ]


def test_selector_expressions_are_validated() -> None:
    """An unknown operator is Invalid at its expression."""
    selector = {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "Near"}]}
    errors = create_errors(DEPLOYMENT, deployment(selector=selector))
    assert (
        'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'
        in errors
    )


def test_workload_pods_must_restart_always() -> None:
    """Only `Always` is supported in a Deployment's pod template."""
    manifest = deployment(template=pod_template(restartPolicy="OnFailure"))
    assert create_errors(DEPLOYMENT, manifest) == [
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'
    ]


def test_at_least_one_container_is_required() -> None:
    """An empty container list is Required at `spec.template.spec.containers`."""
    manifest = deployment(template=pod_template(containers=[]))
    assert create_errors(DEPLOYMENT, manifest) == ["spec.template.spec.containers: Required value"]


def test_template_label_problems_are_reported_under_template_labels() -> None:
    """kube reports pod template labels at `spec.template.labels` (sic)."""
    labels = {"app": "web", "bad/key/x": "1"}
    errors = create_errors(DEPLOYMENT, deployment(template=pod_template(labels=labels)))
    assert errors
    assert all(error.startswith("spec.template.labels: Invalid value:") for error in errors)


def test_max_surge_and_max_unavailable_may_not_both_be_zero() -> None:
    """A rolling update that can make no progress is refused at maxUnavailable."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}
    assert create_errors(DEPLOYMENT, deployment(strategy=strategy)) == [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0'
    ]


def test_percentages_must_be_well_formed_and_at_most_100() -> None:
    """`25` as a string is not a percentage; `120%` is too much to be unavailable."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25", "maxUnavailable": "120%"}}
    errors = create_errors(DEPLOYMENT, deployment(strategy=strategy))
    assert errors == [
        'spec.strategy.rollingUpdate.maxSurge: Invalid value: "25": a valid percent string must be a numeric '
        "string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%',
    ]


def test_recreate_strategy_forbids_rolling_update_settings() -> None:
    """`rollingUpdate` with `type: Recreate` is Forbidden."""
    strategy = {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}
    assert create_errors(DEPLOYMENT, deployment(strategy=strategy)) == [
        "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
    ]


def test_unknown_strategy_types_are_unsupported() -> None:
    """An unknown type is NotSupported at `spec.strategy` listing both types."""
    errors = create_errors(DEPLOYMENT, deployment(strategy={"type": "BlueGreen"}))
    assert errors == [
        'spec.strategy: Unsupported value: {"type":"BlueGreen"}: supported values: "Recreate", '
        '"RollingUpdate"'
    ]


def test_progress_deadline_must_exceed_min_ready_seconds() -> None:
    """progressDeadlineSeconds ≤ minReadySeconds can never be met."""
    errors = create_errors(DEPLOYMENT, deployment(minReadySeconds=600, progressDeadlineSeconds=600))
    assert errors == [
        "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"
    ]


def test_deployment_selector_is_immutable() -> None:
    """apps/v1 selectors never change after creation."""
    old = stored(DEPLOYMENT, deployment())
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "web2"}}
    new["spec"]["template"]["metadata"]["labels"] = {"app": "web2"}
    assert update_errors(DEPLOYMENT, new, old) == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable'
    ]


def test_deployment_image_and_replica_updates_are_allowed() -> None:
    """Scaling and rolling out a new image are ordinary updates."""
    old = stored(DEPLOYMENT, deployment())
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 5
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert update_errors(DEPLOYMENT, new, old) == []


def test_stateful_set_names_must_be_dns_labels() -> None:
    """Pod hostnames derive from the name, so dots are refused."""
    manifest = stateful_set()
    manifest["metadata"]["name"] = "db.primary"
    errors = create_errors(STATEFUL_SET, manifest)
    assert errors[0].startswith('metadata.name: Invalid value: "db.primary": a lowercase RFC 1123 label')


def test_stateful_set_pod_management_policy_is_an_enum() -> None:
    """Anything but OrderedReady or Parallel is Invalid with kube's sentence."""
    errors = create_errors(STATEFUL_SET, stateful_set(podManagementPolicy="Random"))
    assert errors == [
        "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"
    ]


def test_stateful_set_updates_outside_the_mutable_fields_are_forbidden() -> None:
    """Changing serviceName after creation is refused with kube's list of mutable fields."""
    old = stored(STATEFUL_SET, stateful_set())
    new = copy.deepcopy(old)
    new["spec"]["serviceName"] = "other"
    assert update_errors(STATEFUL_SET, new, old) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', "
        "'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    ]


def test_stateful_set_template_and_replicas_may_change() -> None:
    """Scaling and changing the pod template are allowed."""
    old = stored(STATEFUL_SET, stateful_set())
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 3
    new["spec"]["template"]["spec"]["containers"].append(container("sidecar"))
    assert update_errors(STATEFUL_SET, new, old) == []


def test_stateful_set_max_unavailable_cannot_be_zero() -> None:
    """A rolling update with maxUnavailable 0 can never make progress."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0}}
    errors = create_errors(STATEFUL_SET, stateful_set(updateStrategy=strategy))
    assert errors == ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"]


def test_daemon_sets_may_not_surge_and_be_unavailable_at_once() -> None:
    """Exactly one of maxSurge and maxUnavailable is non-zero for DaemonSets."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}
    assert create_errors(DAEMON_SET, daemon_set(updateStrategy=strategy)) == [
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable "
        "is non-zero"
    ]


def test_daemon_sets_need_one_of_surge_or_unavailable() -> None:
    """Both zero is Required at maxUnavailable."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}
    assert create_errors(DAEMON_SET, daemon_set(updateStrategy=strategy)) == [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"
    ]


def test_daemon_set_selector_is_immutable() -> None:
    """DaemonSet selectors are frozen like Deployments'."""
    old = stored(DAEMON_SET, daemon_set())
    new = copy.deepcopy(old)
    new["spec"]["selector"]["matchLabels"]["tier"] = "x"
    new["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    errors = update_errors(DAEMON_SET, new, old)
    assert errors == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable'
    ]


def test_active_deadline_is_not_supported_in_workload_templates() -> None:
    """Long-running pods of a ReplicaSet may not have a deadline."""
    manifest = replica_set(template=pod_template(activeDeadlineSeconds=60))
    assert create_errors(REPLICA_SET, manifest) == [
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not "
        "Supported"
    ]
