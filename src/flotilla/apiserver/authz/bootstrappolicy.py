"""The default RBAC policy every cluster starts with, as kube-apiserver 1.32 creates it.

kube-apiserver writes its bootstrap roles and bindings when it starts (labelled
`kubernetes.io/bootstrapping: rbac-defaults`, annotated `rbac.authorization.kubernetes.io/autoupdate:
"true"`); kubeadm adds the Role that lets anonymous clients read `kube-public/cluster-info` and the
binding that lets bootstrap tokens create CSRs. A Flotilla API server does the same (see
`reconcile.py`). The ones that matter most:

- `cluster-admin`, bound to the group `system:masters`: everything;
- the user-facing `admin`, `edit` and `view`, which have no rules of their own: the aggregation
  controller fills them from the ClusterRoles carrying `rbac.authorization.k8s.io/aggregate-to-*`
  labels (`system:aggregate-to-*` here, and any custom role that opts in). `view` is aggregated into
  `edit`, and `edit` into `admin`;
- `system:discovery` and `system:basic-user` (discovery documents; creating self access reviews and
  `kubectl auth whoami`) for every authenticated user, and `system:public-info-viewer` (`/healthz`,
  `/livez`, `/readyz`, `/version`) for anonymous clients too;
- `system:node-bootstrapper` and the CSR approver roles, for certificate bootstrap.

The tables are data: each role is built from its rules with the small constructors below, which
sort verbs and resources the way kube's rule builder does.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.authz.rbac import RBAC_GROUP

API_VERSION = f"{RBAC_GROUP}/v1"
BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"
AUTHENTICATED = "system:authenticated"
UNAUTHENTICATED = "system:unauthenticated"

READ = ("get", "list", "watch")
WRITE = ("create", "delete", "deletecollection", "patch", "update")
READ_WRITE = READ + WRITE
EVENT_WRITE = ("create", "patch", "update")


def rule(
    verbs: tuple[str, ...], groups: tuple[str, ...], resources: str, names: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A resource rule; `resources` is a space-separated list."""
    body: dict[str, Any] = {
        "verbs": sorted(verbs),
        "apiGroups": list(groups),
        "resources": sorted(resources.split()),
    }
    if names:
        body["resourceNames"] = sorted(names)
    return body


def urls(verbs: tuple[str, ...], paths: str) -> dict[str, Any]:
    """A non-resource rule; `paths` is a space-separated list."""
    return {"verbs": sorted(verbs), "nonResourceURLs": sorted(paths.split())}


def _metadata(name: str, labels: dict[str, str] | None = None, namespace: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["labels"] = {**BOOTSTRAP_LABELS, **(labels or {})}
    meta["annotations"] = {AUTOUPDATE: "true"}
    return meta


def cluster_role(
    name: str, rules: list[dict[str, Any]], *, aggregate_to: str = "", aggregates: str = ""
) -> dict[str, Any]:
    """A bootstrap ClusterRole; `aggregate_to` labels it into another, `aggregates` makes it aggregated."""
    labels = {f"{AGGREGATE_TO}{aggregate_to}": "true"} if aggregate_to else {}
    role: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "ClusterRole",
        "metadata": _metadata(name, labels),
        "rules": rules,
    }
    if aggregates:
        role["aggregationRule"] = {
            "clusterRoleSelectors": [{"matchLabels": {f"{AGGREGATE_TO}{aggregates}": "true"}}]
        }
    return role


def subject(kind: str, name: str, namespace: str = "") -> dict[str, Any]:
    if kind == "ServiceAccount":
        return {"kind": kind, "name": name, "namespace": namespace}
    return {"kind": kind, "apiGroup": RBAC_GROUP, "name": name}


def cluster_role_binding(name: str, *subjects: dict[str, Any], role: str = "") -> dict[str, Any]:
    binding: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": _metadata(name),
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role or name},
    }
    if subjects:
        binding["subjects"] = list(subjects)
    return binding


def _approver(signer: str) -> dict[str, Any]:
    return cluster_role(
        f"system:certificates.k8s.io:{signer.removeprefix('kubernetes.io/')}-approver",
        [rule(("approve",), ("certificates.k8s.io",), "signers", (signer,))],
    )


