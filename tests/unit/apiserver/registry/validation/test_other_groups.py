"""HPAs, disruption budgets, priority classes, leases, CSRs, CRDs, events and storage validate as in kube."""

from __future__ import annotations

import base64
import copy
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import create_errors, meta, stored, update_errors

HPA = GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler")
PDB = GroupVersionKind("policy", "v1", "PodDisruptionBudget")
PRIORITY_CLASS = GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
CSR = GroupVersionKind("certificates.k8s.io", "v1", "CertificateSigningRequest")
CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
EVENT = GroupVersionKind("events.k8s.io", "v1", "Event")
PVC = GroupVersionKind("", "v1", "PersistentVolumeClaim")
STORAGE_CLASS = GroupVersionKind("storage.k8s.io", "v1", "StorageClass")


def hpa(**spec: Any) -> dict[str, Any]:
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    return {"metadata": meta(), "spec": {"scaleTargetRef": target, "maxReplicas": 5, **spec}}


def test_a_minimal_hpa_is_valid() -> None:
    """A target and a maximum are enough; the CPU metric is defaulted."""
    assert create_errors(HPA, hpa()) == []


def test_hpa_max_replicas_must_cover_min_replicas() -> None:
    """maxReplicas below minReplicas is Invalid with kube's wording."""
    assert create_errors(HPA, hpa(minReplicas=3, maxReplicas=2)) == [
        "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
    ]


def test_hpa_metrics_need_the_source_their_type_names() -> None:
    """A Resource metric without `resource` is Required; an unknown type is NotSupported."""
    errors = create_errors(HPA, hpa(metrics=[{"type": "Resource"}, {"type": "Magic"}]))
    assert errors == [
        "spec.metrics[0].resource: Required value: must populate information for the given metric source",
        'spec.metrics[1].type: Unsupported value: "Magic": supported values: "ContainerResource", '
        '"External", '
        '"Object", "Pods", "Resource"',
    ]


def test_hpa_scaling_policies_are_bounded() -> None:
    """A policy period over 30 minutes is Invalid."""
    behavior = {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 3600}]}}
    assert create_errors(HPA, hpa(behavior=behavior)) == [
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 3600: must be less than or equal "
        "to 1800"
    ]


def test_disruption_budgets_set_one_bound_only() -> None:
    """minAvailable and maxUnavailable together are Invalid at `spec`."""
    manifest = {"metadata": meta(), "spec": {"minAvailable": 1, "maxUnavailable": "50%"}}
    (error,) = create_errors(PDB, manifest)
    assert error.startswith("spec: Invalid value: {")
    assert error.endswith("minAvailable and maxUnavailable cannot be both set")


def test_user_priority_classes_are_capped_at_one_billion() -> None:
    """Higher values are reserved for system classes."""
    manifest = {"metadata": meta("urgent", namespace=None), "value": 2_000_000_000}
    assert create_errors(PRIORITY_CLASS, manifest) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
    ]


def test_priority_class_values_cannot_change() -> None:
    """The value is fixed after creation."""
    old = stored(PRIORITY_CLASS, {"metadata": meta("high", namespace=None), "value": 1000})
    new = copy.deepcopy(old)
    new["value"] = 2000
    assert update_errors(PRIORITY_CLASS, new, old) == ["value: Forbidden: may not be changed in an update."]


def test_lease_durations_must_be_positive() -> None:
    """A zero-second lease is Invalid."""
    manifest = {"metadata": meta("leader"), "spec": {"leaseDurationSeconds": 0}}
    assert create_errors(LEASE, manifest) == [
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"
    ]


def certificate_request() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    request = (
        x509.CertificateSigningRequestBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "system:node:n1")]))
        .sign(key, hashes.SHA256())
    )
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


def csr(**spec: Any) -> dict[str, Any]:
    body = {
        "request": certificate_request(),
        "signerName": "kubernetes.io/kube-apiserver-client",
        "usages": ["client auth"],
        **spec,
    }
    return {"metadata": meta("node-csr-1", namespace=None), "spec": body}


def test_a_signed_certificate_request_is_valid() -> None:
    """A PEM CSR with a known signer and usage passes."""
    assert create_errors(CSR, csr()) == []


def test_certificate_requests_must_be_pem_csrs() -> None:
    """Arbitrary bytes are refused with kube's PEM message."""
    encoded = base64.b64encode(b"hello").decode()
    assert create_errors(CSR, csr(request=encoded)) == [
        f'spec.request: Invalid value: "{encoded}": PEM block type must be CERTIFICATE REQUEST'
    ]


