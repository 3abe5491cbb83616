"""CertificateSigningRequests are garbage-collected, as kube-controller-manager's csrcleaner does.

Requests pile up — every agent registration and renewal leaves one — and hold nothing once decided.
A light periodic pass over the cache deletes a request when it is:

- issued (approved, with a certificate) and approved more than an hour ago;
- denied, or failed, more than an hour ago;
- pending (no condition at all) for more than a day since its creation;
- issued with a certificate that has expired.

"Ago" is read from the condition's `lastUpdateTime`, as kube reads it. The first pass runs soon
after start, later ones every `interval` (kube's is an hour).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from datetime import datetime, timedelta
from typing import Any

import structlog
from cryptography import x509

from flotilla.api.times import timestamp
from flotilla.apiserver import errors
from flotilla.apiserver.certificates.signingrequests import (
    APPROVED,
    CSR,
    DENIED,
    FAILED,
    certificate,
    conditions,
)
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.runtime.periodic import PeriodicTask

log = structlog.get_logger("flotilla.apiserver.certificates")

DECIDED_TTL = timedelta(hours=1)
PENDING_TTL = timedelta(hours=24)


def _older_than(stamp: Any, age: timedelta, now: datetime) -> bool:
    when = timestamp(stamp) if isinstance(stamp, str) and stamp else None
    return when is not None and when + age < now


def certificate_expired(encoded: str, now: datetime) -> bool:
    """Whether the first certificate of `status.certificate` is past its notAfter."""
    try:
        issued = x509.load_pem_x509_certificate(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError):
        return False
    return issued.not_valid_after_utc < now


def expiry_reason(csr: dict[str, Any], now: datetime) -> str:
    """Why the cleaner deletes this request now ("" to keep it)."""
    issued = bool(certificate(csr))
    found = conditions(csr)
    for condition in found:
        kind = condition.get("type")
        updated = condition.get("lastUpdateTime")
        if kind == APPROVED and issued and _older_than(updated, DECIDED_TTL, now):
            return "issued more than an hour ago"
        if kind == DENIED and _older_than(updated, DECIDED_TTL, now):
            return "denied more than an hour ago"
        if kind == FAILED and _older_than(updated, DECIDED_TTL, now):
            return "failed more than an hour ago"
    created = (csr.get("metadata") or {}).get("creationTimestamp")
    if not found and _older_than(created, PENDING_TTL, now):
        return "pending for more than a day"
    if (
        issued
        and any(c.get("type") == APPROVED for c in found)
        and certificate_expired(certificate(csr), now)
    ):
        return "its certificate has expired"
    return ""


class CSRCleaner:
    NAME = "csrcleaner"

    def __init__(self, ctx: APIContext, interval: float = 3600.0, first_delay: float = 5.0) -> None:
        self.ctx = ctx
        self.interval = interval
        self.first_delay = first_delay
        self._timer = PeriodicTask(self.NAME, self.clean_once, interval, first_delay=first_delay)

    def start(self) -> None:
        self._timer.start()

    async def stop(self) -> None:
        await self._timer.stop()

    async def clean_once(self) -> int:
        """Delete every request past its time; returns how many were deleted."""
        served = self.ctx.registry.by_kind(CSR)
        if served is None:
            return 0
        now = self.ctx.clock()
        deleted = 0
        for item in self.ctx.cache.list(served.storage_prefix):
            reason = expiry_reason(item.obj, now)
            if not reason or item.metadata.get("deletionTimestamp"):
                continue
            with contextlib.suppress(errors.NotFound, errors.Conflict):
                await delete_object(
                    self.ctx,
                    served,
                    "",
                    item.name,
                    DeleteOptions(False, "Background", None, item.metadata.get("uid", "")),
                )
                deleted += 1
                log.info("certificates.csr.cleaned", name=item.name, reason=reason)
        return deleted
