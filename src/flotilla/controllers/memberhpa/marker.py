"""The hpaScaleTargetMarker controller: the workload a propagated HPA scales keeps its members' replicas.

The queue key is a `ScaleTarget`. The HPA informer files every HPA under the workload it scales
(index `memberhpa.targets`); a reconcile reads the workload (a Deployment from the shared
informer, any other kind from the hub) and sets the label
`resourcetemplate.karmada.io/retain-replicas: "true"` when a propagated HPA names it, or removes it
when none does any more — a JSON merge patch of that one label (field manager
`flotilla-hpa-scale-target-marker`), so a user's own labels and a later `kubectl apply` of the
template are left alone. The label reaches the Works like any template label, and the execution
controller's retain step then keeps each member's `spec.replicas`.

What enqueues a workload, as Karmada's predicates do, level-based:

- a propagated HPA added, or changed in its target, labels or deletion (not in its status, which
  the binding-status controller rewrites as the members' HPAs move): its target, and the target it
  named before if another;
- an HPA that stops being propagated or is deleted: its target, whose mark goes if no other
  propagated HPA names it (Karmada removes it even then);
- a Deployment created after its HPA, or losing its mark behind the marker's back, when a
  propagated HPA names it.

HPAs that were never propagated enqueue nothing, so a mark a user put by hand on the template of a
workload scaled by a member-made HPA is not taken away. A propagated HPA deleted while the
manager was down leaves its workload marked (as in Karmada): remove the label by hand then.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any, ClassVar

import structlog

from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import NotFound
from flotilla.client.client import MERGE_PATCH
from flotilla.controllers.memberhpa.targets import (
    ScaleTarget,
    is_marked,
    is_propagated,
    mark_patch,
    scale_target,
    wants_mark,
)
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.memberhpa")

FIELD_MANAGER = "flotilla-hpa-scale-target-marker"
HORIZONTAL_POD_AUTOSCALER = GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler")
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
TARGETS_INDEX = "memberhpa.targets"
"""The HPA informer's index of HPAs by the workload they scale."""

Object = dict[str, Any]


def _targets_of(hpa: Object) -> tuple[Hashable, ...]:
    target = scale_target(hpa)
    return () if target is None else (target,)


class ScaleTargetMarkerController(HubController):
    """Karmada's `hpa-scale-target-marker`, enabled as `hpaScaleTargetMarker` (on by default here)."""

    NAME: ClassVar[str] = "hpaScaleTargetMarker"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._hpas = ctx.informers.get(HORIZONTAL_POD_AUTOSCALER)
        self._deployments = ctx.informers.get(DEPLOYMENT)

    def setup(self) -> None:
        self._hpas.add_index(TARGETS_INDEX, _targets_of)
        self._hpas.add_handler(self._on_hpa)
        self._deployments.add_handler(self._on_deployment)

    def _on_hpa(self, event: str, new: Object | None, old: Object | None) -> None:
        if new is not None and old is not None and _marking_view(new) == _marking_view(old):
            return  # a status write (the members' summed status, every few seconds): nothing to mark
        for target in _changed_targets(new, old):
            self.enqueue(target)

    def _on_deployment(self, event: str, new: Object | None, old: Object | None) -> None:
        if new is None or is_marked(new):
            return
        if old is not None and not is_marked(old):
            return  # neither created nor unmarked: nothing a marker looks at changed
        metadata = metadata_of(new)
        target = ScaleTarget(
            str(metadata.get("namespace") or ""),
            DEPLOYMENT.group,
            DEPLOYMENT.kind,
            str(metadata.get("name") or ""),
            DEPLOYMENT.version,
        )
        if wants_mark(self._hpas.indexed(TARGETS_INDEX, target)):
            self.enqueue(target)

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ScaleTarget) -> float | None:
        wanted = wants_mark(self._hpas.indexed(TARGETS_INDEX, key))
        if (key.group, key.kind) == (DEPLOYMENT.group, DEPLOYMENT.kind):
            workload = self._deployments.get(key.name, namespace=key.namespace)
        else:
            workload = await self.ctx.hub.get_or_none(key.gvk, key.name, namespace=key.namespace)
        if workload is None or metadata_of(workload).get("deletionTimestamp"):
            return None
        if is_marked(workload) == wanted:
            return None
        try:
            await self.ctx.hub.patch(
                key.gvk,
                key.name,
                mark_patch(wanted),
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return None
        log.info(
            "memberhpa.marked" if wanted else "memberhpa.unmarked",
            controller=self.NAME,
            kind=key.kind,
            namespace=key.namespace,
            name=key.name,
        )
        return None


def _marking_view(hpa: Object) -> tuple[Any, ...]:
    """What of an HPA its target's mark depends on: its target, its labels and its deletion."""
    metadata = metadata_of(hpa)
    return (scale_target(hpa), metadata.get("labels"), metadata.get("deletionTimestamp"))


def _changed_targets(new: Object | None, old: Object | None) -> Iterator[ScaleTarget]:
    """The workloads whose mark an HPA event can change: only propagated HPAs (now or before) count."""
    new_target = scale_target(new) if new is not None else None
    old_target = scale_target(old) if old is not None else None
    if new is not None and new_target is not None and is_propagated(new):
        yield new_target
    if old is not None and old_target is not None and is_propagated(old):
        unchanged = new is not None and new_target == old_target and is_propagated(new)
        if not unchanged:
            yield old_target
