"""The CronFederatedHPA reconciler: run each rule when its schedule comes, and record what happened.

Karmada starts a gocron job per rule; here the schedule is state. The queue key is a
CronFederatedHPA's `ObjectKey`, enqueued when it is created or its spec changes. One reconcile,
from a live read, per rule (`spec.rules`, in order):

- a suspended rule has no `nextExecutionTime` and does nothing;
- a rule without a `nextExecutionTime`, or whose recorded one is not a time of its current
  schedule (the schedule or time zone changed), gets the schedule's next run after now;
- a rule whose `nextExecutionTime` has come runs once (missed runs are not replayed): it sets the
  target workload's `/scale` to `targetReplicas`, or the target FederatedHPA's `minReplicas` /
  `maxReplicas` to the rule's, and records a successful or failed execution (`cronhistory`) with
  that schedule time; a failure is also a `ScaleFailed` Warning Event;

then writes the status if it changed and asks to be looked at again when the earliest next run
comes. Times come from the controller's clock (`cronclock`), in each rule's `timeZone` (default:
the controller manager's own zone).
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import structlog

from flotilla.api.cron import CronSchedule, CronSyntaxError, parse_schedule
from flotilla.api.karmada.autoscaling import (
    CRON_FEDERATED_HPA,
    FEDERATED_HPA,
    CronEventReason,
)
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time, timestamp
from flotilla.client import Client, ClientError
from flotilla.controllers.autoscaling import cronhistory
from flotilla.controllers.autoscaling.cronclock import ScaledClock
from flotilla.controllers.autoscaling.observation import read_scale
from flotilla.runtime.events import WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.autoscaling")

FIELD_MANAGER = "flotilla-cron-federated-hpa"
COMPONENT = "cronfederatedhpa-controller"
Object = dict[str, Any]


def local_zone() -> tzinfo:
    """The controller manager's time zone: `$TZ`, else the system's, else UTC."""
    for key in (os.environ.get("TZ", "").lstrip(":"), "localtime"):
        if key:
            try:
                return ZoneInfo(key)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return datetime.now().astimezone().tzinfo or ZoneInfo("UTC")


class CronFederatedHPAController(HubController):
    NAME = "cronFederatedHorizontalPodAutoscaler"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._crons = ctx.informers.get(CRON_FEDERATED_HPA)
        self.clock = ScaledClock(ctx.clock, ctx.settings.cron_federated_hpa_clock_rate)
        self._zone = local_zone()

    def setup(self) -> None:
        self._crons.add_handler(self._on_cron)

    def _on_cron(self, event: str, new: Object | None, old: Object | None) -> None:
        if event == "DELETED" or new is None:
            return
        if event == "MODIFIED" and old is not None and old.get("spec") == new.get("spec"):
            return
        self.enqueue(ObjectKey.of(new))

    async def reconcile(self, key: ObjectKey) -> float | None:
        found = await self.ctx.hub.get_or_none(CRON_FEDERATED_HPA, key.name, namespace=key.namespace)
        if found is None or (found.get("metadata") or {}).get("deletionTimestamp"):
            return None
        spec = found.get("spec") or {}
        rules = [rule for rule in spec.get("rules") or [] if isinstance(rule, dict)]
        status = found.get("status") or {}
        histories = cronhistory.histories_for(rules, status.get("executionHistories") or [])
        now = self.clock.now()
        earliest: datetime | None = None
        for rule, history in zip(rules, histories, strict=True):
            next_run = await self._rule(found, rule, history, now)
            if next_run is not None and (earliest is None or next_run < earliest):
                earliest = next_run
        new_status = {**status, "executionHistories": histories}
        if new_status != status:
            await self.ctx.hub.update_status({**found, "status": new_status}, field_manager=FIELD_MANAGER)
        if earliest is None:
            return None
        return max(0.05, self.clock.real_seconds((earliest - self.clock.now()).total_seconds()))

    async def _rule(self, cron: Object, rule: Object, history: Object, now: datetime) -> datetime | None:
        """Bring one rule's history up to date (running it if due); its next run, or None."""
        if rule.get("suspend"):
            history.pop("nextExecutionTime", None)
            return None
        zone = self._rule_zone(rule)
        try:
            schedule = parse_schedule(str(rule.get("schedule") or ""))
        except CronSyntaxError as error:  # admission refuses these; an old object may hold one
            log.info(
                "cronfederatedhpa.bad_schedule", controller=self.NAME, rule=rule.get("name"), error=str(error)
            )
            history.pop("nextExecutionTime", None)
            return None
        recorded = timestamp(history.get("nextExecutionTime"))
        if recorded is None or not _is_run_of(schedule, recorded, zone):
            return self._schedule_next(history, schedule, now, zone)
        if recorded > now:
            return recorded
        message = await self._execute(cron, rule)
        execution: Object = {"scheduleTime": format_time(recorded), "executionTime": format_time(now)}
        if message is None:
            for field, applied in (
                ("targetReplicas", "appliedReplicas"),
                ("targetMinReplicas", "appliedMinReplicas"),
                ("targetMaxReplicas", "appliedMaxReplicas"),
            ):
                if rule.get(field) is not None:
                    execution[applied] = rule[field]
            cronhistory.add_success(history, rule, execution)
        else:
            cronhistory.add_failure(history, rule, {**execution, "message": message})
            await self._event(cron, CronEventReason.SCALE_FAILED, message)
        log.info(
            "cronfederatedhpa.rule_executed",
            controller=self.NAME,
            name=(cron.get("metadata") or {}).get("name"),
            rule=rule.get("name"),
            failed=message is not None,
        )
        return self._schedule_next(history, schedule, now, zone)

    def _schedule_next(
        self, history: Object, schedule: CronSchedule, now: datetime, zone: tzinfo
    ) -> datetime | None:
        next_run = schedule.next_run(now, zone)
        if next_run is None:
            history.pop("nextExecutionTime", None)
        else:
            history["nextExecutionTime"] = format_time(next_run)
        return next_run

    def _rule_zone(self, rule: Object) -> tzinfo:
        name = rule.get("timeZone")
        if not name:
            return self._zone
        try:
            return ZoneInfo(str(name))
        except (ZoneInfoNotFoundError, ValueError):
            return self._zone

    async def _execute(self, cron: Object, rule: Object) -> str | None:
        """Apply a rule to its target; None on success, else the failure's message."""
        namespace = str((cron.get("metadata") or {}).get("namespace") or "")
        reference = (cron.get("spec") or {}).get("scaleTargetRef") or {}
        try:
            gvk = GroupVersionKind.parse(
                str(reference.get("apiVersion") or ""), str(reference.get("kind") or "")
            )
        except ValueError as error:
            return str(error)
        name = str(reference.get("name") or "")
        try:
            if gvk.group == FEDERATED_HPA.group:
                if gvk.kind != FEDERATED_HPA.kind:
                    return (
                        f"CronFederatedHPA({namespace}/{(cron.get('metadata') or {}).get('name')}) do not "
                        f"support scale target {reference.get('apiVersion')}/{gvk.kind}"
                    )
                await self._scale_autoscaler(name, namespace, rule)
            else:
                await self._scale_workload(gvk, name, namespace, rule)
        except ClientError as error:
            return str(error)
        return None

    async def _scale_autoscaler(self, name: str, namespace: str, rule: Object) -> None:
        autoscaler = await self.ctx.hub.get(FEDERATED_HPA, name, namespace=namespace)
        spec = autoscaler.get("spec") or {}
        changes = {
            field: rule[target]
            for field, target in (("minReplicas", "targetMinReplicas"), ("maxReplicas", "targetMaxReplicas"))
            if rule.get(target) is not None and spec.get(field) != rule[target]
        }
        if not changes:
            return
        patch = {"metadata": {"resourceVersion": autoscaler["metadata"]["resourceVersion"]}, "spec": changes}
        await self.ctx.hub.patch(FEDERATED_HPA, name, patch, namespace=namespace, field_manager=FIELD_MANAGER)

    async def _scale_workload(self, gvk: GroupVersionKind, name: str, namespace: str, rule: Object) -> None:
        hub = self.ctx.hub
        if not isinstance(hub, Client):
            raise TypeError("the CronFederatedHPA controller reads /scale through a Client of the hub")
        scale = await read_scale(hub, gvk, name, namespace)
        target = rule.get("targetReplicas")
        if target is None or (scale.get("spec") or {}).get("replicas") == target:
            return
        await hub.patch(
            gvk,
            name,
            {"spec": {"replicas": target}},
            namespace=namespace,
            subresource="scale",
            field_manager=FIELD_MANAGER,
        )

    async def _event(self, cron: Object, reason: str, message: str) -> None:
        now = format_time(self.ctx.clock.now())
        event = object_event(cron, WARNING, str(reason), message, component=COMPONENT, now=now)
        await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)


def _is_run_of(schedule: CronSchedule, moment: datetime, zone: tzinfo) -> bool:
    """Whether `moment` is a time `schedule` runs at (a constant delay runs at any time)."""
    if schedule.every is not None:
        return True
    return schedule.next_run(moment - timedelta(seconds=1), zone) == moment
