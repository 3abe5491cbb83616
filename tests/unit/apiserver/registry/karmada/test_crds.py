"""The Karmada CRDs are structural, named as Karmada names them, and declare every field of our models."""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest

from flotilla.api.karmada import constants
from flotilla.api.karmada.cluster import Cluster
from flotilla.api.karmada.model import KarmadaModel
from flotilla.api.karmada.policy import (
    ClusterOverridePolicy,
    ClusterPropagationPolicy,
    OverridePolicy,
    PropagationPolicy,
)
from flotilla.api.karmada.rebalancer import WorkloadRebalancer
from flotilla.api.karmada.taintpolicy import ClusterTaintPolicy
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding, Work
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.karmada import karmada_crds
from flotilla.apiserver.registry.schema.structural import structural_errors
from flotilla.apiserver.registry.strategy import crd_schema_errors

MODELS: dict[GroupVersionKind, type[KarmadaModel]] = {
    constants.PROPAGATION_POLICY: PropagationPolicy,
    constants.CLUSTER_PROPAGATION_POLICY: ClusterPropagationPolicy,
    constants.OVERRIDE_POLICY: OverridePolicy,
    constants.CLUSTER_OVERRIDE_POLICY: ClusterOverridePolicy,
    constants.RESOURCE_BINDING: ResourceBinding,
    constants.CLUSTER_RESOURCE_BINDING: ClusterResourceBinding,
    constants.WORK: Work,
    constants.CLUSTER: Cluster,
    constants.CLUSTER_TAINT_POLICY: ClusterTaintPolicy,
    constants.WORKLOAD_REBALANCER: WorkloadRebalancer,
}


def crds_by_kind() -> dict[GroupVersionKind, dict[str, Any]]:
    found = {}
    for crd in karmada_crds():
        spec = crd["spec"]
        for version in spec["versions"]:
            found[GroupVersionKind(spec["group"], version["name"], spec["names"]["kind"])] = crd
    return found


def storage_version(crd: dict[str, Any]) -> dict[str, Any]:
    version: dict[str, Any] = next(v for v in crd["spec"]["versions"] if v["storage"])
    return version


def schema_of(crd: dict[str, Any]) -> dict[str, Any]:
    """The schema of the version the CRD stores (what the typed models describe)."""
    schema: dict[str, Any] = storage_version(crd)["schema"]["openAPIV3Schema"]
    return schema


BINDINGS_V1ALPHA1 = {
    GroupVersionKind("work.karmada.io", "v1alpha1", "ResourceBinding"),
    GroupVersionKind("work.karmada.io", "v1alpha1", "ClusterResourceBinding"),
}


def test_there_is_one_crd_per_karmada_kind_at_its_version() -> None:
    """Eleven kinds in five groups, each stored at its version; bindings also served at v1alpha1, as Karmada
    serves them (converted)."""
    assert set(crds_by_kind()) == set(constants.PLURALS) | BINDINGS_V1ALPHA1
    for crd in karmada_crds():
        versions = [(v["name"], v["served"], v["storage"]) for v in crd["spec"]["versions"]]
        if crd["spec"]["group"] == "work.karmada.io" and crd["spec"]["names"]["kind"] != "Work":
            assert versions == [("v1alpha1", True, False), ("v1alpha2", True, True)]
        else:
            assert len(versions) == 1


@pytest.mark.parametrize("crd", karmada_crds(), ids=lambda crd: crd["metadata"]["name"])
def test_crds_are_structural_and_their_columns_parse(crd: dict[str, Any]) -> None:
    """The API server would accept them: structural schemas, valid printer columns."""
    for version in crd["spec"]["versions"]:
        assert structural_errors(version["schema"]["openAPIV3Schema"], "openAPIV3Schema") == []
    assert crd_schema_errors(crd) == []


@pytest.mark.parametrize(
    ("gvk", "short_names", "category", "namespaced", "status"),
    [
        (constants.PROPAGATION_POLICY, ["pp"], True, True, False),
        (constants.CLUSTER_PROPAGATION_POLICY, ["cpp"], True, False, False),
        (constants.OVERRIDE_POLICY, ["op"], True, True, False),
        (constants.CLUSTER_OVERRIDE_POLICY, ["cop"], True, False, False),
        (constants.RESOURCE_BINDING, ["rb"], True, True, True),
        (constants.CLUSTER_RESOURCE_BINDING, ["crb"], True, False, True),
        (constants.WORK, ["wk"], True, True, True),
        (constants.CLUSTER, None, False, False, True),
        (constants.CLUSTER_TAINT_POLICY, None, False, False, False),
        (constants.WORKLOAD_REBALANCER, None, False, False, True),
        (constants.MULTI_CLUSTER_SERVICE, ["mcs"], True, True, True),
    ],
)
def test_names_scope_and_subresources_are_karmadas(
    gvk: GroupVersionKind, short_names: list[str] | None, category: bool, namespaced: bool, status: bool
) -> None:
    """Short names, the karmada-io category (not for Cluster, ClusterTaintPolicy or WorkloadRebalancer),
    scope and status subresources."""
    crd = crds_by_kind()[gvk]
    names = crd["spec"]["names"]
    assert crd["metadata"]["name"] == f"{constants.PLURALS[gvk]}.{gvk.group}"
    assert names["plural"] == constants.PLURALS[gvk]
    assert names.get("shortNames") == short_names
    assert names.get("categories") == (["karmada-io"] if category else None)
    assert (crd["spec"]["scope"] == "Namespaced") is namespaced is constants.NAMESPACED[gvk]
    assert all(("subresources" in version) is status for version in crd["spec"]["versions"])


