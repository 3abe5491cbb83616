"""Pods and pod specs are validated with kube's container, volume and update rules."""

from __future__ import annotations

import copy
from typing import Any

from tests.unit.apiserver.registry.validation.manifests import (
    POD,
    container,
    create_errors,
    pod,
    stored,
    update_errors,
)


def test_a_minimal_pod_is_valid() -> None:
    """One named container with an image is enough once defaults are applied."""
    assert create_errors(POD, pod()) == []


def test_an_undefaulted_pod_misses_the_fields_defaults_provide() -> None:
    """Validation runs after defaulting; without it kube's required enums are missing."""
    errors = create_errors(POD, pod(), default=False)
    assert "spec.restartPolicy: Required value" in errors
    assert "spec.dnsPolicy: Required value" in errors
    assert "spec.containers[0].imagePullPolicy: Required value" in errors


def test_container_names_are_dns_labels_and_unique() -> None:
    """Upper case is Invalid; a repeated name is Duplicate."""
    errors = create_errors(POD, pod(containers=[container("Web"), container("a"), container("a")]))
    assert errors[0].startswith('spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label')
    assert errors[-1] == 'spec.containers[2].name: Duplicate value: "a"'


def test_images_are_required() -> None:
    """An empty image is Required."""
    assert create_errors(POD, pod(containers=[container(image="")])) == [
        "spec.containers[0].image: Required value"
    ]


def test_container_ports_must_be_in_range_with_a_known_protocol() -> None:
    """Port 70000 is out of range; QUIC is not a protocol."""
    ports = [{"containerPort": 70000}, {"containerPort": 80, "protocol": "QUIC"}]
    assert create_errors(POD, pod(containers=[container(ports=ports)])) == [
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, "
        "inclusive",
        'spec.containers[0].ports[1].protocol: Unsupported value: "QUIC": supported values: "SCTP", "TCP", '
        '"UDP"',
    ]


def test_port_names_follow_iana_service_name_rules() -> None:
    """A port name needs a letter and at most 15 characters."""
    ports = [{"containerPort": 80, "name": "8080"}, {"containerPort": 81, "name": "a-very-long-port-name"}]
    assert create_errors(POD, pod(containers=[container(ports=ports)])) == [
        'spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)',
        'spec.containers[0].ports[1].name: Invalid value: "a-very-long-port-name": must be no more than 15 '
        "characters",
    ]


def test_host_ports_may_not_collide() -> None:
    """Two containers claiming TCP host port 80 is a Duplicate on the second."""
    ports = [{"containerPort": 80, "hostPort": 80}]
    manifest = pod(containers=[container("a", ports=ports), container("b", ports=ports)])
    assert create_errors(POD, manifest) == [
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"'
    ]


def test_requests_may_not_exceed_limits() -> None:
    """The error sits at `resources.requests` with the canonical quantities."""
    resources = {"requests": {"cpu": "2"}, "limits": {"cpu": "1500m"}}
    assert create_errors(POD, pod(containers=[container(resources=resources)])) == [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit '
        "of 1500m"
    ]


