"""Pod templates: their hash, comparing them, and the pods and copies made from them.

A Deployment names each ReplicaSet after a hash of its pod template (`<deployment>-<hash>`, the
`pod-template-hash` label); DaemonSets and StatefulSets name their revisions the same way. kube
computes FNV-32a over a deep print of the Go struct and spells the decimal number with a
vowel-free alphabet; we hash the canonical JSON of the template instead, so our hashes have
kube's form and stability (same template → same hash; the collision count changes it) but not
its exact values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from flotilla.api.objects import copy_object

POD_TEMPLATE_HASH_LABEL = "pod-template-hash"

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""kube's `rand.SafeEncodeString` alphabet: no vowels, no look-alike characters."""


def fnv32a(data: bytes) -> int:
    value = _FNV32_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """Spell each character with the safe alphabet (how kube turns a hash number into a name)."""
    return "".join(_SAFE_ALPHABET[ord(char) % len(_SAFE_ALPHABET)] for char in text)


def canonical_json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def compute_hash(value: Any, collision_count: int | None = None) -> str:
    """The hash of a template (or revision data), changed by a non-null collision count."""
    data = canonical_json(value)
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little")
    return safe_encode(str(fnv32a(data)))


def without_label(template: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A copy of a pod template without one label (dropping an emptied label map)."""
    copied = copy_object(dict(template))
    meta = copied.get("metadata") or {}
    labels = meta.get("labels")
    if isinstance(labels, dict):
        labels.pop(key, None)
        if not labels:
            meta.pop("labels")
    if "metadata" in copied and not meta:
        copied.pop("metadata")
    return copied


def with_label(template: Mapping[str, Any], key: str, value: str) -> dict[str, Any]:
    """A copy of a pod template with one more label."""
    copied = copy_object(dict(template))
    meta = copied.setdefault("metadata", {})
    meta["labels"] = {**(meta.get("labels") or {}), key: value}
    return copied


def equal_ignoring_hash(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether two templates differ at most in their `pod-template-hash` label (kube's `EqualIgnoreHash`)."""
    return canonical_json(without_label(first, POD_TEMPLATE_HASH_LABEL)) == canonical_json(
        without_label(second, POD_TEMPLATE_HASH_LABEL)
    )


def generate_name_prefix(controller_name: str) -> str:
    """The `generateName` of a controller's pods: `<controller>-` (the server adds five characters)."""
    return f"{controller_name}-"


def pod_from_template(
    template: Mapping[str, Any],
    *,
    namespace: str,
    owner_reference: Mapping[str, Any],
    name: str = "",
    generate_name: str = "",
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A new pod from a template: its labels, annotations and finalizers, its spec, an owner.

    kube's `GetPodFromTemplate`; `labels` are added on top of the template's (identity labels such
    as a StatefulSet's pod name).
    """
    template_meta = template.get("metadata") or {}
    meta: dict[str, Any] = {"namespace": namespace, "ownerReferences": [dict(owner_reference)]}
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate_name
    pod_labels = {**(template_meta.get("labels") or {}), **(labels or {})}
    if pod_labels:
        meta["labels"] = pod_labels
    if template_meta.get("annotations"):
        meta["annotations"] = dict(template_meta["annotations"])
    if template_meta.get("finalizers"):
        meta["finalizers"] = list(template_meta["finalizers"])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": copy_object(template.get("spec") or {}),
    }
