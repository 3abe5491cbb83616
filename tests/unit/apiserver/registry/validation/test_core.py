"""ConfigMaps, Secrets, Namespaces, Nodes, Endpoints, controllers and quotas validate as in kube."""

from __future__ import annotations

import base64
import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import (
    CONFIG_MAP,
    NAMESPACE,
    SECRET,
    create_errors,
    meta,
    pod_template,
    stored,
    update_errors,
)

NODE = GroupVersionKind("", "v1", "Node")
ENDPOINTS = GroupVersionKind("", "v1", "Endpoints")
REPLICATION_CONTROLLER = GroupVersionKind("", "v1", "ReplicationController")
LIMIT_RANGE = GroupVersionKind("", "v1", "LimitRange")
RESOURCE_QUOTA = GroupVersionKind("", "v1", "ResourceQuota")
EVENT = GroupVersionKind("", "v1", "Event")


def encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def config_map(**body: Any) -> dict[str, Any]:
    return {"metadata": meta("settings"), **body}


def secret(**body: Any) -> dict[str, Any]:
    return {"metadata": meta("creds"), **body}


def test_config_map_keys_must_look_like_file_names() -> None:
    """A key with a slash is Invalid at `data[key]`."""
    errors = create_errors(CONFIG_MAP, config_map(data={"a/b": "x", "ok.txt": "y"}))
    assert errors == [
        "data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', "
        "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')"
    ]


def test_config_map_keys_may_not_repeat_across_data_and_binary_data() -> None:
    """The same key in both maps is Invalid."""
    errors = create_errors(CONFIG_MAP, config_map(data={"k": "x"}, binaryData={"k": encoded("y")}))
    assert errors == ['data[k]: Invalid value: "k": duplicate of key present in binaryData']


def test_config_maps_hold_at_most_one_mebibyte() -> None:
    """Oversized data is TooLong at the object itself."""
    errors = create_errors(CONFIG_MAP, config_map(data={"big": "x" * (1024 * 1024 + 1)}))
    assert errors == ["Too long: must have at most 1048576 bytes"]


def test_immutable_config_maps_keep_their_data() -> None:
    """Changing data or unsetting `immutable` is Forbidden once set."""
    old = stored(CONFIG_MAP, config_map(data={"a": "1"}, immutable=True))
    new = copy.deepcopy(old)
    new["data"]["a"] = "2"
    new["immutable"] = False
    assert update_errors(CONFIG_MAP, new, old) == [
        "immutable: Forbidden: field is immutable when `immutable` is set",
        "data: Forbidden: field is immutable when `immutable` is set",
    ]


def test_mutable_config_maps_may_change() -> None:
    """Without `immutable`, data changes are ordinary updates."""
    old = stored(CONFIG_MAP, config_map(data={"a": "1"}))
    new = copy.deepcopy(old)
    new["data"]["a"] = "2"
    assert update_errors(CONFIG_MAP, new, old) == []


def test_tls_secrets_need_a_certificate_and_a_key() -> None:
    """`kubernetes.io/tls` requires `tls.crt` and `tls.key`."""
    assert create_errors(SECRET, secret(type="kubernetes.io/tls", data={})) == [
        "data[tls.crt]: Required value",
        "data[tls.key]: Required value",
    ]