def test_csr_usages_and_signer_are_checked() -> None:
    """Unknown and repeated usages, and a signer without a path, are refused."""
    errors = create_errors(
        CSR, csr(usages=["client auth", "client auth", "telepathy"], signerName="example.com")
    )
    assert errors[0] == 'spec.usages[1]: Duplicate value: "client auth"'
    assert errors[1].startswith('spec.usages[2]: Unsupported value: "telepathy": supported values: "any"')
    assert errors[2] == (
        'spec.signerName: Invalid value: "example.com": must be a fully qualified domain and path of the '
        "form "
        "'example.com/signer-name'"
    )


def crd(**overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "group": "stable.example.com",
        "scope": "Namespaced",
        "names": {"plural": "crontabs", "kind": "CronTab"},
        "versions": [{"name": "v1", "served": True, "storage": True}],
        **overrides,
    }
    return {"metadata": {"name": "crontabs.stable.example.com"}, "spec": spec}


def test_a_minimal_crd_is_valid_after_defaulting() -> None:
    """singular and listKind are defaulted from the kind."""
    assert create_errors(CRD, crd()) == []


def test_crd_names_are_plural_dot_group() -> None:
    """Any other name is Invalid with kube's formula."""
    manifest = crd()
    manifest["metadata"]["name"] = "crontab.stable.example.com"
    assert create_errors(CRD, manifest) == [
        'metadata.name: Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group'
    ]


def test_crd_groups_need_a_dot_and_one_storage_version() -> None:
    """A dotless group and two storage versions are both refused."""
    versions = [
        {"name": "v1", "served": True, "storage": True},
        {"name": "v2", "served": True, "storage": True},
    ]
    manifest = crd(group="stable", versions=versions)
    manifest["metadata"]["name"] = "crontabs.stable"
    errors = create_errors(CRD, manifest)
    assert errors[0] == 'spec.group: Invalid value: "stable": should be a domain with at least one dot'
    assert errors[1].endswith("must have exactly one version marked as storage version")


def test_crd_group_and_plural_never_change() -> None:
    """Renaming the resource of a stored CRD is immutable."""
    old = stored(CRD, crd())
    new = copy.deepcopy(old)
    new["spec"]["names"]["plural"] = "crons"
    assert 'spec.names.plural: Invalid value: "crons": field is immutable' in update_errors(CRD, new, old)


def test_new_style_events_need_their_reporting_fields() -> None:
    """events.k8s.io Events need eventTime, a reporter and a Normal/Warning type."""
    event = {"metadata": meta("web.1"), "regarding": {"kind": "Pod", "namespace": "default", "name": "web"}}
    errors = create_errors(EVENT, event)
    assert "eventTime: Required value" in errors
    assert 'type: Invalid value: "": has invalid value: ' in errors


def test_claims_need_access_modes_and_a_storage_request() -> None:
    """An empty claim spec gives both Required errors."""
    assert create_errors(PVC, {"metadata": meta("data"), "spec": {}}) == [
        "spec.accessModes: Required value: at least 1 access mode is required",
        "spec.resources[storage]: Required value",
    ]


def test_bound_claims_may_grow_but_not_shrink() -> None:
    """A bigger request on a bound claim passes; a smaller one is Forbidden."""
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    old = stored(PVC, {"metadata": meta("data"), "spec": spec})
    old["status"] = {"phase": "Bound"}
    grown, shrunk = copy.deepcopy(old), copy.deepcopy(old)
    grown["spec"]["resources"]["requests"]["storage"] = "2Gi"
    shrunk["spec"]["resources"]["requests"]["storage"] = "512Mi"
    assert update_errors(PVC, grown, old) == []
    assert update_errors(PVC, shrunk, old) == [
        "spec.resources.requests.storage: Forbidden: field can not be less than previous value"
    ]


def test_storage_class_parameters_are_frozen() -> None:
    """Parameters cannot change once the class exists."""
    old = stored(STORAGE_CLASS, {"metadata": meta("fast", namespace=None), "provisioner": "example.com/ssd"})
    new = copy.deepcopy(old)
    new["parameters"] = {"tier": "gold"}
    assert update_errors(STORAGE_CLASS, new, old) == [
        "parameters: Forbidden: updates to parameters are forbidden."
    ]
