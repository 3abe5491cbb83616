"""How `flotilla plan --taint` prints its what-if: the taints, each affected binding, a count of the rest.

The text form follows `plan`'s (`report`): a describe-like block per binding — its workload,
replicas and strategy, an `Eviction:` line per tainted cluster saying when the copy there goes
(`now`, `after 300s`, `never`) and why, the placement `Before:` and `After:` with the `Change:`,
and the scheduler's view after the taints (`Scheduled:`, `Available:` and a DECISION per cluster,
the same words as `plan`'s: `excluded by ClusterEviction: …`, `placed (room for 4 more replicas,
limited by cpu on its nodes)`). Bindings the taints leave alone are one closing line.

The YAML and JSON forms hold the same facts as data — `taints`, `bindings` (placements in
`spec.clusters` form), `unaffected` — so a script can check a maintenance before doing it.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from flotilla.cli.output.tabwriter import DESCRIBE_PADDING, table
from flotilla.cli.planning.evictions import BindingOutlook, ClusterOutlook, TaintPlan, When
from flotilla.cli.planning.report import (
    FAILED_CLUSTERS_NOTE,
    NONE,
    available_text,
    change_text,
    count_text,
    decision_data,
    decision_text,
    replicas_text,
    targets_text,
    tie_text,
)
from flotilla.scheduler.core.generic import ScheduleResult
from flotilla.scheduler.preview import ClusterDecision

LATER_NOTE = "the placement after is the one once every toleration has run out"


def render_taint_plan(plan: TaintPlan, output: str) -> str:
    """The what-if in `output` format (text, yaml or json), ending with a newline."""
    if output == "json":
        return orjson.dumps(taint_plan_document(plan), option=orjson.OPT_INDENT_2).decode() + "\n"
    if output == "yaml":
        return yaml.safe_dump(taint_plan_document(plan), sort_keys=False)
    return render_taint_text(plan)


# --- text ------------------------------------------------------------------------------------------


def render_taint_text(plan: TaintPlan) -> str:
    rows = [
        ["  " + item.cluster, str(item.taint), "new" if item.new else "already there: moves nothing new"]
        for item in plan.taints
    ]
    header = [
        "Taints (what-if, nothing is written):",
        *table(rows),
        *(f"Note: {note}" for note in plan.notes),
    ]
    blocks = ["\n".join(header) + "\n"]
    blocks.extend(_binding_block(outlook) for outlook in plan.affected)
    blocks.append(_unaffected_line(plan) + "\n")
    return "\n".join(blocks)


def _unaffected_line(plan: TaintPlan) -> str:
    count = plan.unaffected
    if plan.affected:
        if count == 0:
            return "No binding is left unaffected."
        return f"{count} other binding{' is' if count == 1 else 's are'} not affected."
    if count == 0:
        return "No binding on the hub or in the manifests."
    return f"No binding is affected ({count} looked at)."


def _binding_block(outlook: BindingOutlook) -> str:
    where = f"{outlook.namespace}/{outlook.name}" if outlook.namespace else outlook.name
    source = "from the manifests" if outlook.from_manifests else "on the hub"
    fields: list[tuple[str, str]] = [
        ("Binding", f"{outlook.kind} {where}"),
        ("Workload", f"{outlook.resource} ({source})"),
        ("Replicas", replicas_text(outlook.replicas, outlook.placement)),
    ]
    fields.extend(("Eviction", _eviction_text(item)) for item in outlook.clusters)
    fields.append(("Before", targets_text(outlook.before, outlook.replicas)))
    fields.append(("After", targets_text(outlook.after, outlook.replicas)))
    fields.append(("Change", change_text(outlook.before, outlook.after, outlook.replicas)))
    preview = outlook.preview
    if outlook.unscheduled:
        fields.append(("Scheduled", f"not re-placed: {outlook.unscheduled}"))
    elif preview is not None and preview.condition is None:
        fields.append(("Scheduled", "unchanged: the scheduler would not reschedule it"))
    elif preview is not None and preview.condition is not None:
        condition = preview.condition
        fields.append(("Scheduled", f"{condition.status} ({condition.reason}): {condition.message}"))
    available = available_text(preview.decisions) if preview is not None else ""
    if available:
        fields.append(("Available", available))
    fields.extend(("Note", note) for note in _notes(outlook))
    lines = table([(f"{label}:", value) for label, value in fields], DESCRIBE_PADDING)
    lines.append("Clusters:")
    lines.extend("  " + row for row in _cluster_table(outlook))
    return "\n".join(lines) + "\n"


def _eviction_text(item: ClusterOutlook) -> str:
    return f"{item.cluster} {when_text(item)}: {item.reason}"


def when_text(item: ClusterOutlook) -> str:
    """`now`, `after 300s` or `never`."""
    if item.when is When.LATER:
        return f"after {item.seconds}s"
    return str(item.when)


def _notes(outlook: BindingOutlook) -> list[str]:
    notes = []
    if any(item.when is When.LATER for item in outlook.clusters):
        notes.append(LATER_NOTE)
    preview = outlook.preview
    if preview is not None and preview.on_failed_clusters:
        notes.append(FAILED_CLUSTERS_NOTE)
    if preview is not None and preview.tie is not None:
        notes.append(f"tie break: {tie_text(preview.tie, outlook.replicas)}")
    return notes


def _cluster_table(outlook: BindingOutlook) -> list[str]:
    before = {target.name: target.replicas for target in outlook.before}
    after = {target.name: target.replicas for target in outlook.after}
    decisions = _decisions(outlook)
    names = sorted({*before, *after, *decisions, *(item.cluster for item in outlook.clusters)})
    rows = [["CLUSTER", "BEFORE", "AFTER", "EVICTION", "DECISION"]]
    for name in names:
        item = outlook.outlook_of(name)
        decision = decisions.get(name)
        rows.append(
            [
                name,
                count_text(before.get(name), outlook.replicas),
                count_text(after.get(name), outlook.replicas),
                when_text(item) if item is not None else NONE,
                decision_text(decision) if decision is not None else NONE,
            ]
        )
    return table(rows)


def _decisions(outlook: BindingOutlook) -> dict[str, ClusterDecision]:
    preview = outlook.preview
    return {} if preview is None else {decision.cluster: decision for decision in preview.decisions}


# --- data ------------------------------------------------------------------------------------------


def taint_plan_document(plan: TaintPlan) -> dict[str, Any]:
    """The what-if as one JSON-ready document: `{"taints": [...], "bindings": [...], "unaffected": N}`."""
    return {
        "taints": [
            {
                "cluster": item.cluster,
                "key": item.taint.key,
                **({"value": item.taint.value} if item.taint.value else {}),
                "effect": item.taint.effect,
                "new": item.new,
            }
            for item in plan.taints
        ],
        "bindings": [_binding_data(outlook) for outlook in plan.affected],
        "unaffected": plan.unaffected,
        "notes": list(plan.notes),
    }


def _binding_data(outlook: BindingOutlook) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": outlook.kind}
    if outlook.namespace:
        data["namespace"] = outlook.namespace
    data["name"] = outlook.name
    data["resource"] = {
        "apiVersion": outlook.resource_api_version,
        "kind": outlook.resource_kind,
        "name": outlook.resource_name,
    }
    data["source"] = "manifests" if outlook.from_manifests else "hub"
    data["replicas"] = outlook.replicas
    data["strategy"] = str(outlook.placement.strategy)
    data["evictions"] = [_outlook_data(item) for item in outlook.clusters]
    data["before"] = ScheduleResult(outlook.before).spec_clusters()
    data["after"] = ScheduleResult(outlook.after).spec_clusters()
    preview = outlook.preview
    condition = preview.condition if preview is not None and not outlook.unscheduled else None
    data["scheduled"] = (
        None
        if condition is None
        else {"status": condition.status, "reason": condition.reason, "message": condition.message}
    )
    if outlook.unscheduled:
        data["unscheduled"] = outlook.unscheduled
    data["clusters"] = _clusters_data(outlook)
    data["notes"] = _notes(outlook)
    return data


def _outlook_data(item: ClusterOutlook) -> dict[str, Any]:
    data: dict[str, Any] = {"cluster": item.cluster, "when": str(item.when)}
    if item.seconds is not None:
        data["afterSeconds"] = item.seconds
    if item.taint:
        data["taint"] = item.taint
    data["reason"] = item.reason
    if item.replicas is not None:
        data["replicas"] = item.replicas
    return data


def _clusters_data(outlook: BindingOutlook) -> list[dict[str, Any]]:
    before = {target.name: target.replicas for target in outlook.before}
    after = {target.name: target.replicas for target in outlook.after}
    decisions = _decisions(outlook)
    names = sorted({*before, *after, *decisions, *(item.cluster for item in outlook.clusters)})
    rows = []
    for name in names:
        row: dict[str, Any] = {"name": name, "before": before.get(name), "after": after.get(name)}
        item = outlook.outlook_of(name)
        if item is not None:
            row["eviction"] = when_text(item)
        decision = decisions.get(name)
        if decision is not None:
            row.update(
                (key, value)
                for key, value in decision_data(decision).items()
                if key not in ("name", "current", "planned")
            )
        rows.append(row)
    return rows
