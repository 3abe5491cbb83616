"""The MCS API and ClusterProperty CRDs are mcs-api v0.5's and about-api's: versions, names, scope, schema."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.conversion.plans import plan_versions
from flotilla.apiserver.registry.multicluster import member_crds, multicluster_service_crds
from flotilla.apiserver.registry.schema.structural import structural_errors
from flotilla.apiserver.registry.strategy import crd_schema_errors


@pytest.mark.parametrize("crd", member_crds(), ids=lambda crd: crd["metadata"]["name"])
def test_crds_are_structural_and_their_columns_parse(crd: dict[str, Any]) -> None:
    for version in crd["spec"]["versions"]:
        assert structural_errors(version["schema"]["openAPIV3Schema"], "openAPIV3Schema") == []
    assert crd_schema_errors(crd) == []


def test_v1beta1_is_stored_and_v1alpha1_served_with_no_op_conversion() -> None:
    for crd in multicluster_service_crds():
        versions = [(v["name"], v["served"], v["storage"]) for v in crd["spec"]["versions"]]
        assert versions == [("v1alpha1", True, False), ("v1beta1", True, True)]
        assert "conversion" not in crd["spec"]
        plan = plan_versions(crd)
        assert plan.served == ("v1alpha1", "v1beta1")
        assert (
            plan.conversion is not None
            and plan.conversion.storage_api_version == "multicluster.x-k8s.io/v1beta1"
        )


def test_names_and_short_names_are_mcs_apis() -> None:
    export, service_import = multicluster_service_crds()
    assert export["metadata"]["name"] == "serviceexports.multicluster.x-k8s.io"
    assert export["spec"]["names"]["shortNames"] == ["svcex", "svcexport"]
    assert service_import["spec"]["names"]["shortNames"] == ["svcim", "svcimport"]
    spec = service_import["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["required"] == ["ports", "type"]
    assert spec["properties"]["type"]["enum"] == ["ClusterSetIP", "Headless"]
    assert spec["properties"]["ips"]["maxItems"] == 2


def test_cluster_property_is_cluster_scoped() -> None:
    crd = member_crds()[-1]
    assert crd["metadata"]["name"] == "clusterproperties.about.k8s.io"
    assert crd["spec"]["scope"] == "Cluster"
