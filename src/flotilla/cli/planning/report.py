"""How `flotilla plan` prints its plans: a describe-like text block per workload, or YAML / JSON.

The text form reads like `kubectl describe`: `Field:` lines with aligned values, then a table of
every cluster with kubectl's table conventions (upper-case headers, columns three spaces apart,
`<none>` for "not there"), both laid out by `tabwriter.table`. A cluster's DECISION says what
happened to it and, when it was left out,
which stage did it and why — `excluded by TaintToleration: cluster(s) had untolerated taint
{key:NoSchedule}`, `not selected by SpreadConstraint (region spread: …)`.

When an exact tie decided part of a workload's split, `Tie break:` says which clusters got the
tied replicas and by which rule: Karmada's, names ascending or descending by the parity of the
FNV-1a hash of the template's uid — for a template not created yet, that the uid it will get
decides, with the split either parity gives.

For a workload, `Available:` lists each cluster's room for more replicas as the scheduler's
estimators reckon it and what bounds it — `member1: 2 (cpu), member2: 20 (pods)` — the smaller
of what the Cluster's resource summary says and what its nodes hold (when `plan` could read them).

The YAML and JSON forms hold the same facts as data, with the placement in `spec.clusters` form
(`replicas` omitted when 0), so a script can compare a plan with the ResourceBinding the scheduler
later writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import yaml

from flotilla.cli.output.tabwriter import DESCRIBE_PADDING, table
from flotilla.cli.planning.workloads import WorkloadPlan
from flotilla.scheduler.core.generic import ScheduleResult
from flotilla.scheduler.core.inputs import TargetCluster
from flotilla.scheduler.core.placement import Placement, Strategy
from flotilla.scheduler.preview import ClusterDecision, Outcome
from flotilla.scheduler.tiebreak import TieBreak

NONE = "<none>"
FAILED_CLUSTERS_NOTE = "no other cluster fits, so clusters the application failed on are allowed"
OUTPUT_FORMATS = ("text", "yaml", "json")

_STRATEGIES = {
    Strategy.DUPLICATED: "Duplicated: every selected cluster runs all of them",
    Strategy.STATIC_WEIGHT: "Divided by static weights",
    Strategy.DYNAMIC_WEIGHT: "Divided by available replicas",
    Strategy.AGGREGATED: "Divided, Aggregated onto as few clusters as fit",
}


def render(plans: Sequence[WorkloadPlan], output: str) -> str:
    """The plans in `output` format (text, yaml or json), ending with a newline."""
    if output == "json":
        return orjson.dumps(plan_document(plans), option=orjson.OPT_INDENT_2).decode() + "\n"
    if output == "yaml":
        return yaml.safe_dump(plan_document(plans), sort_keys=False)
    return render_text(plans)


# --- text ------------------------------------------------------------------------------------------


def render_text(plans: Sequence[WorkloadPlan]) -> str:
    if not plans:
        return "No workloads in the manifests.\n"
    return "\n".join(_text_block(plan) for plan in plans)


def _text_block(plan: WorkloadPlan) -> str:
    fields: list[tuple[str, str]] = [("Workload", plan.resource)]
    if plan.namespace:
        fields.append(("Namespace", plan.namespace))
    if plan.policy is None:
        fields.append(("Policy", f"{NONE}: {plan.unplanned}" if plan.unplanned else NONE))
    else:
        source = "from the manifests" if plan.policy.from_manifests else "on the hub"
        fields.append(("Policy", f"{plan.policy} ({source})"))
        fields.append(("Replicas", replicas_text(plan.replicas, plan.placement)))
        if plan.unplanned:
            fields.append(("Scheduled", f"not previewed: {plan.unplanned}"))
    notes = plan.notes
    preview = plan.preview
    if preview is not None:
        if preview.condition is None:
            fields.append(("Scheduled", "unchanged: the scheduler would not reschedule it"))
        else:
            condition = preview.condition
            fields.append(("Scheduled", f"{condition.status} ({condition.reason}): {condition.message}"))
    if preview is not None and preview.affinity_name:
        fields.append(("Affinity", f"clusterAffinities term {preview.affinity_name}"))
    if plan.current is not None:
        fields.append(("Current", targets_text(plan.current, plan.replicas)))
    if preview is not None:
        fields.append(("Placement", targets_text(preview.targets, plan.replicas)))
        if plan.current is not None:
            fields.append(("Change", change_text(plan.current, preview.targets, plan.replicas)))
        available = available_text(preview.decisions)
        if available:
            fields.append(("Available", available))
        if preview.on_failed_clusters:
            notes = (*notes, FAILED_CLUSTERS_NOTE)
        if preview.tie is not None:
            fields.append(("Tie break", tie_text(preview.tie, plan.replicas)))
    fields.extend(("Note", note) for note in notes)
    lines = table([(f"{label}:", value) for label, value in fields], DESCRIBE_PADDING)
    if preview is not None and preview.decisions:
        lines.append("Clusters:")
        lines.extend("  " + row for row in _cluster_table(preview.decisions, plan))
    return "\n".join(lines) + "\n"


def replicas_text(replicas: int | None, placement: Placement | None) -> str:
    if replicas is None:
        return f"{NONE} (not a workload: the whole object goes to every selected cluster)"
    strategy = placement.strategy if placement is not None else Strategy.DUPLICATED
    return f"{replicas} ({_STRATEGIES[strategy]})"


def targets_text(targets: Sequence[TargetCluster], replicas: int | None) -> str:
    if not targets:
        return NONE
    if replicas is None:
        return ", ".join(target.name for target in targets)
    return ", ".join(f"{target.name}:{target.replicas}" for target in targets)


def change_text(
    current: Sequence[TargetCluster], planned: Sequence[TargetCluster], replicas: int | None
) -> str:
    before = {target.name: target.replicas for target in current}
    after = {target.name: target.replicas for target in planned}
    changes = []
    for name in sorted(before.keys() | after.keys()):
        if before.get(name) == after.get(name) and (name in before) == (name in after):
            continue
        if replicas is None:
            changes.append(f"{name} {'added' if name in after else 'removed'}")
        else:
            was = str(before[name]) if name in before else "none"
            will = str(after[name]) if name in after else "none"
            changes.append(f"{name} {was} -> {will}")
    return ", ".join(changes) or "none"


def tie_text(tie: TieBreak, replicas: int | None) -> str:
    """How an exact tie in the split went, and by which rule (Karmada's: the template UID's hash)."""
    alternative = targets_text(tie.alternative, replicas)
    if not tie.known:
        return (
            f"decided by the uid the template will get: {_gets(tie.favoured)} if its FNV-1a hash is even "
            f"(names ascending, as planned), {_gets(tie.alternative_favoured)} if odd "
            f"(names descending: {alternative})"
        )
    parity, order, other = (
        ("odd", "descending", "ascending") if tie.descending else ("even", "ascending", "descending")
    )
    return (
        f"{_gets(tie.favoured)}: tied clusters are taken in {order} name order, as the FNV-1a hash "
        f"of the template's uid {tie.template_uid} is {parity} ({tie.uid_hash:#010x}); "
        f"{other} would give {alternative}"
    )


def _gets(clusters: Sequence[str]) -> str:
    names = ", ".join(clusters)
    return f"{names} gets the tied replica" if len(clusters) == 1 else f"{names} get the tied replicas"


def available_text(decisions: Sequence[ClusterDecision]) -> str:
    """Each sized cluster's room and what bounds it: `member1: 2 (cpu), member2: 20 (pods)`."""
    parts = []
    for decision in decisions:
        room = decision.available
        if room is not None:
            bound = room.limited_by or room.reason
            parts.append(
                f"{decision.cluster}: {room.replicas} ({bound})"
                if bound
                else f"{decision.cluster}: {room.replicas}"
            )
    return ", ".join(parts)


