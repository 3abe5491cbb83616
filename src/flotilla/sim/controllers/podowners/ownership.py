"""Controller references: who owns an object, and which candidates a controller claims.

Every object a workload controller creates names it in `metadata.ownerReferences` with
`controller: true` (at most one such reference per object) and `blockOwnerDeletion: true`, so the
garbage collector deletes dependents with their owner and foreground deletion waits for them.
`claim` is kube's `ClaimObject` as a pure decision: a controller keeps what it controls and still
selects, releases what it controls but no longer selects, and adopts orphans it selects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.objects import controller_of
from flotilla.api.scheme import GroupVersion, GroupVersionKind


def controller_reference(owner: Mapping[str, Any], kind: GroupVersionKind) -> dict[str, Any]:
    """The reference a controller puts on what it creates (kube's `NewControllerRef`)."""
    meta = owner["metadata"]
    return {
        "apiVersion": kind.api_version,
        "kind": kind.kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controlled_by(obj: Mapping[str, Any], owner_uid: str) -> bool:
    reference = controller_of(obj)
    return reference is not None and reference.get("uid") == owner_uid


def controller_name(obj: Mapping[str, Any], kind: GroupVersionKind) -> str:
    """The name of the object's controller when it is of `kind` (any version), else ""."""
    reference = controller_of(obj)
    if reference is None or reference.get("kind") != kind.kind:
        return ""
    if GroupVersion.parse(str(reference.get("apiVersion", ""))).group != kind.group:
        return ""
    return str(reference.get("name", ""))


@dataclass(frozen=True, slots=True)
class Claim:
    """What a controller does with the candidates it looked at."""

    owned: list[dict[str, Any]] = field(default_factory=list)
    """Controlled by it and still selected (includes the orphans it adopts)."""
    adopt: list[dict[str, Any]] = field(default_factory=list)
    """Orphans it selects: they get its controller reference."""
    release: list[dict[str, Any]] = field(default_factory=list)
    """Controlled by it but no longer selected: its reference is removed."""


def claim(
    candidates: Iterable[dict[str, Any]],
    owner: Mapping[str, Any],
    selects: Callable[[Mapping[str, str]], bool],
) -> Claim:
    """Sort candidates (objects of the owner's namespace) the way kube's controller ref manager does.

    A deleting owner neither adopts nor releases; a deleting orphan is not adopted; objects another
    controller owns are left alone.
    """
    meta = owner["metadata"]
    uid = meta["uid"]
    owner_deleting = bool(meta.get("deletionTimestamp"))
    result = Claim()
    for candidate in candidates:
        candidate_meta = candidate.get("metadata") or {}
        labels = candidate_meta.get("labels") or {}
        reference = controller_of(candidate)
        if reference is not None:
            if reference.get("uid") != uid:
                continue
            if selects(labels):
                result.owned.append(candidate)
            elif not owner_deleting:
                result.release.append(candidate)
            continue
        if owner_deleting or candidate_meta.get("deletionTimestamp") or not selects(labels):
            continue
        result.adopt.append(candidate)
        result.owned.append(candidate)
    return result


def with_controller(obj: dict[str, Any], reference: Mapping[str, Any]) -> None:
    """Add `reference` as the object's controller (adoption); no-op if it has a controller."""
    if controller_of(obj) is not None:
        return
    meta = obj.setdefault("metadata", {})
    meta["ownerReferences"] = [*(meta.get("ownerReferences") or []), dict(reference)]


def without_owner(obj: dict[str, Any], owner_uid: str) -> None:
    """Remove every reference to `owner_uid` (release)."""
    meta = obj.setdefault("metadata", {})
    kept = [ref for ref in meta.get("ownerReferences") or [] if ref.get("uid") != owner_uid]
    if kept:
        meta["ownerReferences"] = kept
    else:
        meta.pop("ownerReferences", None)
