"""Clusters are validated by Karmada's rules: name, sync mode, URLs, references, taints, resource models."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import CLUSTER, fresh


def cluster(name: str = "sz", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"syncMode": "Push", **spec}}


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_cluster(obj)]


def test_a_documented_cluster_is_valid() -> None:
    """Credentials, proxy, topology, taints and contiguous resource models."""
    assert errors(fresh(CLUSTER)) == []


def test_cluster_names_fit_the_execution_namespace() -> None:
    """At most 48 characters, a DNS label: `karmada-es-<name>` must be a namespace name."""
    assert errors(cluster("c" * 49)) == [
        f'metadata.name: Invalid value: "{"c" * 49}": must be no more than 48 characters'
    ]
    found = errors(cluster("Member_1"))
    assert len(found) == 1 and found[0].startswith(
        'metadata.name: Invalid value: "Member_1": a lowercase RFC 1123 label'
    )


def test_sync_mode_is_push_or_pull() -> None:
    """Required, and one of the two modes."""
    missing = {"metadata": {"name": "a"}, "spec": {}}
    assert errors(missing) == ["spec.syncMode: Required value"]
    assert errors(cluster(syncMode="Both")) == [
        'spec.syncMode: Unsupported value: "Both": supported values: "Pull", "Push"'
    ]


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("https://10.0.0.1:6443", []),
        (
            "https://",
            [
                'spec.apiEndpoint: Invalid value: "": host must be provided; desired format: hostname, '
                "hostname:port, IP or IP:port"
            ],
        ),
        (
            "https://admin:pw@k8s.example.com",
            ['spec.apiEndpoint: Invalid value: "admin:pw": user information is not permitted in the URL'],
        ),
        (
            "https://k8s.example.com/?x=1",
            ['spec.apiEndpoint: Invalid value: "x=1": query parameters are not permitted in the URL'],
        ),
        (
            "https://k8s.example.com#top",
            ['spec.apiEndpoint: Invalid value: "top": fragments are not permitted in the URL'],
        ),
    ],
)
def test_api_endpoints_are_urls_naming_a_host(endpoint: str, expected: list[str]) -> None:
    """No user information, query or fragment."""
    assert errors(cluster(apiEndpoint=endpoint)) == expected


def test_proxy_urls_use_http_https_or_socks5() -> None:
    """Other schemes are refused."""
    assert errors(cluster(proxyURL="ftp://proxy:21")) == [
        'spec.proxyURL: Invalid value: "ftp://proxy:21": unsupported scheme "ftp", must be http, https, or '
        "socks5"
    ]
    assert errors(cluster(proxyURL="socks5://proxy:1080")) == []


def test_secret_references_name_namespace_and_name() -> None:
    """Both parts of a secret reference are required."""
    assert errors(cluster(secretRef={"name": "x"}, impersonatorSecretRef={"namespace": "y"})) == [
        "spec.secretRef.namespace: Required value",
        "spec.impersonatorSecretRef.name: Required value",
    ]


def test_taints_have_known_effects_and_are_unique() -> None:
    """Node taint rules: a qualified key, a known effect, one taint per key and effect."""
    taints = [
        {"key": "a", "effect": "Evict"},
        {"key": "b", "effect": "NoSchedule"},
        {"key": "b", "effect": "NoSchedule"},
    ]
    found = errors(cluster(taints=taints))
    assert found[0] == (
        'spec.taints[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", '
        '"PreferNoSchedule", '
        '"NoExecute"'
    )
    assert found[1].startswith("spec.taints[2]: Duplicate value: ")


def models(*grades: tuple[int, str, str]) -> list[dict[str, Any]]:
    return [{"grade": g, "ranges": [{"name": "cpu", "min": low, "max": high}]} for g, low, high in grades]


@pytest.mark.parametrize(
    ("resource_models", "expected"),
    [
        (models((0, "0", "4"), (1, "4", "9223372036854775807")), ""),
        (
            models((0, "0", "4"), (0, "4", "9223372036854775807")),
            "spec.resourceModels[1].grade: Invalid value: 0: The grade of each models should not be the same",
        ),
        (
            models((0, "0", "4"), (1, "5", "9223372036854775807")),
            "Model intervals for resources must be contiguous and non-overlapping",
        ),
        (
            models((0, "0", "4"), (1, "4", "2")),
            "The max value of each resource must be greater than the min value",
        ),
        (
            models((0, "1", "4"), (1, "4", "9223372036854775807")),
            "The min value of each resource in the first model should be 0",
        ),
        (
            models((0, "0", "4"), (1, "4", "64")),
            "The max value of each resource in the last model should be MaxInt64",
        ),
    ],
)
def test_resource_models_are_contiguous_grades(resource_models: list[dict[str, Any]], expected: str) -> None:
    """Distinct grades, intervals joining end to start, from 0 to MaxInt64."""
    found = errors(cluster(resourceModels=resource_models))
    if expected:
        assert len(found) == 1 and expected in found[0]
    else:
        assert found == []


def test_resource_model_ranges_name_supported_resources() -> None:
    """cpu, memory, storage and ephemeral-storage."""
    bad = [{"grade": 0, "ranges": [{"name": "gpu", "min": "0", "max": "1"}]}]
    assert errors(cluster(resourceModels=bad)) == [
        'spec.resourceModels[0].ranges[0].name: Unsupported value: "gpu": supported values: "cpu", '
        '"ephemeral-storage", "memory", "storage"'
    ]
