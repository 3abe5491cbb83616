"""ControllerRevisions: the pod template history of StatefulSets and DaemonSets (kube's `controller/history`).

Each distinct pod template a StatefulSet or DaemonSet has had is kept as a ControllerRevision it
owns, named `<owner>-<hash>`, whose `data` is the patch that restores the template
(`{"spec": {"template": {…, "$patch": "replace"}}}`) and whose `revision` numbers the rollouts.
The *update revision* is the one matching the current template: reused when it is already the
latest, renumbered as the latest when an older template comes back (a rollback), created
otherwise — with the collision count in the hash when a different revision holds the name.
Revisions no pod uses, beyond `revisionHistoryLimit`, are deleted oldest first. `kubectl rollout
history` and `undo` read these objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.objects import copy_object
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.controllers.framework.kinds import CONTROLLER_REVISION
from flotilla.sim.controllers.podowners import ownership
from flotilla.sim.controllers.podowners.podtemplates import canonical_json, compute_hash

_MAX_NAME_PREFIX = 223
MAX_COLLISIONS = 10


def revision_data(template: Mapping[str, Any]) -> dict[str, Any]:
    return {"spec": {"template": {**copy_object(dict(template)), "$patch": "replace"}}}


def template_of(revision: Mapping[str, Any]) -> dict[str, Any]:
    template = dict(((revision.get("data") or {}).get("spec") or {}).get("template") or {})
    template.pop("$patch", None)
    return template


def revision_name(owner_name: str, revision_hash: str) -> str:
    return f"{owner_name[:_MAX_NAME_PREFIX]}-{revision_hash}"


def revision_number(revision: Mapping[str, Any]) -> int:
    return int(revision.get("revision") or 0)


def by_number(revisions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Oldest first: by revision number, then creation time and name."""
    return sorted(
        (dict(revision) for revision in revisions),
        key=lambda r: (revision_number(r), r["metadata"].get("creationTimestamp", ""), r["metadata"]["name"]),
    )


def same_data(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    return canonical_json(first.get("data")) == canonical_json(second.get("data"))


@dataclass(frozen=True, slots=True)
class Revisions:
    """An owner's history after making sure its current template has a revision."""

    all: list[dict[str, Any]]
    update: dict[str, Any]
    collision_count: int


class RevisionHistory:
    def __init__(self, client: LocalClient, owner_kind: GroupVersionKind, hash_label: str) -> None:
        self._client = client
        self._owner_kind = owner_kind
        self._hash_label = hash_label

    def owned(self, owner: Mapping[str, Any]) -> list[dict[str, Any]]:
        meta = owner["metadata"]
        return by_number(
            self._client.controlled_by(CONTROLLER_REVISION, meta["uid"], namespace=meta["namespace"])
        )

    def _new_revision(self, owner: Mapping[str, Any], number: int, collision_count: int) -> dict[str, Any]:
        template = owner["spec"]["template"]
        data = revision_data(template)
        revision_hash = compute_hash(data, collision_count or None)
        labels = {**((template.get("metadata") or {}).get("labels") or {}), self._hash_label: revision_hash}
        return {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": revision_name(owner["metadata"]["name"], revision_hash),
                "namespace": owner["metadata"]["namespace"],
                "labels": labels,
                "ownerReferences": [ownership.controller_reference(owner, self._owner_kind)],
            },
            "data": data,
            "revision": number,
        }

    async def ensure_update_revision(self, owner: Mapping[str, Any]) -> Revisions:
        revisions = self.owned(owner)
        collision_count = int((owner.get("status") or {}).get("collisionCount") or 0)
        number = max((revision_number(r) for r in revisions), default=0) + 1
        wanted = self._new_revision(owner, number, collision_count)
        equal = [revision for revision in revisions if same_data(revision, wanted)]
        if equal and equal[-1]["metadata"]["name"] == revisions[-1]["metadata"]["name"]:
            return Revisions(revisions, equal[-1], collision_count)
        if equal:
            renumbered = dict(equal[-1], revision=number)
            update = await self._client.update(CONTROLLER_REVISION, renumbered)
            return Revisions(self.owned(owner), update, collision_count)
        for _ in range(MAX_COLLISIONS):
            try:
                update = await self._client.create(CONTROLLER_REVISION, wanted)
            except errors.AlreadyExists:
                meta = wanted["metadata"]
                existing = self._client.get(CONTROLLER_REVISION, meta["name"], namespace=meta["namespace"])
                if existing is not None and same_data(existing, wanted):
                    return Revisions(self.owned(owner), existing, collision_count)
                collision_count += 1
                wanted = self._new_revision(owner, number, collision_count)
                continue
            return Revisions(self.owned(owner), update, collision_count)
        raise errors.Conflict(
            f"could not name a revision of {owner['metadata']['name']}: too many hash collisions"
        )

    async def truncate(self, owner: Mapping[str, Any], live_names: set[str]) -> None:
        """Delete the oldest revisions no pod or status uses, beyond `revisionHistoryLimit`."""
        limit = int(owner["spec"].get("revisionHistoryLimit", 10))
        dead = [r for r in self.owned(owner) if r["metadata"]["name"] not in live_names]
        for revision in dead[: max(0, len(dead) - limit)]:
            meta = revision["metadata"]
            await self._client.delete(
                CONTROLLER_REVISION, meta["name"], namespace=meta["namespace"], uid=meta["uid"]
            )
