"""Karmada's API groups on a Flotilla hub: the CRDs, their built-in admission, and their install.

A hub serves policy.karmada.io, work.karmada.io, cluster.karmada.io, apps.karmada.io and
networking.karmada.io as CustomResourceDefinitions that Flotilla writes itself (`policy` with
`taintpolicy`, `work`, `cluster`, `apps`, `networking`, built from `schemas`), and search.karmada.io's
ResourceRegistry (`search`; Karmada serves it from karmada-search, the hub as a CRD), so Karmada's
manifests apply unchanged and nothing a
Karmada user sets is pruned. Karmada's webhook defaults and validation are built in (`rules`,
applied by the write strategy). `housekeeping.karmadacrds.install_karmada_crds` creates or updates
the CRDs through the API server's own write pipeline when a hub starts.

This package's `__init__` stays free of the API server's write path (which imports `rules`), so
`install` is imported from its module.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.karmada.apps import apps_crds
from flotilla.apiserver.registry.karmada.autoscaling import autoscaling_crds
from flotilla.apiserver.registry.karmada.cluster import cluster_crd
from flotilla.apiserver.registry.karmada.config import (
    resource_interpreter_customization_crd,
    resource_interpreter_webhook_configuration_crd,
)
from flotilla.apiserver.registry.karmada.networking import networking_crds
from flotilla.apiserver.registry.karmada.policy import policy_crds
from flotilla.apiserver.registry.karmada.search import resource_registry_crd
from flotilla.apiserver.registry.karmada.taintpolicy import cluster_taint_policy_crd
from flotilla.apiserver.registry.karmada.work import work_crds


def karmada_crds() -> list[dict[str, Any]]:
    """Every Karmada CRD the hub serves, as fresh dicts (callers may change them)."""
    return [
        *policy_crds(),
        cluster_taint_policy_crd(),
        *work_crds(),
        cluster_crd(),
        *apps_crds(),
        *networking_crds(),
        resource_registry_crd(),
        resource_interpreter_customization_crd(),
        *autoscaling_crds(),
        resource_interpreter_webhook_configuration_crd(),
    ]


__all__ = ["karmada_crds"]
