"""A hub installs the Karmada CRDs at start and applies Karmada's admission to their objects."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.context import APISettings
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import CRD, install_karmada_crds
from flotilla.apiserver.localclient import LocalClient
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.api.karmada.manifests import (
    CLUSTER,
    CLUSTER_TAINT_POLICY,
    OVERRIDE_POLICY,
    RESOURCE_BINDING,
    SPREAD_POLICY,
    STATIC_WEIGHTS_POLICY,
    WALKTHROUGH_POLICY,
    WORK,
    WORKLOAD_REBALANCER,
    fresh,
)

PERMANENT_ID = constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL
NAMESPACE = GroupVersionKind("", "v1", "Namespace")


@pytest.fixture
async def hub() -> AsyncIterator[EmbeddedAPI]:
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    await install_karmada_crds(api.context)
    try:
        yield api
    finally:
        await api.stop()


def established(crd: dict[str, Any]) -> bool:
    """Whether the CRD's status says Established (its controller writes it after the create)."""
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def contains(actual: Any, expected: Any) -> bool:
    """Whether `actual` has everything `expected` has (defaults may add more)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and contains(actual[k], v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list) and len(actual) == len(expected) and all(map(contains, actual, expected))
        )
    return bool(actual == expected)


def orphan(manifest: dict[str, Any]) -> dict[str, Any]:
    """A copy without owner references (the garbage collector would delete it: the owner is not here)."""
    obj = fresh(manifest)
    obj["metadata"].pop("ownerReferences", None)
    return obj


def namespaced(manifest: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    obj = fresh(manifest)
    obj["metadata"]["namespace"] = namespace
    return obj


async def test_every_karmada_kind_is_served(hub: EmbeddedAPI) -> None:
    """All eight kinds have endpoints once install returns."""
    for gvk in constants.PLURALS:
        served = hub.registry.by_kind(gvk)
        assert served is not None and served.type.plural == constants.PLURALS[gvk]


async def test_installing_again_writes_nothing(hub: EmbeddedAPI) -> None:
    """A restart with the same definitions leaves the stored CRDs untouched."""
    client = hub.client("test")
    await eventually_async(
        lambda: all(established(crd) for crd in client.list(CRD)), what="every Karmada CRD established"
    )
    before = {crd["metadata"]["name"]: crd["metadata"]["resourceVersion"] for crd in client.list(CRD)}
    await install_karmada_crds(hub.context)
    after = {crd["metadata"]["name"]: crd["metadata"]["resourceVersion"] for crd in client.list(CRD)}
    assert after == before


async def test_installing_restores_a_changed_definition(hub: EmbeddedAPI) -> None:
    """A CRD edited (or left by an older version) is brought back to ours."""
    client = hub.client("test")
    name = "propagationpolicies.policy.karmada.io"

    def drop_short_names(crd: dict[str, Any]) -> None:
        del crd["spec"]["names"]["shortNames"]

    await client.mutate(CRD, name, drop_short_names)
    await install_karmada_crds(hub.context)
    restored = client.get(CRD, name)
    assert restored is not None and restored["spec"]["names"]["shortNames"] == ["pp"]


@pytest.mark.parametrize(
    ("gvk", "manifest"),
    [
        (constants.PROPAGATION_POLICY, namespaced(WALKTHROUGH_POLICY)),
        (constants.PROPAGATION_POLICY, STATIC_WEIGHTS_POLICY),
        (constants.CLUSTER_PROPAGATION_POLICY, SPREAD_POLICY),
        (constants.OVERRIDE_POLICY, OVERRIDE_POLICY),
        (constants.RESOURCE_BINDING, RESOURCE_BINDING),
        (constants.WORK, WORK),
        (constants.CLUSTER, CLUSTER),
        (constants.CLUSTER_TAINT_POLICY, CLUSTER_TAINT_POLICY),
        (constants.WORKLOAD_REBALANCER, WORKLOAD_REBALANCER),
    ],
    ids=[
        "walkthrough",
        "static-weights",
        "spread",
        "overrides",
        "binding",
        "work",
        "cluster",
        "taint-policy",
        "rebalancer",
    ],
)
async def test_nothing_users_set_is_pruned(hub: EmbeddedAPI, gvk: Any, manifest: dict[str, Any]) -> None:
    """Created through the API, every spec field comes back (defaults may be added)."""
    client = hub.client("test")
    for namespace in {manifest["metadata"].get("namespace")} - {None, "default"}:
        await client.create(
            NAMESPACE, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    created = await client.create(gvk, orphan(manifest))
    assert contains(created["spec"], manifest["spec"])
    assert contains(created["metadata"].get("labels", {}), manifest["metadata"].get("labels", {}))


async def test_statuses_are_kept_through_the_status_subresource(hub: EmbeddedAPI) -> None:
    """A binding's aggregated status, a cluster's summaries, a rebalancer's results survive the schema."""
    client = hub.client("test")
    for gvk, manifest in (
        (constants.RESOURCE_BINDING, RESOURCE_BINDING),
        (constants.CLUSTER, CLUSTER),
        (constants.WORKLOAD_REBALANCER, WORKLOAD_REBALANCER),
    ):
        created = await client.create(gvk, orphan(manifest))
        created["status"] = fresh(manifest)["status"]
        updated = await client.update(gvk, created, subresource="status")
        assert updated["status"] == manifest["status"]


