"""Protobuf field tables for authentication.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    BOOL,
    INT64,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    MapOf,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "authentication.v1.BoundObjectReference": (
        Field(1, "kind", STRING, OMITEMPTY),
        Field(2, "apiVersion", STRING, OMITEMPTY),
        Field(3, "name", STRING, OMITEMPTY),
        Field(4, "uid", STRING, OMITEMPTY),
    ),
    "authentication.v1.ExtraValue": (Field(1, "items", STRING, REPEATED),),
    "authentication.v1.SelfSubjectReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "status", "authentication.v1.SelfSubjectReviewStatus", OMITEMPTY),
    ),
    "authentication.v1.SelfSubjectReviewStatus": (
        Field(1, "userInfo", "authentication.v1.UserInfo", OMITEMPTY),
    ),
    "authentication.v1.TokenRequest": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authentication.v1.TokenRequestSpec"),
        Field(3, "status", "authentication.v1.TokenRequestStatus", OMITEMPTY),
    ),
    "authentication.v1.TokenRequestSpec": (
        Field(1, "audiences", STRING, REPEATED),
        Field(4, "expirationSeconds", INT64, POINTER),
        Field(3, "boundObjectRef", "authentication.v1.BoundObjectReference", POINTER),
    ),
    "authentication.v1.TokenRequestStatus": (
        Field(1, "token", STRING),
        Field(2, "expirationTimestamp", "meta.v1.Time"),
    ),
    "authentication.v1.TokenReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authentication.v1.TokenReviewSpec"),
        Field(3, "status", "authentication.v1.TokenReviewStatus", OMITEMPTY),
    ),
    "authentication.v1.TokenReviewSpec": (
        Field(1, "token", STRING, OMITEMPTY),
        Field(2, "audiences", STRING, REPEATED | OMITEMPTY),
    ),
    "authentication.v1.TokenReviewStatus": (
        Field(1, "authenticated", BOOL, OMITEMPTY),
        Field(2, "user", "authentication.v1.UserInfo", OMITEMPTY),
        Field(4, "audiences", STRING, REPEATED | OMITEMPTY),
        Field(3, "error", STRING, OMITEMPTY),
    ),
    "authentication.v1.UserInfo": (
        Field(1, "username", STRING, OMITEMPTY),
        Field(2, "uid", STRING, OMITEMPTY),
        Field(3, "groups", STRING, REPEATED | OMITEMPTY),
        Field(4, "extra", MapOf(STRING, "authentication.v1.ExtraValue"), OMITEMPTY),
    ),
}

# Go named slice types (`type ExtraValue []string`): on the wire a message with one
# repeated field, in JSON just the array.
LIST_WRAPPERS: Final = frozenset({"authentication.v1.ExtraValue"})
