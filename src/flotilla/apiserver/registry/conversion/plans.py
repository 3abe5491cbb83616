"""Which versions of a CRD are served, and how its objects are converted between them.

* `strategy: None` (kube's default): every served version, converted by `NopConverter`;
* the Karmada bindings (`BUILTIN_CONVERTERS`): every served version, converted as Karmada's webhook
  converts them, whatever strategy the CRD names — the hub is its own conversion webhook;
* `strategy: Webhook`: this server calls no conversion webhook, so it serves only the storage
  version, serves objects stored at an older version as they are stored, and reports both in the
  CRD's `WebhookConversionNotSupported` condition (`VersionPlan.unsupported`).

A CRD whose objects can only be at one version (it lists one version, which is also the storage
version and the only stored version) needs no conversion at all, and gets none, so reading its
objects costs nothing extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.apiserver.registry.conversion.converters import Conversion, Converter, NopConverter
from flotilla.apiserver.registry.karmada.bindingconversion import BINDING_CRDS, BindingConverter

WEBHOOK = "Webhook"

BUILTIN_CONVERTERS: Mapping[str, Converter] = {name: BindingConverter() for name in BINDING_CRDS}
"""Converters this server has built in, by CRD name (Karmada's conversion webhook, built in)."""


@dataclass(frozen=True, slots=True)
class VersionPlan:
    """What a CRD's versions come to on this server."""

    served: tuple[str, ...]
    """The versions served, in the CRD's order."""
    conversion: Conversion | None
    """How objects reach a served version; None when every object is at the one version served."""
    unsupported: str = ""
    """Why some versions are not served or not converted (webhook conversion); empty when all are."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, Mapping) else {}


def _versions(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    versions = spec.get("versions")
    return [v for v in versions if isinstance(v, Mapping)] if isinstance(versions, list) else []


def storage_version(crd: Mapping[str, Any]) -> str:
    """The version a CRD stores its objects at ("" when none is marked)."""
    for version in _versions(_mapping(crd, "spec")):
        if version.get("storage"):
            return _text(version.get("name"))
    return ""


def stored_versions(crd: Mapping[str, Any]) -> list[str]:
    """`status.storedVersions`: every version objects may still be stored at."""
    stored = _mapping(crd, "status").get("storedVersions")
    return [_text(v) for v in stored if _text(v)] if isinstance(stored, list) else []


def plan_versions(crd: Mapping[str, Any]) -> VersionPlan:
    """The served versions and conversion of `crd`."""
    spec = _mapping(crd, "spec")
    group = _text(spec.get("group"))
    storage = storage_version(crd)
    served = tuple(_text(v.get("name")) for v in _versions(spec) if v.get("served"))
    listed = (_text(v.get("name")) for v in _versions(spec))
    known = {*listed, *stored_versions(crd), storage} - {""}
    name = _text(_mapping(crd, "metadata").get("name"))
    builtin = BUILTIN_CONVERTERS.get(name)
    strategy = _text(_mapping(spec, "conversion").get("strategy")) or "None"
    if len(known) <= 1:
        return VersionPlan(served, None)
    if builtin is not None:
        return VersionPlan(served, Conversion(f"{group}/{storage}", builtin))
    if strategy != WEBHOOK:
        return VersionPlan(served, Conversion(f"{group}/{storage}", NopConverter()))
    kept = tuple(v for v in served if v == storage)
    return VersionPlan(kept, None, _unsupported(storage, served, known))


def _unsupported(storage: str, served: tuple[str, ...], known: set[str]) -> str:
    left_out = [v for v in served if v != storage]
    older = sorted(known - {*served, storage})
    parts = ["this API server does not call conversion webhooks"]
    if storage in served:
        parts.append(f"only the storage version {storage} is served")
    else:
        parts.append(f"the storage version {storage} is not served, so no version is")
    if left_out:
        parts.append(f"not {', '.join(left_out)}")
    if older or left_out:
        parts.append("objects stored at another version are served as stored, without conversion")
    return "; ".join(parts)