VIEW_RULES = [
    rule(
        READ,
        ("",),
        (
            "pods replicationcontrollers replicationcontrollers/scale serviceaccounts services "
            "services/status endpoints persistentvolumeclaims persistentvolumeclaims/status configmaps"
        ),
    ),
    rule(
        READ,
        ("",),
        (
            "limitranges resourcequotas bindings events pods/status resourcequotas/status "
            "namespaces/status replicationcontrollers/status pods/log"
        ),
    ),
    rule(READ, ("",), "namespaces"),
    rule(READ, ("discovery.k8s.io",), "endpointslices"),
    rule(
        READ,
        ("apps",),
        (
            "controllerrevisions statefulsets statefulsets/status statefulsets/scale daemonsets "
            "daemonsets/status deployments deployments/status deployments/scale replicasets "
            "replicasets/status replicasets/scale"
        ),
    ),
    rule(READ, ("autoscaling",), "horizontalpodautoscalers horizontalpodautoscalers/status"),
    rule(READ, ("batch",), "jobs cronjobs cronjobs/status jobs/status"),
    rule(
        READ,
        ("extensions",),
        (
            "daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses "
            "ingresses/status replicasets replicasets/scale replicasets/status "
            "replicationcontrollers/scale networkpolicies"
        ),
    ),
    rule(READ, ("policy",), "poddisruptionbudgets poddisruptionbudgets/status"),
    rule(READ, ("networking.k8s.io",), "networkpolicies ingresses ingresses/status"),
]

EDIT_RULES = [
    rule(
        READ,
        ("",),
        "pods/attach pods/proxy pods/exec pods/portforward secrets services/proxy",
    ),
    rule(("impersonate",), ("",), "serviceaccounts"),
    rule(WRITE, ("",), "pods pods/attach pods/proxy pods/exec pods/portforward"),
    rule(("create",), ("",), "pods/eviction"),
    rule(
        WRITE,
        ("",),
        (
            "replicationcontrollers replicationcontrollers/scale serviceaccounts services services/proxy "
            "persistentvolumeclaims configmaps secrets events"
        ),
    ),
    rule(("create",), ("",), "serviceaccounts/token"),
    rule(
        WRITE,
        ("apps",),
        (
            "statefulsets statefulsets/scale daemonsets deployments deployments/scale "
            "deployments/rollback replicasets replicasets/scale"
        ),
    ),
    rule(WRITE, ("autoscaling",), "horizontalpodautoscalers"),
    rule(WRITE, ("batch",), "jobs cronjobs"),
    rule(
        WRITE,
        ("extensions",),
        (
            "daemonsets deployments deployments/scale deployments/rollback ingresses replicasets "
            "replicasets/scale replicationcontrollers/scale networkpolicies"
        ),
    ),
    rule(WRITE, ("policy",), "poddisruptionbudgets"),
    rule(WRITE, ("networking.k8s.io",), "networkpolicies ingresses"),
    rule(READ_WRITE, ("coordination.k8s.io",), "leases"),
]

ADMIN_RULES = [
    rule(("create",), ("authorization.k8s.io",), "localsubjectaccessreviews"),
    rule(READ_WRITE, (RBAC_GROUP,), "roles rolebindings"),
]

LEADER_LEASES = [
    rule(EVENT_WRITE, ("", "events.k8s.io"), "events"),
    rule(("create",), ("coordination.k8s.io",), "leases"),
]
REVIEWS = [
    rule(("create",), ("authentication.k8s.io",), "tokenreviews"),
    rule(("create",), ("authorization.k8s.io",), "subjectaccessreviews"),
]

