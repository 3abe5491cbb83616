"""The rules of a CSR's status: its conditions list and its certificate (kube's CSR update validation).

Conditions are a list with at most one entry per type. Approved, Denied and Failed may only be
`"True"`; Approved and Denied exclude each other; none of the three may be removed once added.
Approved and Denied change only through the `approval` subresource; the certificate only through
`status`, once: a certificate, once issued, never changes. Requests already stored in breach of a
rule (both Approved and Denied, duplicate or empty types) may keep it, as kube tolerates old data.

Timestamps are the server's: a condition without `lastUpdateTime` gets the time of the write, and
without `lastTransitionTime` the time of the stored condition of the same type and status, or now.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime
from typing import Any

from cryptography import x509

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.times import format_time
from flotilla.apiserver.certificates.signingrequests import (
    APPROVED,
    DENIED,
    FAILED,
    certificate,
    conditions,
)

CONDITIONS = "status.conditions"
TRUE_ONLY = (APPROVED, DENIED, FAILED)
ANY_STATUS = ("False", "True", "Unknown")
PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


def populate_timestamps(new: list[dict[str, Any]], old: list[dict[str, Any]], now: datetime) -> None:
    """Fill the timestamps a client left out (in place)."""
    stamp = format_time(now)
    for condition in new:
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = stamp
        if not condition.get("lastTransitionTime"):
            condition["lastTransitionTime"] = next(
                (
                    previous["lastTransitionTime"]
                    for previous in old
                    if previous.get("type") == condition.get("type")
                    and previous.get("status") == condition.get("status")
                    and previous.get("lastTransitionTime")
                ),
                stamp,
            )


def condition_errors(new: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """Each condition well-formed, Approved and Denied exclusive, one condition per type."""
    previous = conditions(old) if old is not None else []
    types_before = [c.get("type") for c in previous]
    tolerate_both = APPROVED in types_before and DENIED in types_before
    tolerate_duplicates = len(set(types_before)) < len(types_before)
    tolerate_empty = "" in types_before or None in types_before
    found: list[FieldError] = []
    seen: set[str] = set()
    approved = denied = False
    for position, condition in enumerate(conditions(new)):
        path = fielderrors.index(CONDITIONS, position)
        kind = str(condition.get("type") or "")
        status = str(condition.get("status") or "")
        if not kind and not tolerate_empty:
            found.append(fielderrors.required(f"{path}.type"))
        allowed = ("True",) if kind in TRUE_ONLY else ANY_STATUS
        if not status:
            found.append(fielderrors.required(f"{path}.status"))
        elif status not in allowed:
            found.append(fielderrors.not_supported(f"{path}.status", status, allowed))
        approved = approved or kind == APPROVED
        denied = denied or kind == DENIED
        if kind in (APPROVED, DENIED) and approved and denied and not tolerate_both:
            found.append(
                fielderrors.invalid(
                    f"{path}.type", kind, "Approved and Denied conditions are mutually exclusive"
                )
            )
        if kind in seen and not tolerate_duplicates:
            found.append(fielderrors.duplicate(f"{path}.type", kind))
        seen.add(kind)
    return found


def update_errors(
    new: dict[str, Any], old: dict[str, Any], *, approval: bool = False, status: bool = False
) -> list[FieldError]:
    """What an update of a CSR's status may not do (`approval`/`status`: the subresource written)."""
    found = condition_errors(new, old)
    for kind in TRUE_ONLY:
        if len(_of_type(new, kind)) < len(_of_type(old, kind)):
            found.append(
                fielderrors.forbidden(CONDITIONS, f'updates may not remove a condition of type "{kind}"')
            )
    if not approval:
        for kind in (APPROVED, DENIED):
            before, after = _of_type(old, kind), _of_type(new, kind)
            if len(after) > len(before):
                found.append(
                    fielderrors.forbidden(CONDITIONS, f'updates may not add a condition of type "{kind}"')
                )
            elif len(after) == len(before) and after != before:
                found.append(
                    fielderrors.forbidden(CONDITIONS, f'updates may not modify a condition of type "{kind}"')
                )
    issued, previously = certificate(new), certificate(old)
    if issued != previously:
        if not status:
            found.append(
                fielderrors.forbidden("status.certificate", "updates may not set certificate content")
            )
        elif previously:
            found.append(
                fielderrors.forbidden(
                    "status.certificate", "updates may not modify existing certificate content"
                )
            )
        elif problem := certificate_problem(issued):
            found.append(fielderrors.invalid("status.certificate", "<certificate data>", problem))
    return found


def certificate_problem(encoded: str) -> str:
    """Why `status.certificate` (base64 of PEM) is not a chain of certificates ("" when it is)."""
    try:
        pem = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return "must be base64-encoded PEM data"
    blocks = PEM_BLOCK.findall(pem)
    if not blocks:
        return "must contain at least one CERTIFICATE PEM block"
    for kind, _ in blocks:
        if kind != b"CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{kind.decode()}"'
    try:
        x509.load_pem_x509_certificates(pem)
    except ValueError as exc:
        return f"x509: malformed certificate: {exc}"
    return ""


def _of_type(csr: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [c for c in conditions(csr) if c.get("type") == kind]
