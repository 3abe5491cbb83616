"""FederatedHPAs and CronFederatedHPAs through an embedded hub: defaults, nothing pruned, 422s."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from flotilla.api.karmada.autoscaling import CRON_FEDERATED_HPA, FEDERATED_HPA
from flotilla.apiserver import errors
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds
from flotilla.storage.memory import MemoryBackend

GROUP_VERSION = "autoscaling.karmada.io/v1alpha1"
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}


@pytest.fixture
async def hub() -> AsyncIterator[EmbeddedAPI]:
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    await install_karmada_crds(api.context)
    try:
        yield api
    finally:
        await api.stop()


def autoscaler(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "FederatedHPA",
        "metadata": {"name": "nginx", "namespace": "default"},
        "spec": {"scaleTargetRef": TARGET, **spec},
    }


def cron(reference: dict[str, Any], *rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "CronFederatedHPA",
        "metadata": {"name": "nginx", "namespace": "default"},
        "spec": {"scaleTargetRef": reference, "rules": list(rules)},
    }


async def test_a_federated_hpa_gets_karmadas_defaults_and_keeps_its_behavior(hub: EmbeddedAPI) -> None:
    """min 1, 80% CPU, and kube's rules filled in around a given scale-down window."""
    created = await hub.client("test").create(
        FEDERATED_HPA, autoscaler(maxReplicas=10, behavior={"scaleDown": {"stabilizationWindowSeconds": 60}})
    )
    spec = created["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
        }
    ]
    assert spec["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 60
    assert spec["behavior"]["scaleUp"]["policies"][0] == {"type": "Pods", "value": 4, "periodSeconds": 15}


async def test_a_federated_hpas_status_is_kept(hub: EmbeddedAPI) -> None:
    client = hub.client("test")
    created = await client.create(FEDERATED_HPA, autoscaler(maxReplicas=3))
    status = {
        "currentReplicas": 2,
        "desiredReplicas": 3,
        "lastScaleTime": "2026-01-01T00:00:00Z",
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "current": {"averageUtilization": 90, "averageValue": "90m"}},
            }
        ],
        "conditions": [
            {
                "type": "AbleToScale",
                "status": "True",
                "reason": "SucceededRescale",
                "message": "m",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ],
    }
    updated = await client.update(FEDERATED_HPA, {**created, "status": status}, subresource="status")
    assert updated["status"] == status


async def test_cron_rules_get_their_defaults(hub: EmbeddedAPI) -> None:
    """suspend false, both history limits 3 (the schema's defaults)."""
    created = await hub.client("test").create(
        CRON_FEDERATED_HPA, cron(TARGET, {"name": "r", "schedule": "@hourly", "targetReplicas": 2})
    )
    rule = created["spec"]["rules"][0]
    assert (rule["suspend"], rule["successfulHistoryLimit"], rule["failedHistoryLimit"]) == (False, 3, 3)


async def test_invalid_objects_are_422s_with_field_causes(hub: EmbeddedAPI) -> None:
    client = hub.client("test")
    with pytest.raises(errors.APIError) as raised:
        await client.create(FEDERATED_HPA, autoscaler(minReplicas=3, maxReplicas=2))
    assert raised.value.code == 422
    assert (
        "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
        in raised.value.message
    )
    long_name = {"name": "x" * 33, "schedule": "* * * * *", "targetReplicas": 1, "failedHistoryLimit": 40}
    with pytest.raises(errors.APIError) as raised:
        await client.create(CRON_FEDERATED_HPA, cron(TARGET, long_name))
    assert raised.value.code == 422
    assert "spec.rules[0].name: Too long" in raised.value.message
    assert "spec.rules[0].failedHistoryLimit: Invalid value: 40" in raised.value.message