CLUSTER_ROLES: tuple[dict[str, Any], ...] = (
    cluster_role("cluster-admin", [rule(("*",), ("*",), "*"), urls(("*",), "*")]),
    cluster_role("admin", [], aggregates="admin"),
    cluster_role("edit", [], aggregate_to="admin", aggregates="edit"),
    cluster_role("view", [], aggregate_to="edit", aggregates="view"),
    cluster_role("system:aggregate-to-admin", ADMIN_RULES, aggregate_to="admin"),
    cluster_role("system:aggregate-to-edit", EDIT_RULES, aggregate_to="edit"),
    cluster_role("system:aggregate-to-view", VIEW_RULES, aggregate_to="view"),
    cluster_role(
        "system:discovery",
        [
            urls(
                ("get",),
                "/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/",
            )
        ],
    ),
    cluster_role(
        "system:monitoring",
        [
            urls(
                ("get",),
                "/metrics /metrics/slis /livez /readyz /healthz /livez/* /readyz/* /healthz/*",
            )
        ],
    ),
    cluster_role(
        "system:basic-user",
        [
            rule(
                ("create",),
                ("authorization.k8s.io",),
                "selfsubjectaccessreviews selfsubjectrulesreviews",
            ),
            rule(("create",), ("authentication.k8s.io",), "selfsubjectreviews"),
        ],
    ),
    cluster_role(
        "system:public-info-viewer",
        [urls(("get",), "/livez /readyz /healthz /version /version/")],
    ),
    cluster_role("system:auth-delegator", REVIEWS),
    cluster_role(
        "system:heapster",
        [
            rule(READ, ("",), "events pods nodes namespaces"),
            rule(READ, ("extensions",), "deployments"),
        ],
    ),
    cluster_role(
        "system:node",
        [
            *REVIEWS[:1],
            rule(("create",), ("authorization.k8s.io",), "subjectaccessreviews localsubjectaccessreviews"),
            rule(READ, ("",), "services"),
            rule(("create", "get", "list", "watch"), ("",), "nodes"),
            rule(("update", "patch"), ("",), "nodes/status"),
            rule(("update", "patch"), ("",), "nodes"),
            rule(EVENT_WRITE, ("",), "events"),
            rule(READ, ("",), "pods"),
            rule(("create", "delete"), ("",), "pods"),
            rule(("update", "patch"), ("",), "pods/status"),
            rule(("create",), ("",), "pods/eviction"),
            rule(READ, ("",), "secrets configmaps"),
            rule(("get",), ("",), "persistentvolumeclaims persistentvolumes"),
            rule(("get",), ("",), "endpoints"),
            rule(("create", "get", "list", "watch"), ("certificates.k8s.io",), "certificatesigningrequests"),
            rule(("get", "create", "update", "patch", "delete"), ("coordination.k8s.io",), "leases"),
            rule(("get",), ("storage.k8s.io",), "volumeattachments"),
            rule(("create",), ("",), "serviceaccounts/token"),
            rule(("get", "update", "patch"), ("",), "persistentvolumeclaims/status"),
            rule(READ, ("storage.k8s.io",), "csidrivers"),
            rule(("get", "create", "update", "patch", "delete"), ("storage.k8s.io",), "csinodes"),
            rule(READ, ("node.k8s.io",), "runtimeclasses"),
        ],
    ),
    cluster_role(
        "system:node-problem-detector",
        [rule(("get",), ("",), "nodes"), rule(("patch",), ("",), "nodes/status"), LEADER_LEASES[0]],
    ),
    cluster_role(
        "system:kubelet-api-admin",
        [
            rule(READ, ("",), "nodes"),
            rule(("proxy",), ("",), "nodes"),
            rule(("*",), ("",), "nodes/proxy nodes/metrics nodes/stats nodes/log"),
        ],
    ),
    cluster_role(
        "system:node-bootstrapper",
        [rule(("create", "get", "list", "watch"), ("certificates.k8s.io",), "certificatesigningrequests")],
    ),
    cluster_role(
        "flotilla:bootstrap-signing-requester",
        [rule(("create",), ("certificates.k8s.io",), "certificatesigningrequests")],
    ),
    cluster_role(
        "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
        [rule(("create",), ("certificates.k8s.io",), "certificatesigningrequests/nodeclient")],
    ),
    cluster_role(
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        [rule(("create",), ("certificates.k8s.io",), "certificatesigningrequests/selfnodeclient")],
    ),
    _approver("kubernetes.io/kube-apiserver-client"),
    _approver("kubernetes.io/kube-apiserver-client-kubelet"),
    _approver("kubernetes.io/kubelet-serving"),
    _approver("kubernetes.io/legacy-unknown"),
    cluster_role("system:kube-aggregator", [rule(READ, ("",), "services endpoints")]),
    cluster_role(
        "system:kube-controller-manager",
        [
            *LEADER_LEASES,
            rule(("get", "update"), ("coordination.k8s.io",), "leases", ("kube-controller-manager",)),
            rule(("create",), ("",), "secrets serviceaccounts"),
            rule(("delete",), ("",), "secrets"),
            rule(("get",), ("",), "namespaces secrets serviceaccounts configmaps"),
            rule(("update",), ("",), "secrets serviceaccounts"),
            *REVIEWS,
            rule(("list", "watch"), ("*",), "*"),
            rule(("create",), ("",), "serviceaccounts/token"),
        ],
    ),
    cluster_role(
        "system:kube-scheduler",
        [
            *LEADER_LEASES,
            rule(("get", "update"), ("coordination.k8s.io",), "leases", ("kube-scheduler",)),
            rule(READ, ("",), "nodes"),
            rule(("get", "list", "watch", "delete"), ("",), "pods"),
            rule(("create",), ("",), "pods/binding bindings"),
            rule(("patch", "update"), ("",), "pods/status"),
            rule(READ, ("",), "replicationcontrollers services"),
            rule(READ, ("apps", "extensions"), "replicasets"),
            rule(READ, ("apps",), "statefulsets"),
            rule(READ, ("policy",), "poddisruptionbudgets"),
            rule(READ, ("",), "persistentvolumeclaims persistentvolumes"),
            *REVIEWS,
            rule(READ, ("storage.k8s.io",), "csinodes"),
            rule(READ, ("",), "namespaces"),
            rule(READ, ("storage.k8s.io",), "csidrivers"),
            rule(READ, ("storage.k8s.io",), "csistoragecapacities"),
        ],
    ),
    cluster_role("system:kube-dns", [rule(("list", "watch"), ("",), "endpoints services")]),
    cluster_role(
        "system:persistent-volume-provisioner",
        [
            rule(("get", "list", "watch", "create", "delete"), ("",), "persistentvolumes"),
            rule(("get", "list", "watch", "update"), ("",), "persistentvolumeclaims"),
            rule(READ, ("storage.k8s.io",), "storageclasses"),
            rule(("watch",), ("",), "events"),
            LEADER_LEASES[0],
        ],
    ),
    cluster_role(
        "system:volume-scheduler",
        [
            rule((*READ, "patch", "update"), ("",), "persistentvolumes"),
            rule(READ, ("storage.k8s.io",), "storageclasses"),
            rule((*READ, "patch", "update"), ("",), "persistentvolumeclaims"),
        ],
    ),
    cluster_role(
        "system:node-proxier",
        [
            rule(("list", "watch"), ("",), "services endpoints"),
            rule(READ, ("",), "nodes"),
            LEADER_LEASES[0],
            rule(("list", "watch"), ("discovery.k8s.io",), "endpointslices"),
        ],
    ),
    cluster_role(
        "system:service-account-issuer-discovery",
        [urls(("get",), "/.well-known/openid-configuration /openid/v1/jwks")],
    ),
)
"""kube-apiserver's bootstrap ClusterRoles (`kubectl get clusterroles -l kubernetes.io/bootstrapping`)."""