async def test_a_new_policy_is_defaulted_and_given_a_permanent_id(hub: EmbeddedAPI) -> None:
    """Karmada's webhook defaults, plus a UUID label, on create."""
    created = await hub.client("test").create(constants.PROPAGATION_POLICY, namespaced(WALKTHROUGH_POLICY))
    spec = created["spec"]
    assert spec["resourceSelectors"][0]["namespace"] == "default"
    assert (spec["conflictResolution"], spec["preemption"], spec["priority"], spec["schedulerName"]) == (
        "Abort",
        "Never",
        0,
        "default-scheduler",
    )
    assert len(created["metadata"]["labels"][PERMANENT_ID]) == 36


async def test_the_permanent_id_survives_updates_that_drop_it(hub: EmbeddedAPI) -> None:
    """A PUT without the label, or with another value, keeps the id given at create."""
    client = hub.client("test")
    created = await client.create(constants.PROPAGATION_POLICY, namespaced(WALKTHROUGH_POLICY))
    given = created["metadata"]["labels"][PERMANENT_ID]
    replaced = fresh(created)
    replaced["metadata"]["labels"] = {"team": "a"}
    replaced["spec"]["priority"] = 3
    updated = await client.update(constants.PROPAGATION_POLICY, replaced)
    assert updated["metadata"]["labels"] == {"team": "a", PERMANENT_ID: given}
    assert updated["spec"]["priority"] == 3


async def test_an_invalid_policy_is_refused_with_field_causes(hub: EmbeddedAPI) -> None:
    """422 Invalid, one cause per problem, Karmada's rule and the schema's together."""
    bad = namespaced(WALKTHROUGH_POLICY)
    bad["metadata"]["name"] = "bad"
    bad["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][0]["weight"] = -1
    bad["spec"]["placement"]["clusterAffinity"]["labelSelector"] = {"matchLabels": {"a": "not ok!"}}
    bad["spec"]["conflictResolution"] = "Maybe"
    with pytest.raises(errors.APIError) as raised:
        await hub.client("test").create(constants.PROPAGATION_POLICY, bad)
    assert raised.value.code == 422
    message = raised.value.message
    assert message.startswith('PropagationPolicy.policy.karmada.io "bad" is invalid: ')
    assert (
        "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: -1"
        in message
    )
    assert "spec.placement.clusterAffinity.labelSelector.matchLabels" in message
    assert 'spec.conflictResolution: Unsupported value: "Maybe"' in message


async def test_an_update_to_the_scheduler_name_is_refused(hub: EmbeddedAPI) -> None:
    """The validating rule sees old and new objects."""
    client = hub.client("test")
    await client.create(constants.PROPAGATION_POLICY, namespaced(WALKTHROUGH_POLICY))

    def change(policy: dict[str, Any]) -> None:
        policy["spec"]["schedulerName"] = "other"

    with pytest.raises(errors.APIError, match="the schedulerName should not be updated"):
        await client.mutate(constants.PROPAGATION_POLICY, "nginx-propagation", change, namespace="default")


async def test_clusters_get_zones_models_and_stamped_taints(hub: EmbeddedAPI) -> None:
    """zone → zones, the default resource models, timeAdded on NoExecute taints."""
    cluster = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "fz"},
        "spec": {
            "syncMode": "Pull",
            "zone": "fz-1",
            "taints": [{"key": "maintenance", "effect": "NoExecute"}],
        },
    }
    created = await hub.client("test").create(constants.CLUSTER, cluster)
    spec = created["spec"]
    assert spec["zones"] == ["fz-1"] and "zone" not in spec
    assert len(spec["resourceModels"]) == 9
    assert spec["taints"][0]["timeAdded"].endswith("Z")


