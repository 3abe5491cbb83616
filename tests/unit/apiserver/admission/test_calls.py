"""The webhook client words its failures as the Go client does and honours the CA bundle."""

from __future__ import annotations

import pytest

from flotilla.apiserver.admission.calls import (
    Endpoint,
    WebhookCallError,
    WebhookClient,
    http_failure,
    tls_context,
    with_timeout_hint,
)
from tests.unit.apiserver.admission.webhook_server import WebhookServer, allow


def test_the_timeout_hint_is_added_as_a_query_parameter() -> None:
    """The URL carries `timeout=<n>s` as client-go sends it."""
    assert (
        with_timeout_hint("https://hook.example.com/check", 7) == "https://hook.example.com/check?timeout=7s"
    )


def test_a_non_2xx_answer_reports_the_status_message_or_a_generic_phrase() -> None:
    """A Status body's message is used; otherwise the Go client's phrase for the code."""
    status = b'{"kind": "Status", "message": "webhook is overloaded", "code": 503}'
    assert http_failure(503, status) == "webhook is overloaded"
    assert http_failure(404, b"") == "the server could not find the requested resource"
    assert (
        http_failure(500, b"boom")
        == 'an error on the server ("boom") has prevented the request from succeeding'
    )


def test_a_ca_bundle_that_is_not_pem_cannot_build_a_client() -> None:
    """Bytes that are not a PEM certificate fail the call with kube's REST client wording."""
    with pytest.raises(WebhookCallError, match="unable to load root certificates"):
        tls_context("bm90IGEgY2VydGlmaWNhdGU=")


async def test_a_call_trusting_the_webhooks_ca_gets_its_answer() -> None:
    """The session verifies the serving certificate against the bundle and returns the body."""
    client = WebhookClient()
    try:
        with WebhookServer({"/allow": allow}) as hook:
            raw = await client.post(
                Endpoint(hook.url("/allow"), hook.ca_bundle, 5),
                b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u"}}',
            )
    finally:
        await client.close()
    assert b'"allowed": true' in raw


async def test_an_unknown_path_is_a_404_failure() -> None:
    """A webhook server answering 404 fails the call with the Go client's not-found phrase."""
    client = WebhookClient()
    try:
        with WebhookServer({}) as hook, pytest.raises(WebhookCallError) as failed:
            await client.post(Endpoint(hook.url("/missing"), hook.ca_bundle, 5), b"{}")
    finally:
        await client.close()
    assert failed.value.reason == "failed to call webhook: the server could not find the requested resource"