@pytest.mark.parametrize(
    ("gvk", "columns"),
    [
        (constants.PROPAGATION_POLICY, ["CONFLICT-RESOLUTION", "PRIORITY", "AGE"]),
        (constants.CLUSTER_PROPAGATION_POLICY, ["CONFLICT-RESOLUTION", "PRIORITY", "AGE"]),
        (constants.RESOURCE_BINDING, ["SCHEDULED", "FULLYAPPLIED", "AGE"]),
        (constants.WORK, ["WORKLOAD-KIND", "APPLIED", "AGE"]),
        (
            constants.CLUSTER,
            ["Version", "Mode", "Ready", "Age", "Zones", "Region", "Provider", "API-Endpoint", "Proxy-URL"],
        ),
    ],
)
def test_printer_columns_are_karmadas(gvk: GroupVersionKind, columns: list[str]) -> None:
    """`kubectl get` shows the columns Karmada users know; Cluster's topology ones only with -o wide
    (named as Karmada's aggregated API server names them; the hub prints Cluster with that printer)."""
    version = crds_by_kind()[gvk]["spec"]["versions"][-1]
    printed = version["additionalPrinterColumns"]
    assert [c["name"] for c in printed] == columns
    wide = [c["name"] for c in printed if c.get("priority")]
    assert wide == (
        ["Zones", "Region", "Provider", "API-Endpoint", "Proxy-URL"] if gvk == constants.CLUSTER else []
    )


def _models_in(annotation: Any) -> list[type[KarmadaModel]]:
    """The KarmadaModel classes an annotation mentions (`X | None`, `list[X]`)."""
    if isinstance(annotation, type) and issubclass(annotation, KarmadaModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (list, typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


def _undeclared(model: type[KarmadaModel], schema: dict[str, Any], path: str) -> list[str]:
    missing = []
    properties = schema.get("properties") or {}
    for name, field in model.model_fields.items():
        key = field.serialization_alias or field.alias or name
        if key == "metadata":
            continue  # ObjectMeta has the API server's own schema
        sub = properties.get(key)
        if sub is None:
            missing.append(f"{path}.{key}")
            continue
        if sub.get("type") == "array":
            sub = sub["items"]
        for nested in _models_in(field.annotation):
            missing += _undeclared(nested, sub, f"{path}.{key}")
    return missing


@pytest.mark.parametrize("gvk", list(MODELS), ids=str)
def test_every_model_field_is_declared_so_nothing_is_pruned(gvk: GroupVersionKind) -> None:
    """Every field of the typed model has a schema node: the API server keeps what Karmada users set."""
    assert _undeclared(MODELS[gvk], schema_of(crds_by_kind()[gvk]), gvk.kind) == []


def test_karmadas_crd_defaults_are_declared() -> None:
    """conflictResolution Abort, priority 0, preemption Never, replicaSchedulingType Divided, failover's."""
    spec = schema_of(crds_by_kind()[constants.PROPAGATION_POLICY])["properties"]["spec"]["properties"]
    assert spec["conflictResolution"]["default"] == "Abort"
    assert spec["priority"]["default"] == 0
    assert spec["preemption"]["default"] == "Never"
    scheduling = spec["placement"]["properties"]["replicaScheduling"]["properties"]
    assert scheduling["replicaSchedulingType"]["default"] == "Divided"
    application = spec["failover"]["properties"]["application"]["properties"]
    assert application["decisionConditions"]["properties"]["tolerationSeconds"]["default"] == 300
    assert application["purgeMode"]["default"] == "Gracefully"
    weight = scheduling["weightPreference"]["properties"]["staticWeightList"]["items"]["properties"]["weight"]
    assert weight["minimum"] == 1


def test_a_taint_policy_and_a_rebalancer_need_at_least_one_item() -> None:
    """Karmada's minItems: a policy's taints, a rebalancer's workloads; both spec lists required."""
    policy = schema_of(crds_by_kind()[constants.CLUSTER_TAINT_POLICY])["properties"]["spec"]
    assert policy["required"] == ["taints"]
    assert policy["properties"]["taints"]["minItems"] == 1
    assert policy["properties"]["taints"]["items"]["required"] == ["effect", "key"]
    test = policy["properties"]["addOnConditions"]["items"]
    assert test["required"] == ["conditionType", "operator", "statusValues"]
    rebalancer = schema_of(crds_by_kind()[constants.WORKLOAD_REBALANCER])["properties"]["spec"]
    assert rebalancer["required"] == ["workloads"]
    assert rebalancer["properties"]["workloads"]["minItems"] == 1
    assert rebalancer["properties"]["workloads"]["items"]["required"] == ["apiVersion", "kind", "name"]
