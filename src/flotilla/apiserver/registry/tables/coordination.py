"""The Lease table (`coordination.k8s.io/v1`): `NAME HOLDER AGE`.

Leases carry leader election and node heartbeats; HOLDER is the current holder's identity.
"""

from __future__ import annotations

from flotilla.api.duration import since
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import AGE, NAME, Column, Printer
from flotilla.apiserver.registry.tables.objects import created, name, text

LEASE = Printer(
    (NAME, Column("Holder", "string", description=swagger_doc("LeaseSpec.holderIdentity")), AGE),
    lambda obj, now: [name(obj), text(obj, "spec", "holderIdentity"), since(created(obj), now)],
)
