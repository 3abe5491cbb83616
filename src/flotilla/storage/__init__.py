"""Revisioned key-value storage with etcd's model; only the API server imports this package."""

from flotilla.storage.backend import (
    Backend,
    BackendClosedError,
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    StorageError,
)

__all__ = [
    "Backend",
    "BackendClosedError",
    "CompactedError",
    "Event",
    "EventType",
    "FutureRevisionError",
    "KeyExistsError",
    "KeyNotFoundError",
    "KeyValue",
    "RangeResult",
    "RevisionMismatchError",
    "StorageError",
]