def test_malformed_quantities_are_invalid() -> None:
    """A quantity that does not parse is Invalid at its key with kube's regular expression message."""
    resources = {"requests": {"memory": "lots"}}
    errors = create_errors(POD, pod(containers=[container(resources=resources)]))
    assert errors == [
        'spec.containers[0].resources.requests[memory]: Invalid value: "lots": quantities must match the '
        "regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    ]


def test_negative_quantities_and_unknown_resources_are_invalid() -> None:
    """Negative memory and an unprefixed non-standard resource are both refused."""
    resources = {"requests": {"memory": "-1Gi", "gpu": "1"}}
    errors = create_errors(POD, pod(containers=[container(resources=resources)]))
    assert errors == [
        'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type '
        "or "
        "fully qualified",
        'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for '
        "containers",
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or '
        "equal to 0",
    ]


def test_extended_resources_are_whole_and_equal_to_their_limit() -> None:
    """`example.com/gpu` cannot be overcommitted or fractional."""
    resources = {"requests": {"example.com/gpu": "500m"}, "limits": {"example.com/gpu": "1"}}
    errors = create_errors(POD, pod(containers=[container(resources=resources)]))
    assert errors == [
        'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
        'spec.containers[0].resources.requests: Invalid value: "500m": must be equal to example.com/gpu '
        "limit of 1",
    ]


def test_mounts_must_name_a_volume_of_the_pod() -> None:
    """An unknown volume name is NotFound; a repeated mount path is Invalid."""
    mounts = [{"name": "data", "mountPath": "/data"}, {"name": "cache", "mountPath": "/data"}]
    manifest = pod(containers=[container(volumeMounts=mounts)], volumes=[{"name": "data"}])
    assert create_errors(POD, manifest) == [
        'spec.containers[0].volumeMounts[1].name: Not found: "cache"',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
    ]


def test_volume_sources_are_checked() -> None:
    """A secret volume needs a secret name; two sources in one volume are Forbidden."""
    volumes = [{"name": "a", "secret": {}}, {"name": "b", "emptyDir": {}, "configMap": {"name": "c"}}]
    assert create_errors(POD, pod(volumes=volumes)) == [
        "spec.volumes[0].secret.secretName: Required value",
        "spec.volumes[1].configMap: Forbidden: may not specify more than 1 volume type",
    ]


def test_volume_names_are_unique_dns_labels() -> None:
    """A repeated volume name is a Duplicate."""
    volumes = [{"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}]
    assert create_errors(POD, pod(volumes=volumes)) == ['spec.volumes[1].name: Duplicate value: "a"']


def test_item_paths_must_stay_inside_the_volume() -> None:
    """Absolute item paths and `..` segments are refused."""
    items = [{"key": "a", "path": "/etc/passwd"}, {"key": "b", "path": "x/../../y"}]
    volumes = [{"name": "cfg", "configMap": {"name": "c", "items": items, "defaultMode": 0o1000}}]
    assert create_errors(POD, pod(volumes=volumes)) == [
        "spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 "
        "(octal), "
        "both inclusive",
        'spec.volumes[0].configMap.items[0].path: Invalid value: "/etc/passwd": must be a relative path',
        "spec.volumes[0].configMap.items[1].path: Invalid value: \"x/../../y\": must not contain '..'",
    ]


def test_env_value_from_needs_exactly_one_source() -> None:
    """`value` together with `valueFrom` is Invalid, as is an empty `valueFrom`."""
    env = [
        {"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "B", "valueFrom": {}},
    ]
    assert create_errors(POD, pod(containers=[container(env=env)])) == [
        'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not '
        "empty",
        'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, '
        "`resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
    ]


def test_downward_api_field_paths_are_checked() -> None:
    """Unsupported field paths are NotSupported; label subscripts are allowed."""
    env = [
        {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
        {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "spec.restartPolicy"}}},
        {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "spec.nope"}}},
    ]
    errors = create_errors(POD, pod(containers=[container(env=env)]))
    assert errors[0].startswith(
        'spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.restartPolicy"'
    )
    assert errors[1] == (
        'spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nope": error '
        "converting "
        "fieldPath: field label not supported: spec.nope"
    )


def test_environment_variable_names_may_not_contain_equals() -> None:
    """Relaxed names allow dots and dashes but not `=`."""
    env = [{"name": "my.var-1", "value": "ok"}, {"name": "A=B", "value": "x"}]
    assert create_errors(POD, pod(containers=[container(env=env)])) == [
        'spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must '
        "consist "
        "only of printable ASCII characters other than '='"
    ]


def test_probes_need_exactly_one_handler() -> None:
    """A probe without an action is Required; a second action is Forbidden."""
    probes: dict[str, Any] = {
        "livenessProbe": {"periodSeconds": 5},
        "readinessProbe": {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}},
    }
    assert create_errors(POD, pod(containers=[container(**probes)])) == [
        "spec.containers[0].livenessProbe: Required value: must specify a handler type",
        "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
    ]


def test_liveness_probes_need_a_success_threshold_of_one() -> None:
    """Liveness success thresholds other than 1 are Invalid."""
    probe = {"httpGet": {"port": "http"}, "successThreshold": 2}
    assert create_errors(POD, pod(containers=[container(livenessProbe=probe)])) == [
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
    ]