def _cluster_table(decisions: Sequence[ClusterDecision], plan: WorkloadPlan) -> list[str]:
    with_current = plan.current is not None
    header = ["CLUSTER", *(["CURRENT"] if with_current else []), "PLANNED", "DECISION"]
    rows = [header]
    for decision in decisions:
        row = [decision.cluster]
        if with_current:
            row.append(count_text(decision.current, plan.replicas))
        row.extend([count_text(decision.planned, plan.replicas), decision_text(decision)])
        rows.append(row)
    return table(rows)


def count_text(count: int | None, replicas: int | None) -> str:
    if count is None:
        return NONE
    return "yes" if replicas is None else str(count)


def decision_text(decision: ClusterDecision) -> str:
    """What happened to one cluster, in one line."""
    reason = decision.reason
    if decision.outcome == Outcome.PLACED:
        return f"placed ({reason})" if reason else "placed"
    if decision.outcome == Outcome.FILTERED:
        return f"excluded by {decision.plugin}: {reason}"
    if decision.outcome == Outcome.NOT_SELECTED:
        return f"not selected by {decision.plugin} ({reason})"
    if decision.outcome == Outcome.NO_REPLICAS:
        return f"no replicas from {decision.plugin}: {reason}"
    if decision.outcome == Outcome.DELETING:
        return f"skipped: {reason}"
    return f"not placed: {reason}"