async def test_bindings_and_works_get_permanent_ids(hub: EmbeddedAPI) -> None:
    """One is added when missing; one that came with the object is kept."""
    client: LocalClient = hub.client("test")
    binding = orphan(RESOURCE_BINDING)
    given = binding["metadata"]["labels"][constants.RESOURCE_BINDING_PERMANENT_ID_LABEL]
    created = await client.create(constants.RESOURCE_BINDING, binding)
    assert created["metadata"]["labels"][constants.RESOURCE_BINDING_PERMANENT_ID_LABEL] == given
    work = fresh(WORK)
    work["metadata"]["namespace"] = "default"
    del work["metadata"]["labels"]
    created_work = await client.create(constants.WORK, work)
    assert len(created_work["metadata"]["labels"][constants.WORK_PERMANENT_ID_LABEL]) == 36


async def test_no_execute_taint_policies_follow_the_servers_setting() -> None:
    """Allowed by default (Flotilla's); refused with Karmada's words on a server that forbids them."""
    forbidding = EmbeddedAPI(MemoryBackend(), APISettings(allow_no_execute_taint_policy=False))
    await forbidding.start()
    try:
        await install_karmada_crds(forbidding.context)
        with pytest.raises(errors.APIError) as raised:
            await forbidding.client("test").create(
                constants.CLUSTER_TAINT_POLICY, fresh(CLUSTER_TAINT_POLICY)
            )
    finally:
        await forbidding.stop()
    assert raised.value.code == 422
    assert "spec.taints[1]: Forbidden: Configuring taint with NoExecute effect is not allowed" in (
        raised.value.message
    )


async def test_a_no_execute_taint_policy_is_accepted_by_default(hub: EmbeddedAPI) -> None:
    """The default server takes Karmada's example with its NoExecute taint."""
    created = await hub.client("test").create(constants.CLUSTER_TAINT_POLICY, fresh(CLUSTER_TAINT_POLICY))
    assert created["spec"]["taints"][1]["effect"] == "NoExecute"


@pytest.mark.parametrize(("older", "current"), [("Immediately", "Directly"), ("Graciously", "Gracefully")])
async def test_an_eviction_task_stores_an_older_purge_mode_under_its_current_name(
    hub: EmbeddedAPI, older: str, current: str
) -> None:
    """Karmada's first names of two purge modes (refused since v1.19, #7792) are renamed, not refused."""
    binding = orphan(RESOURCE_BINDING)
    binding["spec"]["gracefulEvictionTasks"] = [
        {
            "fromCluster": "member1",
            "reason": "TaintUntolerated",
            "producer": "TaintManager",
            "purgeMode": older,
        }
    ]
    created = await hub.client("test").create(constants.RESOURCE_BINDING, binding)
    assert created["spec"]["gracefulEvictionTasks"][0]["purgeMode"] == current


async def test_an_eviction_task_takes_only_karmadas_purge_modes(hub: EmbeddedAPI) -> None:
    """gracefulEvictionTasks[].purgeMode is Directly, Gracefully or Never (Karmada v1.19); anything
    else is refused with the field named."""
    client = hub.client("test")
    binding = orphan(RESOURCE_BINDING)
    binding["spec"]["gracefulEvictionTasks"] = [
        {
            "fromCluster": "member1",
            "reason": "TaintUntolerated",
            "producer": "TaintManager",
            "purgeMode": "Later",
        }
    ]
    with pytest.raises(errors.APIError, match=r"spec\.gracefulEvictionTasks\[0\]\.purgeMode"):
        await client.create(constants.RESOURCE_BINDING, binding)
    binding["spec"]["gracefulEvictionTasks"][0]["purgeMode"] = "Never"
    created = await client.create(constants.RESOURCE_BINDING, binding)
    assert created["spec"]["gracefulEvictionTasks"][0]["purgeMode"] == "Never"


async def test_two_api_servers_starting_at_once_on_one_store_both_install_the_crds() -> None:
    """The one losing the race to create a CRD updates it instead of failing to start."""
    backend = MemoryBackend()
    first, second = EmbeddedAPI(backend), EmbeddedAPI(backend)
    await first.start()
    await second.start()
    try:
        await asyncio.gather(install_karmada_crds(first.context), install_karmada_crds(second.context))
        for api in (first, second):
            assert LocalClient(api.context, "test").peek(CRD, "works.work.karmada.io") is not None
    finally:
        await second.stop()
        await first.stop()
