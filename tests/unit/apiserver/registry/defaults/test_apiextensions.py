"""CustomResourceDefinitions get kube's defaults: names, conversion and stored versions."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")


def test_crd_names_conversion_and_stored_versions_are_defaulted() -> None:
    """singular and listKind derive from the kind; conversion is None; the storage version is stored."""
    spec = {
        "group": "stable.example.com",
        "names": {"plural": "crontabs", "kind": "CronTab"},
        "versions": [{"name": "v1beta1", "storage": False}, {"name": "v1", "storage": True}],
    }
    result = defaulted(CRD, {"metadata": {"name": "crontabs.stable.example.com"}, "spec": spec})
    assert result["spec"]["names"] == {
        "plural": "crontabs",
        "kind": "CronTab",
        "singular": "crontab",
        "listKind": "CronTabList",
    }
    assert result["spec"]["conversion"] == {"strategy": "None"}
    assert result["status"] == {"storedVersions": ["v1"]}
