"""The built-in resource types the API server serves, as Kubernetes 1.32 publishes them in discovery."""

from __future__ import annotations

from flotilla.api.scheme import GroupResource, GroupVersionKind, ResourceType, Subresource

STATUS = Subresource("status", ("get", "patch", "update"))
SCALE = Subresource("scale", ("get", "patch", "update"), GroupVersionKind("autoscaling", "v1", "Scale"))
NAMESPACE_FINALIZE = Subresource("finalize", ("update",))
CSR_APPROVAL = Subresource("approval", ("get", "patch", "update"))
BINDING = Subresource("binding", ("create",), GroupVersionKind("", "v1", "Binding"))
TOKEN = Subresource("token", ("create",), GroupVersionKind("authentication.k8s.io", "v1", "TokenRequest"))
NO_DELETECOLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")

POD_FIELDS = (
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
)
EVENT_FIELDS = (
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
)


def _r(
    group: str,
    version: str,
    kind: str,
    plural: str,
    *,
    namespaced: bool = True,
    short: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    sub: tuple[Subresource, ...] = (),
    verbs: tuple[str, ...] | None = None,
    fields: tuple[str, ...] = (),
    storage: GroupResource | None = None,
) -> ResourceType:
    kwargs = {} if verbs is None else {"verbs": verbs}
    return ResourceType(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        singular=kind.lower(),
        namespaced=namespaced,
        short_names=short,
        categories=categories,
        subresources=sub,
        field_selectors=fields,
        storage_resource=storage,
        **kwargs,  # type: ignore[arg-type]
    )


ALL = ("all",)

BUILTIN_RESOURCES: tuple[ResourceType, ...] = (
    # core/v1
    _r(
        "",
        "v1",
        "Namespace",
        "namespaces",
        namespaced=False,
        short=("ns",),
        sub=(STATUS, NAMESPACE_FINALIZE),
        verbs=NO_DELETECOLLECTION,
        fields=("status.phase",),
    ),
    _r("", "v1", "ConfigMap", "configmaps", short=("cm",)),
    _r("", "v1", "Secret", "secrets", fields=("type",)),
    _r(
        "",
        "v1",
        "Service",
        "services",
        short=("svc",),
        categories=ALL,
        sub=(STATUS,),
        verbs=NO_DELETECOLLECTION,
    ),
    _r("", "v1", "ServiceAccount", "serviceaccounts", short=("sa",), sub=(TOKEN,)),
    _r("", "v1", "Pod", "pods", short=("po",), categories=ALL, sub=(BINDING, STATUS), fields=POD_FIELDS),
    _r(
        "",
        "v1",
        "Node",
        "nodes",
        namespaced=False,
        short=("no",),
        sub=(STATUS,),
        fields=("spec.unschedulable",),
    ),
    _r("", "v1", "Event", "events", short=("ev",), fields=EVENT_FIELDS),
    _r("", "v1", "Endpoints", "endpoints", short=("ep",)),
    _r("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", short=("pvc",), sub=(STATUS,)),
    _r("", "v1", "PersistentVolume", "persistentvolumes", namespaced=False, short=("pv",), sub=(STATUS,)),
    _r("", "v1", "LimitRange", "limitranges", short=("limits",)),
    _r("", "v1", "ResourceQuota", "resourcequotas", short=("quota",), sub=(STATUS,)),
    _r(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        short=("rc",),
        categories=ALL,
        sub=(SCALE, STATUS),
        fields=("status.replicas",),
    ),
    _r("", "v1", "PodTemplate", "podtemplates"),
    # apps/v1
    _r("apps", "v1", "Deployment", "deployments", short=("deploy",), categories=ALL, sub=(SCALE, STATUS)),
    _r(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        short=("rs",),
        categories=ALL,
        sub=(SCALE, STATUS),
        fields=("status.replicas",),
    ),
    _r("apps", "v1", "StatefulSet", "statefulsets", short=("sts",), categories=ALL, sub=(SCALE, STATUS)),
    _r("apps", "v1", "DaemonSet", "daemonsets", short=("ds",), categories=ALL, sub=(STATUS,)),
    _r("apps", "v1", "ControllerRevision", "controllerrevisions"),
    # batch/v1
    _r("batch", "v1", "Job", "jobs", categories=ALL, sub=(STATUS,), fields=("status.successful",)),
    _r("batch", "v1", "CronJob", "cronjobs", short=("cj",), categories=ALL, sub=(STATUS,)),
    # autoscaling/v2
    _r(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        short=("hpa",),
        categories=ALL,
        sub=(STATUS,),
    ),
    # policy/v1
    _r("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", short=("pdb",), sub=(STATUS,)),
    # networking.k8s.io/v1
    _r("networking.k8s.io", "v1", "Ingress", "ingresses", short=("ing",), sub=(STATUS,)),
    _r("networking.k8s.io", "v1", "IngressClass", "ingressclasses", namespaced=False),
    _r("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", short=("netpol",)),
    # discovery.k8s.io/v1
    _r("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices"),
    # coordination.k8s.io/v1
    _r("coordination.k8s.io", "v1", "Lease", "leases"),
    # rbac.authorization.k8s.io/v1
    _r("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", namespaced=False),
    _r("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False),
    _r("rbac.authorization.k8s.io", "v1", "Role", "roles"),
    _r("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
    # apiextensions.k8s.io/v1
    _r(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
        short=("crd", "crds"),
        categories=("api-extensions",),
        sub=(STATUS,),
    ),
    # admissionregistration.k8s.io/v1
    _r(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        namespaced=False,
        categories=("api-extensions",),
    ),
    _r(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        namespaced=False,
        categories=("api-extensions",),
    ),
    # certificates.k8s.io/v1
    _r(
        "certificates.k8s.io",
        "v1",
        "CertificateSigningRequest",
        "certificatesigningrequests",
        namespaced=False,
        short=("csr",),
        sub=(CSR_APPROVAL, STATUS),
        fields=("spec.signerName",),
    ),
    # events.k8s.io/v1: the same objects as core events, in another shape
    _r(
        "events.k8s.io",
        "v1",
        "Event",
        "events",
        short=("ev",),
        storage=GroupResource("", "events"),
        fields=EVENT_FIELDS,
    ),
    # scheduling.k8s.io/v1, storage.k8s.io/v1
    _r("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", namespaced=False, short=("pc",)),
    _r("storage.k8s.io", "v1", "StorageClass", "storageclasses", namespaced=False, short=("sc",)),
)
"""Every built-in resource; core first, then groups in the order discovery prefers them."""


def _review(group: str, kind: str, *, namespaced: bool = False) -> ResourceType:
    return _r(group, "v1", kind, kind.lower() + "s", namespaced=namespaced, verbs=("create",))


VIRTUAL_RESOURCES: tuple[ResourceType, ...] = (
    _review("authentication.k8s.io", "SelfSubjectReview"),
    _review("authentication.k8s.io", "TokenReview"),
    _review("authorization.k8s.io", "LocalSubjectAccessReview", namespaced=True),
    _review("authorization.k8s.io", "SelfSubjectAccessReview"),
    _review("authorization.k8s.io", "SelfSubjectRulesReview"),
    _review("authorization.k8s.io", "SubjectAccessReview"),
)
"""Create-only reviews, answered per request and never stored (see `apiserver.authz.reviews`)."""

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""Namespaces that exist from the start and cannot be deleted."""
