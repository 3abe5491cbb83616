"""Names Karmada derives from other names: bindings, execution namespaces, Works, permanent ids.

These must come out exactly as Karmada computes them (`pkg/util/names`): a hub that Karmada's
tools inspect, or a migration from Karmada, relies on a Deployment `nginx` in `default` being
bound by ResourceBinding `nginx-deployment` and delivered as Work `nginx-687f7fb96f` in
`karmada-es-<cluster>`.

The Work name is the template's name, shortened to fit a label value, then `-` and a hash: the
32-bit FNV-1a of `<namespace>-<name>-<kind>` (lower case; `:` in names becomes `.`), printed in
decimal and each digit mapped through apimachinery's "safe" alphabet, which avoids vowels and
look-alike characters. (Karmada itself appends the hash to the whole name; the shortening is its
open proposal for names past 52 characters, which would otherwise overflow the Work's label.)

The binding name is `<name>-<kind>`, as Karmada's `GenerateBindingName` makes it, whenever that
fits the 253 characters of an object name. Karmada stops there: a template whose name is within
`len(kind) + 1` characters of the limit never gets a binding (the create is refused, and retried
forever). Here such a name keeps its head, cut so that `<head>-<hash>-<kind>` is 253 characters at
most, with the same kind of hash as a Work's over the full `<name>-<kind>`: every name that fits
stays byte-identical to Karmada's, and two long names with the same head still differ.
"""

from __future__ import annotations

import re
import uuid

from flotilla.api.karmada.constants import (
    EXECUTION_NAMESPACE_PREFIX,
    KARMADA_CLUSTER_NAMESPACE,
    KARMADA_SYSTEM_NAMESPACE,
)

SHORT_NAME_MAX = 52
"""Longest name kept whole in a Work name: with `-` and a 10-character hash it fits 63."""
OBJECT_NAME_MAX = 253
"""Longest object name (a DNS subdomain): bindings are CRD objects and must fit it."""

_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SEPARATORS = re.compile(r"[._\-]")
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def binding_name(kind: str, name: str) -> str:
    """The ResourceBinding (or ClusterResourceBinding) of a template: `<name>-<kind>`, lower case;
    for a name too long for that, `<head of name>-<hash>-<kind>` in 253 characters."""
    name = name.replace(":", ".").lower()
    kind = kind.lower()
    full = f"{name}-{kind}"
    if len(full) <= OBJECT_NAME_MAX:
        return full
    digest = safe_encode(str(fnv32a(full)))
    room = OBJECT_NAME_MAX - len(kind) - len(digest) - 2
    # A DNS subdomain's labels end in an alphanumeric character: no `-` or `.` before the `-<hash>`.
    head = name[:room].rstrip("-.")
    return f"{head}-{digest}-{kind}"


def execution_namespace(cluster: str) -> str:
    """The namespace on the hub holding the Works of `cluster`."""
    return EXECUTION_NAMESPACE_PREFIX + cluster


def cluster_of_execution_namespace(namespace: str) -> str | None:
    """The cluster whose Works `namespace` holds, or None when it is not an execution namespace."""
    if not namespace.startswith(EXECUTION_NAMESPACE_PREFIX):
        return None
    return namespace[len(EXECUTION_NAMESPACE_PREFIX) :]


def is_reserved_namespace(namespace: str) -> bool:
    """Namespaces Karmada never propagates and ClusterPropagationPolicies cannot select."""
    return namespace in (KARMADA_SYSTEM_NAMESPACE, KARMADA_CLUSTER_NAMESPACE) or namespace.startswith(
        EXECUTION_NAMESPACE_PREFIX
    )


def work_name(kind: str, name: str, namespace: str) -> str:
    """The Work delivering template `namespace/name` of `kind` to a cluster (same in every cluster)."""
    name = name.replace(":", ".").lower()
    hashed = f"{namespace}-{name}-{kind}" if namespace else f"{name}-{kind}"
    return f"{short_label_value(name)}-{safe_encode(str(fnv32a(hashed.lower())))}"


def fnv32a(text: str) -> int:
    """The 32-bit FNV-1a hash of the UTF-8 bytes of `text`."""
    value = _FNV32_OFFSET
    for byte in text.encode():
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """apimachinery's `rand.SafeEncodeString`: each character mapped into a vowel-free alphabet."""
    return "".join(_SAFE_ALPHABET[ord(character) % len(_SAFE_ALPHABET)] for character in text)


def short_label_value(name: str, limit: int = SHORT_NAME_MAX) -> str:
    """`name` when it fits `limit`, else shortened as Karmada's `ShortNameLabelValue` does.

    The name is split at `.`, `_` and `-`. Leading parts are kept whole while they fit; the part
    where room runs out is cut to what is left (or dropped), and every part after it is reduced to
    its first letter, appended as one final part: `lala.134-ab_abc-…-1234567890123-a-b` keeps its
    head and ends in `-12345678-ab`. Names that cannot be split usefully are truncated.
    """
    if len(name) <= limit:
        return name
    parts = _SEPARATORS.split(name)
    used = 0
    cut_at = 0
    room = 0
    for position, part in enumerate(parts):
        # `position` separators precede this part.
        if used + len(part) + position < limit:
            used += len(part)
            continue
        if position == 0:
            break
        for candidate in range(position, 0, -1):
            room = limit - used - len(parts)
            if room >= 0 and len(parts[candidate]) > room:
                cut_at = candidate
                break
            used -= len(parts[candidate - 1])
        if cut_at:
            break
    if not cut_at:
        return name[:limit]
    initials = parts[cut_at][:1] if room == 0 else ""
    initials += "".join(part[:1] for part in parts[cut_at + 1 :])
    kept = [*parts[:cut_at], parts[cut_at][:room]] if room > 0 else parts[:cut_at]
    if initials:
        kept.append(initials)
    return "-".join(kept)


def new_permanent_id() -> str:
    """A fresh permanent id (a random UUID), as admission assigns to new policies and bindings."""
    return str(uuid.uuid4())
