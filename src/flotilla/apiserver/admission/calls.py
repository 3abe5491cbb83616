"""Calling admission webhooks over HTTPS: the only I/O of webhook admission.

The client itself (`flotilla.client.webhookcalls`) is shared with Karmada's resource interpreter
webhooks, which the controllers call and which may not import the API server; it is re-exported
here under the names admission has always used.
"""

from __future__ import annotations

from flotilla.client.webhookcalls import (
    HEADERS,
    Endpoint,
    WebhookCallError,
    WebhookClient,
    describe_failure,
    http_failure,
    tls_context,
    with_timeout_hint,
)

__all__ = [
    "HEADERS",
    "Endpoint",
    "WebhookCallError",
    "WebhookClient",
    "describe_failure",
    "http_failure",
    "tls_context",
    "with_timeout_hint",
]
