"""APIEnablement: clusters must serve the binding's kind, unless they already run it."""

from __future__ import annotations

from flotilla.scheduler.plugins.apienablement import APIEnablement
from tests.unit.scheduler.manifests import binding, cluster


def test_cluster_serving_the_kind_fits() -> None:
    """A cluster listing apps/v1 Deployment in its API enablements passes."""
    assert APIEnablement().filter(binding(replicas=1), cluster("a")).is_success


def test_cluster_without_the_kind_is_rejected_with_karmadas_reason() -> None:
    """A cluster that does not list the kind is rejected as `no such API resource`."""
    result = APIEnablement().filter(binding(replicas=1), cluster("a", kinds=[("v1", "ConfigMap")]))
    assert result.reasons == ("no such API resource",)


def test_same_kind_in_another_group_version_does_not_count() -> None:
    """The group/version must match too: apps/v1beta1 Deployment is not apps/v1 Deployment."""
    result = APIEnablement().filter(binding(replicas=1), cluster("a", kinds=[("apps/v1beta1", "Deployment")]))
    assert not result.is_success


def test_cluster_already_in_the_result_passes_without_the_api() -> None:
    """A cluster the binding already targets keeps passing when its API list loses the kind."""
    result = APIEnablement().filter(binding(replicas=1, clusters={"a": 1}), cluster("a", kinds=[]))
    assert result.is_success
