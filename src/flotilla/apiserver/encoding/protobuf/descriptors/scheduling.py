"""Protobuf field tables for scheduling.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import BOOL, INT32, OMITEMPTY, POINTER, STRING, Field, Message

MESSAGES: Final[Mapping[str, Message]] = {
    "scheduling.v1.PriorityClass": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "value", INT32),
        Field(3, "globalDefault", BOOL, OMITEMPTY),
        Field(4, "description", STRING, OMITEMPTY),
        Field(5, "preemptionPolicy", STRING, POINTER | OMITEMPTY),
    ),
}