NODE_BOOTSTRAPPER_BINDING = "kubeadm:kubelet-bootstrap"
"""kubeadm's ClusterRoleBinding for bootstrap tokens: they may create CSRs.

kubeadm binds its node-token group to `system:node-bootstrapper`; here every bootstrap token
(`system:bootstrappers`) is bound, since pull-mode agents register with one (their CSRs are approved
by the agent approver, not by RBAC) — but to `BOOTSTRAP_SIGNING_REQUESTER`, which may only create
requests: kube's role also lists and watches every CSR, which would show each member what the others
said of themselves. A requester reads its own request through the certificates package's
`RequesterAuthorizer`. A hub started before this binding changed gets it re-created (its `roleRef`
differs) at its next start.
"""
BOOTSTRAP_SIGNING_REQUESTER = "flotilla:bootstrap-signing-requester"

CLUSTER_ROLE_BINDINGS: tuple[dict[str, Any], ...] = (
    cluster_role_binding("cluster-admin", subject("Group", "system:masters")),
    cluster_role_binding("system:monitoring", subject("Group", "system:monitoring")),
    cluster_role_binding("system:discovery", subject("Group", AUTHENTICATED)),
    cluster_role_binding("system:basic-user", subject("Group", AUTHENTICATED)),
    cluster_role_binding(
        "system:public-info-viewer", subject("Group", AUTHENTICATED), subject("Group", UNAUTHENTICATED)
    ),
    cluster_role_binding("system:node-proxier", subject("User", "system:kube-proxy")),
    cluster_role_binding("system:kube-controller-manager", subject("User", "system:kube-controller-manager")),
    cluster_role_binding("system:kube-dns", subject("ServiceAccount", "kube-dns", "kube-system")),
    cluster_role_binding("system:kube-scheduler", subject("User", "system:kube-scheduler")),
    cluster_role_binding("system:volume-scheduler", subject("User", "system:kube-scheduler")),
    cluster_role_binding("system:node"),
    cluster_role_binding(
        "system:service-account-issuer-discovery", subject("Group", "system:serviceaccounts")
    ),
    {
        "apiVersion": API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": {"name": NODE_BOOTSTRAPPER_BINDING},
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": BOOTSTRAP_SIGNING_REQUESTER},
        "subjects": [subject("Group", "system:bootstrappers")],
    },
)

CLUSTER_INFO_READER = "kubeadm:bootstrap-signer-clusterinfo"
"""kubeadm's Role and RoleBinding letting anonymous clients read `kube-public/cluster-info`."""

NAMESPACED_ROLES: tuple[dict[str, Any], ...] = (
    {
        "apiVersion": API_VERSION,
        "kind": "Role",
        "metadata": {"name": CLUSTER_INFO_READER, "namespace": "kube-public"},
        "rules": [rule(("get",), ("",), "configmaps", ("cluster-info",))],
    },
    {
        "apiVersion": API_VERSION,
        "kind": "Role",
        "metadata": _metadata("extension-apiserver-authentication-reader", namespace="kube-system"),
        "rules": [rule(READ, ("",), "configmaps", ("extension-apiserver-authentication",))],
    },
)

NAMESPACED_ROLE_BINDINGS: tuple[dict[str, Any], ...] = (
    {
        "apiVersion": API_VERSION,
        "kind": "RoleBinding",
        "metadata": {"name": CLUSTER_INFO_READER, "namespace": "kube-public"},
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": CLUSTER_INFO_READER},
        "subjects": [subject("User", "system:anonymous")],
    },
)
