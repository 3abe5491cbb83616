"""The CertificateSigningRequest table: `NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION`.

CONDITION summarises the approval conditions in precedence order: `Denied`, else `Approved`, else
`Pending`, then `,Failed` when signing failed and `,Issued` once a certificate is present.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flotilla.api.duration import human_duration, since
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import NONE
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer
from flotilla.apiserver.registry.tables.objects import created, name, objects, optional_integer, text


def request_condition(request: dict[str, Any]) -> str:
    types = {text(condition, "type") for condition in objects(request, "status", "conditions")}
    status = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        status += ",Failed"
    if text(request, "status", "certificate"):
        status += ",Issued"
    return status


def _request_row(request: dict[str, Any], now: datetime) -> list[Cell]:
    seconds = optional_integer(request, "spec", "expirationSeconds")
    return [
        name(request),
        since(created(request), now),
        text(request, "spec", "signerName") or NONE,
        text(request, "spec", "username"),
        NONE if seconds is None else human_duration(timedelta(seconds=seconds)),
        request_condition(request),
    ]


CERTIFICATE_SIGNING_REQUEST = Printer(
    (
        NAME,
        AGE,
        Column("SignerName", "string", description=swagger_doc("CertificateSigningRequestSpec.signerName")),
        Column("Requestor", "string", description=swagger_doc("CertificateSigningRequestSpec.request")),
        Column(
            "RequestedDuration",
            "string",
            description=swagger_doc("CertificateSigningRequestSpec.expirationSeconds"),
        ),
        Column("Condition", "string", description=swagger_doc("CertificateSigningRequestStatus.conditions")),
    ),
    _request_row,
)