def test_docker_config_secrets_must_hold_json() -> None:
    """Malformed `.dockerconfigjson` is Invalid with its contents redacted."""
    manifest = secret(type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": encoded("{not json")})
    (error,) = create_errors(SECRET, manifest)
    assert error.startswith('data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": ')


def test_service_account_token_secrets_name_their_account() -> None:
    """The service account annotation is Required."""
    assert create_errors(SECRET, secret(type="kubernetes.io/service-account-token")) == [
        "metadata.annotations[kubernetes.io/service-account.name]: Required value"
    ]


def test_secret_type_is_immutable() -> None:
    """Changing the type of a stored Secret is `field is immutable`."""
    old = stored(SECRET, secret(data={"a": encoded("1")}))
    new = copy.deepcopy(old)
    new["type"] = "example.com/custom"
    assert update_errors(SECRET, new, old) == [
        'type: Invalid value: "example.com/custom": field is immutable'
    ]


def test_string_data_counts_as_data() -> None:
    """`stringData` is folded into `data` before validation, so keys are checked there."""
    assert create_errors(SECRET, secret(stringData={"bad key": "v"}))[0].startswith(
        "data[bad key]: Invalid value"
    )


def test_namespace_finalizers_must_be_qualified_or_standard() -> None:
    """`spec.finalizers` follows the metadata finalizer rules."""
    errors = create_errors(NAMESPACE, {"metadata": {"name": "team-a"}, "spec": {"finalizers": ["custom"]}})
    assert errors == [
        'spec.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it '
        "fully qualified"
    ]


def test_node_taints_are_unique_by_key_and_effect() -> None:
    """kube reports taint problems under `metadata.taints`."""
    taints = [{"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoSchedule"}, {"key": "b"}]
    errors = create_errors(NODE, {"metadata": {"name": "node-1"}, "spec": {"taints": taints}})
    assert errors == [
        'metadata.taints[1]: Duplicate value: {"effect":"NoSchedule","key":"a"}: taints must be unique by '
        "key "
        "and effect pair",
        "metadata.taints[2].effect: Required value",
    ]


def test_nodes_may_only_change_mutable_spec_fields() -> None:
    """Taints may change; the pod CIDR may not once set."""
    old = stored(
        NODE, {"metadata": {"name": "n"}, "spec": {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]}}
    )
    tainted, moved = copy.deepcopy(old), copy.deepcopy(old)
    tainted["spec"]["taints"] = [{"key": "k", "effect": "NoExecute"}]
    moved["spec"]["podCIDRs"] = ["10.0.1.0/24"]
    assert update_errors(NODE, tainted, old) == []
    assert update_errors(NODE, moved, old) == [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'
    ]


def test_endpoint_addresses_must_be_routable_ips() -> None:
    """A loopback address is refused and a subset needs addresses."""
    subsets = [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": 80}]}, {"ports": [{"port": 80}]}]
    errors = create_errors(ENDPOINTS, {"metadata": meta(), "subsets": subsets})
    assert errors == [
        'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range '
        "(127.0.0.0/8, ::1/128)",
        "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`",
    ]


def test_replication_controller_selector_defaults_from_the_template() -> None:
    """The selector and labels come from the template, so a bare RC validates."""
    manifest = {"metadata": meta(), "spec": {"template": pod_template()}}
    assert create_errors(REPLICATION_CONTROLLER, manifest) == []


def test_replication_controller_templates_must_match_the_selector() -> None:
    """A selector the template does not satisfy is Invalid at the template labels."""
    manifest = {"metadata": meta(), "spec": {"selector": {"app": "x"}, "template": pod_template()}}
    assert create_errors(REPLICATION_CONTROLLER, manifest) == [
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template '
        "`labels`"
    ]


def test_limit_range_minimums_may_not_exceed_maximums() -> None:
    """min > max is Invalid with both canonical quantities in the message."""
    limits = [{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1000m"}}]
    errors = create_errors(LIMIT_RANGE, {"metadata": meta("limits"), "spec": {"limits": limits}})
    assert 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1' in errors


def test_pod_limit_ranges_may_not_set_defaults() -> None:
    """Pod-level limit ranges have no per-container defaults."""
    limits = [{"type": "Pod", "max": {"cpu": "2"}, "default": {"cpu": "1"}}]
    errors = create_errors(LIMIT_RANGE, {"metadata": meta("limits"), "spec": {"limits": limits}})
    assert errors == ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]


def test_resource_quotas_need_standard_or_qualified_resources() -> None:
    """`pods` must be whole and `widgets` is not a quota resource."""
    hard = {"pods": "1500m", "widgets": "1", "count/deployments.apps": "3"}
    errors = create_errors(RESOURCE_QUOTA, {"metadata": meta("quota"), "spec": {"hard": hard}})
    assert errors == [
        'spec.hard[pods]: Invalid value: "1500m": must be an integer',
        'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
    ]


def test_legacy_events_must_match_their_involved_object_namespace() -> None:
    """An event about an object in another namespace is refused."""
    event = {
        "metadata": meta("web.1"),
        "involvedObject": {"kind": "Pod", "namespace": "other", "name": "web"},
    }
    assert create_errors(EVENT, event) == [
        'involvedObject.namespace: Invalid value: "other": does not match event.namespace'
    ]
