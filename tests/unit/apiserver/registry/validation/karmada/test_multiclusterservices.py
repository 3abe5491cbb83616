"""MultiClusterServices are checked as Karmada's webhook checks them: one immutable type, valid unique ports,
a DNS-1035 name, valid cluster names."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation


def mcs(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "demo"}, "spec": {"types": ["CrossCluster"], **spec}}


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_multi_cluster_service(obj)]


def test_karmadas_example_is_valid() -> None:
    assert errors(mcs(ports=[{"name": "http", "port": 80}], providerClusters=[{"name": "member1"}])) == []


def test_only_one_distinct_type() -> None:
    found = errors(mcs(types=["CrossCluster", "LoadBalancer"]))
    assert found == [
        'spec.types: Invalid value: ["CrossCluster","LoadBalancer"]: '
        "MultiClusterService types should not contain more than one type"
    ]
    assert errors(mcs(types=["CrossCluster", "CrossCluster"])) == []
    assert errors(mcs(types=["Nope"]))[0].startswith('spec.types[0]: Unsupported value: "Nope"')


def test_types_are_immutable() -> None:
    found = validation.validate_multi_cluster_service_update(mcs(types=["LoadBalancer"]), mcs())
    assert [str(e) for e in found] == [
        'spec.types: Invalid value: ["CrossCluster"]: MultiClusterService types are immutable'
    ]


def test_the_name_is_a_dns_1035_label() -> None:
    assert errors(mcs("1web"))[0].startswith('metadata.name: Invalid value: "1web": a DNS-1035 label')


def test_ports_are_valid_numbers_with_unique_dns_label_names() -> None:
    found = errors(
        mcs(
            ports=[
                {"name": "http", "port": 80},
                {"name": "http", "port": 0},
                {"name": "Bad_Name", "port": 81},
            ]
        )
    )
    assert found[0] == 'spec.ports[1].name: Duplicate value: "http"'
    assert found[1] == "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive"
    assert found[2].startswith('spec.ports[2].name: Invalid value: "Bad_Name"')


def test_cluster_names_are_valid_cluster_names() -> None:
    found = errors(mcs(consumerClusters=[{"name": "Member_1"}]))
    assert found[0].startswith('spec.consumerClusters[0].name: Invalid value: "Member_1"')