# --- data ------------------------------------------------------------------------------------------


def plan_document(plans: Sequence[WorkloadPlan]) -> dict[str, Any]:
    """The plans as one JSON-ready document: `{"workloads": [...]}`."""
    return {"workloads": [_plan_data(plan) for plan in plans]}


def _plan_data(plan: WorkloadPlan) -> dict[str, Any]:
    data: dict[str, Any] = {"apiVersion": plan.api_version, "kind": plan.kind}
    if plan.namespace:
        data["namespace"] = plan.namespace
    data["name"] = plan.name
    data["policy"] = (
        None
        if plan.policy is None
        else {
            "kind": plan.policy.kind,
            **({"namespace": plan.policy.namespace} if plan.policy.namespace else {}),
            "name": plan.policy.name,
            "source": "manifests" if plan.policy.from_manifests else "hub",
        }
    )
    data["replicas"] = plan.replicas
    data["strategy"] = str(plan.placement.strategy) if plan.placement is not None else None
    preview = plan.preview
    condition = preview.condition if preview is not None else None
    data["scheduled"] = (
        None
        if condition is None
        else {"status": condition.status, "reason": condition.reason, "message": condition.message}
    )
    data["rescheduled"] = preview is not None and preview.rescheduled
    if preview is not None and preview.affinity_name:
        data["affinityName"] = preview.affinity_name
    data["placement"] = None if preview is None else ScheduleResult(preview.targets).spec_clusters()
    data["currentPlacement"] = None if plan.current is None else ScheduleResult(plan.current).spec_clusters()
    if preview is not None and preview.tie_alternative:
        data["alternativePlacement"] = ScheduleResult(preview.tie_alternative).spec_clusters()
    if preview is not None and preview.tie is not None:
        data["tieBreak"] = tie_data(preview.tie)
    if preview is not None and preview.on_failed_clusters:
        data["onFailedClusters"] = True
    data["clusters"] = [] if preview is None else [decision_data(item) for item in preview.decisions]
    if plan.unplanned:
        data["unplanned"] = plan.unplanned
    data["notes"] = list(plan.notes)
    return data


def tie_data(tie: TieBreak) -> dict[str, Any]:
    """How a tie went, as data: the order (`unknown` before the template has a uid), the hash, the
    clusters it favoured, and the split of the other order."""
    data: dict[str, Any] = {"templateUID": tie.template_uid or None}
    if tie.known:
        data["order"] = "descending" if tie.descending else "ascending"
        data["uidHash"] = tie.uid_hash
    else:
        data["order"] = "unknown"
    data["favoured"] = list(tie.favoured)
    data["otherOrder"] = {
        "placement": ScheduleResult(tie.alternative).spec_clusters(),
        "favoured": list(tie.alternative_favoured),
    }
    return data


def decision_data(decision: ClusterDecision) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": decision.cluster,
        "outcome": str(decision.outcome),
        "current": decision.current,
        "planned": decision.planned,
    }
    if decision.plugin:
        data["plugin"] = decision.plugin
    if decision.reason:
        data["reason"] = decision.reason
    if decision.available is not None:
        room = decision.available
        data["available"] = {
            "replicas": room.replicas,
            "limitedBy": room.limited_by,
            "estimator": room.estimator,
        }
        if room.reason:
            data["available"]["reason"] = room.reason
    return data