def test_restart_policy_is_an_enum() -> None:
    """An unknown restartPolicy lists the three supported values."""
    assert create_errors(POD, pod(restartPolicy="Sometimes")) == [
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'
    ]


def test_init_containers_without_restart_always_may_not_have_probes() -> None:
    """Probes on an ordinary init container are Forbidden."""
    init = container("init", readinessProbe={"exec": {"command": ["true"]}})
    assert create_errors(POD, pod(initContainers=[init])) == [
        "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without "
        "restartPolicy=Always"
    ]


def test_init_container_names_may_not_repeat_regular_ones() -> None:
    """Names are unique across init and regular containers."""
    assert create_errors(POD, pod(initContainers=[container("web")])) == [
        'spec.initContainers[0].name: Duplicate value: "web"'
    ]


def test_tolerations_follow_kubes_operator_rules() -> None:
    """An empty key needs Exists; Exists takes no value; tolerationSeconds needs NoExecute."""
    tolerations = [
        {"operator": "Equal", "value": "x"},
        {"key": "k", "operator": "Exists", "value": "v"},
        {"key": "k", "tolerationSeconds": 5, "effect": "NoSchedule"},
    ]
    errors = create_errors(POD, pod(tolerations=tolerations))
    assert errors[0] == (
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
        'which means "match all values and all keys"'
    )
    assert errors[1].endswith("value must be empty when `operator` is 'Exists'")
    assert errors[2] == (
        "spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set"
    )


def test_dns_policy_none_requires_nameservers() -> None:
    """`dnsPolicy: None` without `dnsConfig` is Required."""
    assert create_errors(POD, pod(dnsPolicy="None")) == [
        "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"
    ]


def test_active_deadline_must_be_positive() -> None:
    """Zero is outside 1..MaxInt32."""
    assert create_errors(POD, pod(activeDeadlineSeconds=0)) == [
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"
    ]


def test_ephemeral_containers_cannot_be_set_on_create() -> None:
    """Ephemeral containers only arrive through their subresource."""
    errors = create_errors(POD, pod(ephemeralContainers=[container("debug")]))
    assert "spec.ephemeralContainers: Forbidden: cannot be set on create" in errors


def _stored_pod(**spec: Any) -> dict[str, Any]:
    return stored(POD, pod(**spec))


def test_pod_updates_may_change_images() -> None:
    """A new image is one of the few things a pod update may change."""
    old = _stored_pod()
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert update_errors(POD, new, old) == []


def test_pod_updates_may_not_change_other_spec_fields() -> None:
    """Changing the restart policy is Forbidden with kube's list of mutable fields."""
    old = _stored_pod()
    new = copy.deepcopy(old)
    new["spec"]["restartPolicy"] = "Never"
    (error,) = update_errors(POD, new, old)
    assert error.startswith(
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
        "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)"
    )
    assert "spec.restartPolicy" in error


def test_pod_updates_may_not_add_containers() -> None:
    """Adding a container is Forbidden at `spec.containers`."""
    old = _stored_pod()
    new = copy.deepcopy(old)
    new["spec"]["containers"].append(container("sidecar"))
    assert "spec.containers: Forbidden: pod updates may not add or remove containers" in update_errors(
        POD, new, old
    )


def test_active_deadline_may_only_shrink() -> None:
    """Raising activeDeadlineSeconds is Invalid; lowering it is fine."""
    old = _stored_pod(activeDeadlineSeconds=100)
    longer, shorter = copy.deepcopy(old), copy.deepcopy(old)
    longer["spec"]["activeDeadlineSeconds"] = 200
    shorter["spec"]["activeDeadlineSeconds"] = 50
    assert update_errors(POD, longer, old) == [
        "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"
    ]
    assert update_errors(POD, shorter, old) == []


def test_tolerations_may_be_added_but_not_changed() -> None:
    """Appending a toleration passes; altering an existing one is Forbidden."""
    old = _stored_pod(tolerations=[{"key": "a", "operator": "Exists"}])
    added, changed = copy.deepcopy(old), copy.deepcopy(old)
    added["spec"]["tolerations"].append({"key": "b", "operator": "Exists"})
    changed["spec"]["tolerations"][0]["key"] = "z"
    assert update_errors(POD, added, old) == []
    assert update_errors(POD, changed, old) == [
        "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    ]
