"""Protobuf field tables for certificates.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    BYTES,
    INT32,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    MapOf,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "certificates.v1.CertificateSigningRequest": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "certificates.v1.CertificateSigningRequestSpec"),
        Field(3, "status", "certificates.v1.CertificateSigningRequestStatus", OMITEMPTY),
    ),
    "certificates.v1.CertificateSigningRequestCondition": (
        Field(1, "type", STRING),
        Field(6, "status", STRING),
        Field(2, "reason", STRING, OMITEMPTY),
        Field(3, "message", STRING, OMITEMPTY),
        Field(4, "lastUpdateTime", "meta.v1.Time", OMITEMPTY),
        Field(5, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
    ),
    "certificates.v1.CertificateSigningRequestSpec": (
        Field(1, "request", BYTES),
        Field(7, "signerName", STRING),
        Field(8, "expirationSeconds", INT32, POINTER | OMITEMPTY),
        Field(5, "usages", STRING, REPEATED | OMITEMPTY),
        Field(2, "username", STRING, OMITEMPTY),
        Field(3, "uid", STRING, OMITEMPTY),
        Field(4, "groups", STRING, REPEATED | OMITEMPTY),
        Field(6, "extra", MapOf(STRING, "certificates.v1.ExtraValue"), OMITEMPTY),
    ),
    "certificates.v1.CertificateSigningRequestStatus": (
        Field(1, "conditions", "certificates.v1.CertificateSigningRequestCondition", REPEATED | OMITEMPTY),
        Field(2, "certificate", BYTES, OMITEMPTY),
    ),
    "certificates.v1.ExtraValue": (Field(1, "items", STRING, REPEATED),),
}

# Go named slice types (`type ExtraValue []string`): on the wire a message with one
# repeated field, in JSON just the array.
LIST_WRAPPERS: Final = frozenset({"certificates.v1.ExtraValue"})
