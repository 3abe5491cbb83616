"""Object metadata is validated with kube's rules and wording, for every kind."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.fielderrors import ErrorType
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.validation import validate_create
from flotilla.apiserver.registry.validation.metadata import TOTAL_ANNOTATION_SIZE_LIMIT, validate_object_meta
from tests.unit.apiserver.registry.validation.manifests import (
    CONFIG_MAP,
    DEPLOYMENT,
    NAMESPACE,
    SERVICE,
    create_errors,
    deployment,
    meta,
    service,
    stored,
    update_errors,
)

ROLE = GroupVersionKind("rbac.authorization.k8s.io", "v1", "Role")


def config_map(**metadata: object) -> dict[str, object]:
    return {"metadata": {**meta("settings"), **metadata}, "data": {"a": "b"}}


def test_a_valid_config_map_has_no_errors() -> None:
    """Plain metadata with a subdomain name and a namespace passes."""
    assert create_errors(CONFIG_MAP, config_map()) == []


def test_name_or_generate_name_is_required() -> None:
    """A missing name is a Required error with kube's detail."""
    manifest = config_map()
    del manifest["metadata"]["name"]  # type: ignore[attr-defined]
    assert create_errors(CONFIG_MAP, manifest) == [
        "metadata.name: Required value: name or generateName is required"
    ]


def test_generate_name_may_end_with_a_dash() -> None:
    """A generateName prefix's trailing dash is masked before the name check."""
    obj = {"metadata": {"name": "web-x1", "namespace": "default", "generateName": "web-"}}
    assert validate_object_meta(obj, namespaced=True) == []


def test_most_names_must_be_dns_subdomains() -> None:
    """An upper-case ConfigMap name is Invalid with the RFC 1123 subdomain message."""
    errors = create_errors(CONFIG_MAP, config_map(name="Settings"))
    assert len(errors) == 1
    assert errors[0].startswith('metadata.name: Invalid value: "Settings": a lowercase RFC 1123 subdomain')


def test_namespace_names_must_be_dns_labels() -> None:
    """Dots are fine in subdomains but not in a Namespace's DNS-1123 label name."""
    errors = create_errors(NAMESPACE, {"metadata": {"name": "team.a"}})
    assert errors[0].startswith('metadata.name: Invalid value: "team.a": a lowercase RFC 1123 label')


def test_service_names_must_be_dns1035_labels() -> None:
    """A Service name may not start with a digit (DNS-1035)."""
    manifest = service()
    manifest["metadata"]["name"] = "1web"
    errors = create_errors(SERVICE, manifest)
    assert errors[0].startswith('metadata.name: Invalid value: "1web": a DNS-1035 label must consist')


def test_rbac_names_only_need_to_be_path_segments() -> None:
    """`system:controller:x` is a fine Role name; a slash is not."""
    role: dict[str, Any] = {"metadata": meta("system:controller:x"), "rules": []}
    assert create_errors(ROLE, role) == []
    role["metadata"]["name"] = "a/b"
    assert create_errors(ROLE, role) == ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]


def test_namespaced_kinds_require_a_namespace_and_cluster_kinds_forbid_one() -> None:
    """Namespace is Required for ConfigMaps and Forbidden for Namespaces."""
    manifest = config_map()
    del manifest["metadata"]["namespace"]  # type: ignore[attr-defined]
    assert create_errors(CONFIG_MAP, manifest) == ["metadata.namespace: Required value"]
    assert create_errors(NAMESPACE, {"metadata": {"name": "a", "namespace": "b"}}) == [
        "metadata.namespace: Forbidden: not allowed on this type"
    ]


def test_label_keys_and_values_are_checked_at_the_labels_path() -> None:
    """Bad keys and values are both reported at `metadata.labels`, without the key."""
    errors = create_errors(CONFIG_MAP, config_map(labels={"bad key": "ok", "app": "-bad"}))
    assert len(errors) == 2
    assert errors[0].startswith('metadata.labels: Invalid value: "-bad": a valid label must be')
    assert errors[1].startswith('metadata.labels: Invalid value: "bad key": name part must consist')


