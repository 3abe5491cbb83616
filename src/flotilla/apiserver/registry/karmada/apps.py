"""The apps.karmada.io/v1alpha1 CRD: WorkloadRebalancer.

Karmada's schema field for field (`apps.karmada.io_workloadrebalancers.yaml`): cluster-scoped,
with a status subresource, at least one workload reference (`apiVersion`, `kind`, `name`
required; no namespace for a cluster-scoped workload), an optional `ttlSecondsAfterFinished`, and
a status the controller writes. No printer columns, as in Karmada. The hub serves apps.karmada.io
as a group of its own, beside policy, work and cluster.karmada.io.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import RebalanceFailedReason, RebalanceResult
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    custom_resource_definition,
    date_time,
    integer,
    kind_schema,
    obj,
    string,
)


def workload_reference(description: str = "") -> Schema:
    return obj(
        {
            "apiVersion": string("The API version of the target resource."),
            "kind": string("The kind of the target resource."),
            "name": string("The name of the target resource."),
            "namespace": string("The namespace of the target resource; empty for a cluster-scoped one."),
        },
        description,
        required=["apiVersion", "kind", "name"],
    )


def workload_rebalancer_spec() -> Schema:
    return obj(
        {
            "workloads": array(workload_reference(), "The workloads to reschedule afresh.", min_items=1),
            "ttlSecondsAfterFinished": integer(
                "Delete the rebalancer this many seconds after it finished (0: at once; unset: never)."
            ),
        },
        "The workloads to rebalance.",
        required=["workloads"],
    )


def workload_rebalancer_status() -> Schema:
    observed = obj(
        {
            "workload": workload_reference("The workload."),
            "result": string(f"{' or '.join(RebalanceResult)}."),
            "reason": string(f"Why it failed: {', '.join(RebalanceFailedReason)}."),
        },
        required=["workload"],
    )
    return obj(
        {
            "observedWorkloads": array(observed, "Each workload's result."),
            "observedGeneration": integer("The generation the controller last acted on.", bits=64),
            "finishTime": date_time("When every workload had its result."),
        }
    )


def apps_crds() -> list[dict[str, Any]]:
    """WorkloadRebalancer."""
    return [
        custom_resource_definition(
            group=constants.APPS_GROUP,
            version=constants.WORKLOAD_REBALANCER.version,
            kind=constants.WORKLOAD_REBALANCER.kind,
            plural=constants.WORKLOAD_REBALANCERS.resource,
            namespaced=False,
            status=True,
            schema=kind_schema(
                "A one-shot request to reschedule workloads from scratch.",
                workload_rebalancer_spec(),
                workload_rebalancer_status(),
            ),
        )
    ]
