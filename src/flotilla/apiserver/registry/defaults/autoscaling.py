"""Defaults of the remaining API groups: autoscaling, networking, discovery, RBAC, apiextensions,
scheduling and storage.

- HorizontalPodAutoscaler: `minReplicas: 1`, a CPU target of 80% average utilization when no
  metric is given, and, when `behavior` is given, kube's full scale-up and scale-down rules for
  whatever it leaves out.
- NetworkPolicy: port protocols TCP; `policyTypes` is Ingress, plus Egress when egress rules exist.
- IngressClass: parameters are cluster-scoped unless said otherwise.
- EndpointSlice: ports get `name: ""` and `protocol: TCP`.
- RoleBinding/ClusterRoleBinding: `roleRef.apiGroup` and user/group subjects' `apiGroup` are RBAC's.
- CustomResourceDefinition: `singular` is the lower-case kind, `listKind` is `<Kind>List`,
  conversion is `None`, webhook services listen on 443, and `status.storedVersions` starts with the
  storage version. Schema-level defaults of custom resources are not applied here.
- PriorityClass: `preemptionPolicy: PreemptLowerPriority`; StorageClass: `reclaimPolicy: Delete`
  and `volumeBindingMode: Immediate`.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.apiserver.registry.validation import fields

RBAC_GROUP = "rbac.authorization.k8s.io"
DEFAULT_CPU_UTILIZATION = 80
_SCALE_UP_RULES: dict[str, Any] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# kube leaves the scale-down window unset: the controller manager's flag decides it.
_SCALE_DOWN_RULES: dict[str, Any] = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def default_horizontal_pod_autoscaler(autoscaler: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(autoscaler, "spec")
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not fields.items(spec, "metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION},
                },
            }
        ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for direction, defaults in (("scaleUp", _SCALE_UP_RULES), ("scaleDown", _SCALE_DOWN_RULES)):
            given = fields.mapping(behavior, direction)
            rules = copy.deepcopy(defaults)
            rules.update({name: value for name, value in given.items() if value is not None})
            behavior[direction] = rules


def default_network_policy(policy: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(policy, "spec")
    for direction in ("ingress", "egress"):
        for rule in fields.objects(spec, direction):
            for port in fields.objects(rule, "ports"):
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"
    if not fields.items(spec, "policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if fields.items(spec, "egress") else ["Ingress"]


def default_ingress_class(ingress_class: dict[str, Any]) -> None:
    parameters = fields.mapping(ingress_class, "spec").get("parameters")
    if isinstance(parameters, dict) and parameters.get("scope") is None:
        parameters["scope"] = "Cluster"


def default_endpoint_slice(endpoint_slice: dict[str, Any]) -> None:
    for port in fields.objects(endpoint_slice, "ports"):
        if port.get("name") is None:
            port["name"] = ""
        if port.get("protocol") is None:
            port["protocol"] = "TCP"


def default_role_binding(binding: dict[str, Any]) -> None:
    role_ref = fields.ensure_mapping(binding, "roleRef")
    if not role_ref.get("apiGroup"):
        role_ref["apiGroup"] = RBAC_GROUP
    for subject in fields.objects(binding, "subjects"):
        if not subject.get("apiGroup"):
            kind = fields.text(subject, "kind")
            if kind == "ServiceAccount":
                subject["apiGroup"] = ""
            elif kind in ("User", "Group"):
                subject["apiGroup"] = RBAC_GROUP


def default_custom_resource_definition(crd: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(crd, "spec")
    names = fields.ensure_mapping(spec, "names")
    kind = fields.text(names, "kind")
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = f"{kind}List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    webhook = fields.mapping(fields.mapping(spec, "conversion"), "webhook")
    service = fields.mapping(fields.mapping(webhook, "clientConfig"), "service")
    if service and service.get("port") is None:
        service["port"] = 443
    status = fields.ensure_mapping(crd, "status")
    if not fields.items(status, "storedVersions"):
        storage = [
            fields.text(version, "name")
            for version in fields.objects(spec, "versions")
            if version.get("storage")
        ]
        if storage:
            status["storedVersions"] = storage[:1]


def default_priority_class(priority_class: dict[str, Any]) -> None:
    if priority_class.get("preemptionPolicy") is None:
        priority_class["preemptionPolicy"] = "PreemptLowerPriority"


def default_storage_class(storage_class: dict[str, Any]) -> None:
    if storage_class.get("reclaimPolicy") is None:
        storage_class["reclaimPolicy"] = "Delete"
    if storage_class.get("volumeBindingMode") is None:
        storage_class["volumeBindingMode"] = "Immediate"
