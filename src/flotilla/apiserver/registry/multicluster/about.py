"""about.k8s.io ClusterProperty (KEP-2149, ClusterId for ClusterSet identification).

Cluster-scoped, one object per property, `spec.value` a non-empty string. The about-api repository
serves it at v1alpha1 and, since its v1beta1, also at v1beta1 (stored) with the same schema; both
are served here, converted with `strategy: None`, so clients of either version work.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import multicluster
from flotilla.apiserver.registry.karmada.schemas import AGE, Schema, column, obj, string


def _schema() -> Schema:
    spec = obj(
        {"value": string("The property's value (the cluster id, the clusterset id…).", min_length=1)},
        "The property.",
        required=["value"],
    )
    return obj(
        {
            "apiVersion": string("The versioned schema of this representation of an object."),
            "kind": string("The REST resource this object represents."),
            "metadata": {"type": "object"},
            "spec": spec,
            "status": {"type": "object"},
        },
        "ClusterProperty stores identification of the cluster for multi-cluster tools.",
    )


def cluster_property_crd() -> dict[str, Any]:
    kind = multicluster.CLUSTER_PROPERTY.kind
    columns = [column("value", ".spec.value"), AGE]
    versions: list[dict[str, Any]] = [
        {
            "name": name,
            "served": True,
            "storage": name == "v1beta1",
            "schema": {"openAPIV3Schema": _schema()},
            "subresources": {"status": {}},
            "additionalPrinterColumns": columns,
        }
        for name in ("v1alpha1", "v1beta1")
    ]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{multicluster.CLUSTER_PROPERTIES}.{multicluster.ABOUT_GROUP}"},
        "spec": {
            "group": multicluster.ABOUT_GROUP,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": multicluster.CLUSTER_PROPERTIES,
                "singular": kind.lower(),
                "categories": ["multicluster"],
            },
            "scope": "Cluster",
            "versions": versions,
        },
    }