def test_annotations_may_not_exceed_256_kibibytes_in_total() -> None:
    """Oversized annotations give a TooLong error at `metadata.annotations`."""
    errors = create_errors(CONFIG_MAP, config_map(annotations={"big": "x" * TOTAL_ANNOTATION_SIZE_LIMIT}))
    assert errors == [
        f"metadata.annotations: Too long: must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"
    ]


def test_annotation_keys_are_case_insensitive_qualified_names() -> None:
    """Upper-case annotation prefixes are accepted because kube lower-cases them first."""
    assert create_errors(CONFIG_MAP, config_map(annotations={"Example.COM/Note": "x"})) == []


def test_owner_references_need_version_kind_name_and_uid() -> None:
    """Every empty identity field of an owner reference is its own Invalid error."""
    errors = create_errors(
        CONFIG_MAP, config_map(ownerReferences=[{"apiVersion": "apps/", "kind": "", "name": ""}])
    )
    assert errors == [
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]


def test_only_one_owner_may_be_the_controller() -> None:
    """Two controller references name both owners in the error."""
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "uid": "1", "controller": True}
    references = [{**owner, "name": "a"}, {**owner, "name": "b"}]
    errors = create_errors(CONFIG_MAP, config_map(ownerReferences=references))
    assert len(errors) == 1
    assert errors[0].endswith(
        'Only one reference can have Controller set to true. Found "true" in references for '
        "ReplicaSet/a and ReplicaSet/b"
    )


def test_events_cannot_own_objects() -> None:
    """core/v1 Events are banned owners."""
    owner = {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}
    errors = create_errors(CONFIG_MAP, config_map(ownerReferences=[owner]))
    assert errors[0].endswith("v1, Kind=Event is disallowed from being an owner")


def test_unqualified_finalizers_must_be_standard() -> None:
    """`kubernetes` is standard; `custom` is neither standard nor qualified."""
    errors = create_errors(CONFIG_MAP, config_map(finalizers=["kubernetes", "custom", "example.com/x"]))
    assert errors == [
        'metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is '
        "it "
        "fully qualified"
    ]


def test_orphan_and_foreground_finalizers_exclude_each_other() -> None:
    """Both deletion-propagation finalizers at once is Invalid."""
    errors = create_errors(CONFIG_MAP, config_map(finalizers=["orphan", "foregroundDeletion"]))
    assert errors[0].endswith("finalizer orphan and foregroundDeletion cannot be both set")


def test_identity_fields_are_immutable_on_update() -> None:
    """Changing name, namespace or uid is `field is immutable`."""
    old = stored(DEPLOYMENT, deployment())
    new = copy.deepcopy(old)
    new["metadata"].update(name="other", namespace="prod", uid="different")
    errors = update_errors(DEPLOYMENT, new, old)
    assert 'metadata.name: Invalid value: "other": field is immutable' in errors
    assert 'metadata.namespace: Invalid value: "prod": field is immutable' in errors
    assert 'metadata.uid: Invalid value: "different": field is immutable' in errors


def test_updates_without_server_set_fields_are_not_immutability_errors() -> None:
    """An update that omits uid and creationTimestamp (restored by the registry) passes."""
    old = stored(DEPLOYMENT, deployment())
    new = copy.deepcopy(old)
    del new["metadata"]["uid"], new["metadata"]["creationTimestamp"]
    assert update_errors(DEPLOYMENT, new, old) == []


def test_no_finalizers_may_be_added_while_deleting() -> None:
    """A new finalizer on an object with a deletionTimestamp is Forbidden."""
    old = stored(DEPLOYMENT, deployment())
    old["metadata"]["deletionTimestamp"] = "2024-01-02T00:00:00Z"
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = ["example.com/hold"]
    assert update_errors(DEPLOYMENT, new, old) == [
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        'found new finalizers []string{"example.com/hold"}'
    ]


def test_errors_carry_kubes_cause_reasons() -> None:
    """Causes use kube's reason strings so clients can tell Required from Invalid."""
    manifest = config_map()
    del manifest["metadata"]["name"]  # type: ignore[attr-defined]
    (error,) = validate_create(CONFIG_MAP, manifest)
    assert error.type is ErrorType.REQUIRED
    assert error.cause()["reason"] == "FieldValueRequired"
