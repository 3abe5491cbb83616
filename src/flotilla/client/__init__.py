"""An asyncio Kubernetes client for Flotilla's controllers, agent and CLI.

Raw JSON dicts in and out (no generated models), kinds addressed by GroupVersionKind and mapped to
resources through discovery, errors as a small tree of our own (`errors.py`) so the HTTP library
never leaks upward, and an informer (`informer.py`) that lists, watches and relists.
"""

from flotilla.client.client import Client
from flotilla.client.errors import (
    AlreadyExists,
    APIStatusError,
    ClientError,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    NotFound,
    Unavailable,
)
from flotilla.client.kubeconfig import ClusterConfig, load_kubeconfig
from flotilla.client.watchevents import WatchEvent

__all__ = [
    "APIStatusError",
    "AlreadyExists",
    "Client",
    "ClientError",
    "ClusterConfig",
    "Conflict",
    "Forbidden",
    "Gone",
    "Invalid",
    "NotFound",
    "Unavailable",
    "WatchEvent",
    "load_kubeconfig",
]
