"""Protobuf field tables for coordination.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import INT32, OMITEMPTY, POINTER, STRING, Field, Message

MESSAGES: Final[Mapping[str, Message]] = {
    "coordination.v1.Lease": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "coordination.v1.LeaseSpec", OMITEMPTY),
    ),
    "coordination.v1.LeaseSpec": (
        Field(1, "holderIdentity", STRING, POINTER | OMITEMPTY),
        Field(2, "leaseDurationSeconds", INT32, POINTER | OMITEMPTY),
        Field(3, "acquireTime", "meta.v1.MicroTime", POINTER | OMITEMPTY),
        Field(4, "renewTime", "meta.v1.MicroTime", POINTER | OMITEMPTY),
        Field(5, "leaseTransitions", INT32, POINTER | OMITEMPTY),
        Field(6, "strategy", STRING, POINTER | OMITEMPTY),
        Field(7, "preferredHolder", STRING, POINTER | OMITEMPTY),
    ),
}
