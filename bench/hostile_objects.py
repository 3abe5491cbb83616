"""What `hostile.py` installs before it fuzzes: a CRD, and one object of each common kind to aim at.

`GADGET_CRD` gives the run a custom resource group whose schema uses what CRD authors use
(patterns, enums, int-or-string, defaults, nullable, maps, a list-type map, preserved unknown
fields, a CEL rule) and the status and scale subresources. `SEEDS` are objects named `seed`, one per
collection (the operation path up to `/{name}`), created before the run and again whenever a case
deletes them, so that gets, updates, patches and subresources reach a real object instead of 404.
"""

from __future__ import annotations

from typing import Any

NAMESPACE = "hostile"
CRD_GROUP = "hostile.flotilla.io"
SEED = "seed"

GADGET_SPEC = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.minReplicas <= self.replicas", "message": "min above replicas"}
    ],
    "properties": {
        "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 1000},
        "minReplicas": {"type": "integer", "default": 0},
        "mode": {"type": "string", "enum": ["Push", "Pull"]},
        "host": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "port": {"x-kubernetes-int-or-string": True},
        "since": {"type": "string", "format": "date-time", "nullable": True},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "targets": {
            "type": "array",
            "maxItems": 16,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "weight": {"type": "integer"}},
            },
        },
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}
GADGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"gadgets.{CRD_GROUP}"},
    "spec": {
        "group": CRD_GROUP,
        "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {
                    "status": {},
                    "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
                },
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": GADGET_SPEC,
                            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                        },
                    }
                },
            }
        ],
    },
}

_LABELS = {"app": SEED}
_POD_SPEC = {
    "containers": [{"name": "c", "image": "registry.example/app:1", "ports": [{"containerPort": 80}]}]
}
_TEMPLATE = {"metadata": {"labels": _LABELS}, "spec": _POD_SPEC}
_NAMESPACED = "/namespaces/{namespace}"

SEEDS: dict[str, dict[str, Any]] = {
    f"/api/v1{_NAMESPACED}/configmaps": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}},
    f"/api/v1{_NAMESPACED}/secrets": {"apiVersion": "v1", "kind": "Secret", "data": {"a": "Yg=="}},
    f"/api/v1{_NAMESPACED}/services": {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"selector": _LABELS, "ports": [{"port": 80, "targetPort": "http"}]},
    },
    f"/api/v1{_NAMESPACED}/pods": {"apiVersion": "v1", "kind": "Pod", "spec": _POD_SPEC},
    f"/api/v1{_NAMESPACED}/serviceaccounts": {"apiVersion": "v1", "kind": "ServiceAccount"},
    f"/api/v1{_NAMESPACED}/resourcequotas": {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "spec": {"hard": {"pods": "10", "requests.cpu": "2"}},
    },
    f"/apis/apps/v1{_NAMESPACED}/deployments": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {"replicas": 2, "selector": {"matchLabels": _LABELS}, "template": _TEMPLATE},
    },
    f"/apis/apps/v1{_NAMESPACED}/statefulsets": {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "spec": {
            "replicas": 1,
            "serviceName": SEED,
            "selector": {"matchLabels": _LABELS},
            "template": _TEMPLATE,
        },
    },
    f"/apis/policy.karmada.io/v1alpha1{_NAMESPACED}/propagationpolicies": {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": SEED}],
            "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
        },
    },
    f"/apis/policy.karmada.io/v1alpha1{_NAMESPACED}/overridepolicies": {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": SEED}],
            "overrideRules": [
                {"overriders": {"plaintext": [{"path": "/data/a", "operator": "replace", "value": "c"}]}}
            ],
        },
    },
    "/apis/cluster.karmada.io/v1alpha1/clusters": {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "spec": {"syncMode": "Push", "apiEndpoint": "https://127.0.0.1:9"},
    },
    f"/apis/work.karmada.io/v1alpha2{_NAMESPACED}/resourcebindings": {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "spec": {
            "resource": {"apiVersion": "v1", "kind": "ConfigMap", "name": SEED, "namespace": NAMESPACE},
            "clusters": [{"name": "member1", "replicas": 1}],
        },
    },
    f"/apis/{CRD_GROUP}/v1{_NAMESPACED}/gadgets": {
        "apiVersion": f"{CRD_GROUP}/v1",
        "kind": "Gadget",
        "spec": {"replicas": 2, "mode": "Push", "host": "a-b", "port": "http", "targets": [{"name": "t"}]},
    },
}
"""A collection (operation path up to `/{name}`) → the body of its seed object (named `seed`)."""


def seed_body(collection: str) -> dict[str, Any]:
    """The seed object of a collection, named and namespaced."""
    body = {**SEEDS[collection]}
    metadata = {"name": SEED, "labels": _LABELS}
    if "{namespace}" in collection:
        metadata["namespace"] = NAMESPACE
    return {**body, "metadata": metadata}


def seed_path(collection: str) -> str:
    return collection.replace("{namespace}", NAMESPACE)
