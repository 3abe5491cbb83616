"""Webhook admission in the write pipeline, against a real HTTPS webhook server in a thread."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.admission.review import WebhookStatusError
from flotilla.apiserver.admission.webhooks import MUTATING_CONFIGURATION
from flotilla.apiserver.registry.scale import with_replicas
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.writes import pipeline
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.apiserver.writes.normalize import FieldValidation
from tests.unit.apiserver.admission.conftest import Server
from tests.unit.apiserver.admission.webhook_server import (
    WebhookServer,
    allow,
    webhook,
    webhook_configuration,
)
from tests.unit.apiserver.registry.validation.manifests import deployment

MUTATING = "MutatingWebhookConfiguration"
VALIDATING = "ValidatingWebhookConfiguration"


def config_map(name: str = "settings", namespace: str = "default", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "data": {"key": "value"},
    }


def deny_labelled(request: dict[str, Any]) -> dict[str, Any]:
    labels = ((request.get("object") or {}).get("metadata") or {}).get("labels") or {}
    if labels.get("deny") == "yes":
        return {"allowed": False, "status": {"message": "configmaps labelled deny=yes are not welcome"}}
    return {"allowed": True}


async def register(server: Server, kind: str, name: str, *webhooks: dict[str, Any]) -> None:
    await server.create(webhook_configuration(kind, name, list(webhooks)))


async def test_a_denial_fails_the_create_with_the_webhooks_message_and_code_400(server: Server) -> None:
    """A refusal without a code answers 400 with kube's `denied the request` wording; nothing is stored."""
    await server.namespace("default")
    with WebhookServer({"/validate": deny_labelled}) as hook:
        await register(
            server, VALIDATING, "deny", webhook("deny.example.com", hook.url("/validate"), hook.ca_bundle)
        )
        with pytest.raises(WebhookStatusError) as refused:
            await server.create(config_map(deny="yes"))
        await server.create(config_map("welcome"))
    status = refused.value.status()
    assert refused.value.code == 400
    assert status["message"] == (
        'admission webhook "deny.example.com" denied the request: '
        "configmaps labelled deny=yes are not welcome"
    )
    assert "reason" not in status
    assert server.ctx.store.get(server.served("ConfigMap"), "default", "settings") is None


async def test_a_denial_keeps_the_status_code_and_reason_the_webhook_chose(server: Server) -> None:
    """A webhook answering 403 Forbidden (controller-runtime's `Denied`) is relayed as such."""
    await server.namespace("default")

    def forbid(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": False, "status": {"code": 403, "reason": "Forbidden", "message": "not today"}}

    with WebhookServer({"/forbid": forbid}) as hook:
        await register(
            server, VALIDATING, "forbid", webhook("forbid.example.com", hook.url("/forbid"), hook.ca_bundle)
        )
        with pytest.raises(WebhookStatusError) as refused:
            await server.create(config_map())
    assert (refused.value.code, refused.value.status()["reason"]) == (403, "Forbidden")
    assert refused.value.message == 'admission webhook "forbid.example.com" denied the request: not today'


async def test_the_review_describes_the_request_in_admission_v1(server: Server) -> None:
    """The AdmissionReview carries kind, resource, names, operation, user, object, dryRun and options."""
    await server.namespace("default")
    with WebhookServer({"/allow": allow}) as hook:
        await register(
            server, VALIDATING, "look", webhook("look.example.com", hook.url("/allow"), hook.ca_bundle)
        )
        await server.create(config_map())
        (request,) = hook.received("/allow")
        (path, review), *_ = hook.reviews
    assert (path, review["apiVersion"], review["kind"]) == (
        "/allow",
        "admission.k8s.io/v1",
        "AdmissionReview",
    )
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["requestKind"] == request["kind"]
    assert (request["name"], request["namespace"], request["operation"]) == ("settings", "default", "CREATE")
    assert request["object"]["data"] == {"key": "value"}
    assert request["oldObject"] is None
    assert request["dryRun"] is False
    assert request["options"]["kind"] == "CreateOptions"
    assert request["userInfo"]["username"] == "system:apiserver"


async def test_a_mutating_webhooks_json_patch_is_stored(server: Server) -> None:
    """A `JSONPatch` answer that adds a label ends up in the stored object."""
    await server.namespace("default")

    def label(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, "patch": [{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}]}

    with WebhookServer({"/mutate": label}) as hook:
        await register(
            server, MUTATING, "label", webhook("label.example.com", hook.url("/mutate"), hook.ca_bundle)
        )
        stored = await server.create(config_map())
    assert stored.obj["metadata"]["labels"] == {"mutated": "yes"}


async def test_mutating_webhooks_run_by_configuration_name_each_seeing_earlier_patches(
    server: Server,
) -> None:
    """Configuration `a-first` runs before `b-second`, and the second sees the first one's label."""
    await server.namespace("default")

    def first(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, "patch": [{"op": "add", "path": "/metadata/labels/first", "value": "1"}]}

    def second(request: dict[str, Any]) -> dict[str, Any]:
        seen = request["object"]["metadata"]["labels"].get("first", "missing")
        return {"allowed": True, "patch": [{"op": "add", "path": "/metadata/labels/second", "value": seen}]}

    with WebhookServer({"/first": first, "/second": second}) as hook:
        await register(
            server, MUTATING, "b-second", webhook("second.example.com", hook.url("/second"), hook.ca_bundle)
        )
        await register(
            server, MUTATING, "a-first", webhook("first.example.com", hook.url("/first"), hook.ca_bundle)
        )
        stored = await server.create(config_map())
        order = [path for path, _ in hook.reviews]
    assert order == ["/first", "/second"]
    assert stored.obj["metadata"]["labels"] == {"first": "1", "second": "1"}


async def test_an_if_needed_webhook_is_called_again_after_a_later_webhook_changed_the_object(
    server: Server,
) -> None:
    """`reinvocationPolicy: IfNeeded` gets a second call that sees the later webhook's change."""
    await server.namespace("default")

    def later(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, "patch": [{"op": "add", "path": "/metadata/labels/later", "value": "x"}]}

    with WebhookServer({"/early": allow, "/later": later}) as hook:
        early = webhook(
            "early.example.com", hook.url("/early"), hook.ca_bundle, reinvocationPolicy="IfNeeded"
        )
        await register(server, MUTATING, "a-early", early)
        await register(
            server, MUTATING, "b-later", webhook("later.example.com", hook.url("/later"), hook.ca_bundle)
        )
        await server.create(config_map())
        calls = hook.received("/early")
    assert len(calls) == 2
    assert "later" in calls[1]["object"]["metadata"]["labels"]


async def test_an_unreachable_webhook_fails_closed_with_kubes_wording(server: Server) -> None:
    """failurePolicy Fail turns a refused connection into a 500 naming the webhook and the Go-style error."""
    await server.namespace("default")
    await register(server, VALIDATING, "gone", webhook("gone.example.com", "https://127.0.0.1:1/x", ""))
    with pytest.raises(errors.InternalError) as failed:
        await server.create(config_map())
    assert failed.value.message == (
        'Internal error occurred: failed calling webhook "gone.example.com": failed to call webhook: '
        'Post "https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused'
    )


async def test_an_unreachable_webhook_with_failure_policy_ignore_is_skipped(server: Server) -> None:
    """failurePolicy Ignore lets the write through when the webhook cannot be called."""
    await server.namespace("default")
    ignored = webhook("gone.example.com", "https://127.0.0.1:1/x", "", failurePolicy="Ignore")
    await register(server, VALIDATING, "gone", ignored)
    stored = await server.create(config_map())
    assert stored.revision > 0


async def test_a_webhook_that_answers_garbage_fails_closed(server: Server) -> None:
    """An answer that is not JSON is a call failure, decided by the failure policy."""
    await server.namespace("default")
    with WebhookServer({"/garbage": lambda _request: b"<html>oops</html>"}) as hook:
        await register(
            server,
            VALIDATING,
            "garbage",
            webhook("garbage.example.com", hook.url("/garbage"), hook.ca_bundle),
        )
        with pytest.raises(errors.InternalError) as failed:
            await server.create(config_map())
    assert failed.value.message.startswith(
        'Internal error occurred: failed calling webhook "garbage.example.com": failed to call webhook: '
        "couldn't get version/kind; json parse error"
    )


async def test_a_webhook_whose_certificate_the_ca_bundle_does_not_sign_is_not_trusted(server: Server) -> None:
    """A serving certificate from another CA fails verification as an unknown authority."""
    await server.namespace("default")
    with WebhookServer({"/allow": allow}) as hook, WebhookServer({}) as stranger:
        await register(
            server, VALIDATING, "tls", webhook("tls.example.com", hook.url("/allow"), stranger.ca_bundle)
        )
        with pytest.raises(errors.InternalError) as failed:
            await server.create(config_map())
        assert hook.received("/allow") == []
    assert failed.value.message.endswith(
        "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    )


async def test_a_webhook_slower_than_its_timeout_fails_with_deadline_exceeded(server: Server) -> None:
    """timeoutSeconds cuts the call off; the error says `context deadline exceeded` as Go does."""
    await server.namespace("default")
    release = threading.Event()

    def slow(request: dict[str, Any]) -> dict[str, Any]:
        release.wait(5)
        return {"allowed": True}

    with WebhookServer({"/slow": slow}) as hook:
        await register(
            server,
            VALIDATING,
            "slow",
            webhook("slow.example.com", hook.url("/slow"), hook.ca_bundle, timeoutSeconds=1),
        )
        try:
            with pytest.raises(errors.InternalError) as failed:
                await server.create(config_map())
        finally:
            release.set()
    assert failed.value.message.endswith('/slow?timeout=1s": context deadline exceeded')


async def test_warnings_of_every_webhook_are_returned(server: Server) -> None:
    """Mutating and validating webhooks' warnings reach the pipeline, in call order."""
    await server.namespace("default")

    def warn(text: str) -> Any:
        return lambda _request: {"allowed": True, "warnings": [text]}

    with WebhookServer({"/m": warn("from mutating"), "/v": warn("from validating")}) as hook:
        await register(server, MUTATING, "m", webhook("m.example.com", hook.url("/m"), hook.ca_bundle))
        await register(server, VALIDATING, "v", webhook("v.example.com", hook.url("/v"), hook.ca_bundle))
        warnings: list[str] = []
        await server.create(config_map(), warnings=warnings)
    assert warnings == ["from mutating", "from validating"]


async def test_a_dry_run_calls_side_effect_free_webhooks_with_dry_run_true_and_stores_nothing(
    server: Server,
) -> None:
    """sideEffects None webhooks see `dryRun: true`; the object is not stored."""
    await server.namespace("default")
    with WebhookServer({"/allow": allow}) as hook:
        await register(
            server, VALIDATING, "dry", webhook("dry.example.com", hook.url("/allow"), hook.ca_bundle)
        )
        await server.create(config_map(), dry_run=True)
        (request,) = hook.received("/allow")
    assert request["dryRun"] is True
    assert request["options"]["dryRun"] == ["All"]
    assert server.ctx.store.get(server.served("ConfigMap"), "default", "settings") is None


async def test_a_dry_run_is_refused_by_a_webhook_with_side_effects(server: Server) -> None:
    """A stored webhook with sideEffects Some (from older configurations) refuses dry runs with a 400."""
    await server.namespace("default")
    with WebhookServer({"/allow": allow}) as hook:
        legacy = webhook("legacy.example.com", hook.url("/allow"), hook.ca_bundle, sideEffects="Some")
        # Stored directly: v1 validation refuses `Some` on create, as kube does.
        served = server.served(VALIDATING)
        await server.ctx.store.create(served, webhook_configuration(VALIDATING, "legacy", [legacy]))
        with pytest.raises(errors.BadRequest) as refused:
            await server.create(config_map(), dry_run=True)
        assert hook.received("/allow") == []
    assert refused.value.message == 'admission webhook "legacy.example.com" does not support dry run'


async def test_webhook_configurations_are_never_sent_to_webhooks(server: Server) -> None:
    """A webhook refusing everything cannot block changes to the webhook configurations themselves."""
    await server.namespace("default")
    refuse_all = {
        "name": "everything.example.com",
        "clientConfig": {"url": "https://127.0.0.1:1/x"},
        "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]}],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    await register(server, VALIDATING, "everything", refuse_all)
    await register(server, MUTATING, "also-everything", refuse_all)
    with pytest.raises(errors.InternalError):
        await server.create(config_map())


async def test_the_namespace_selector_matches_the_labels_of_the_objects_namespace(server: Server) -> None:
    """Only objects in namespaces labelled env=prod reach the webhook."""
    await server.namespace("prod", {"env": "prod"})
    await server.namespace("dev", {"env": "dev"})
    deny_all = {"/deny": lambda _request: {"allowed": False}}
    with WebhookServer(deny_all) as hook:
        selective = webhook(
            "prod.example.com",
            hook.url("/deny"),
            hook.ca_bundle,
            namespaceSelector={"matchLabels": {"env": "prod"}},
        )
        await register(server, VALIDATING, "prod-only", selective)
        await server.create(config_map(namespace="dev"))
        with pytest.raises(WebhookStatusError) as refused:
            await server.create(config_map(namespace="prod"))
    assert (
        refused.value.message == 'admission webhook "prod.example.com" denied the request without explanation'
    )


async def test_the_object_selector_matches_the_labels_of_the_object(server: Server) -> None:
    """Only objects labelled deny=yes reach a webhook selecting them."""
    await server.namespace("default")
    with WebhookServer({"/deny": lambda _request: {"allowed": False}}) as hook:
        selective = webhook(
            "labelled.example.com",
            hook.url("/deny"),
            hook.ca_bundle,
            objectSelector={"matchLabels": {"deny": "yes"}},
        )
        await register(server, VALIDATING, "labelled", selective)
        await server.create(config_map("plain"))
        with pytest.raises(WebhookStatusError):
            await server.create(config_map("marked", deny="yes"))
        assert len(hook.received("/deny")) == 1


async def test_a_delete_is_reviewed_with_the_object_being_deleted_as_old_object(server: Server) -> None:
    """DELETE reaches both webhook kinds with `oldObject` and DeleteOptions; a refusal keeps the object."""
    await server.namespace("default")
    await server.create(config_map())
    with WebhookServer({"/m": allow, "/v": lambda _request: {"allowed": False}}) as hook:
        deleting = ("DELETE",)
        await register(
            server,
            MUTATING,
            "m",
            webhook("m.example.com", hook.url("/m"), hook.ca_bundle, operations=deleting),
        )
        await register(
            server,
            VALIDATING,
            "v",
            webhook("v.example.com", hook.url("/v"), hook.ca_bundle, operations=deleting),
        )
        with pytest.raises(WebhookStatusError):
            await delete_object(
                server.ctx,
                server.served("ConfigMap"),
                "default",
                "settings",
                DeleteOptions(False, "Background"),
            )
        (mutating_request,) = hook.received("/m")
        (request,) = hook.received("/v")
    assert mutating_request["operation"] == "DELETE"
    assert request["object"] is None
    assert request["oldObject"]["metadata"]["name"] == "settings"
    assert request["options"]["kind"] == "DeleteOptions"
    assert server.ctx.store.get(server.served("ConfigMap"), "default", "settings") is not None


async def test_a_scale_update_is_reviewed_as_a_scale_and_its_patch_written_back(server: Server) -> None:
    """Webhooks for `deployments/scale` see an autoscaling/v1 Scale; a patched replica count is stored."""
    await server.namespace("default")
    await server.create(deployment())

    def at_least_five(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, "patch": [{"op": "replace", "path": "/spec/replicas", "value": 5}]}

    with WebhookServer({"/scale": at_least_five}) as hook:
        scaling = webhook("scale.example.com", hook.url("/scale"), hook.ca_bundle)
        scaling["rules"] = [
            {
                "operations": ["UPDATE"],
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "resources": ["deployments/scale"],
            }
        ]
        await register(server, MUTATING, "scale", scaling)
        served = server.served("Deployment")
        info = RequestInfo("apps", "v1", "default", "deployments", "web", "scale", "update")
        options = pipeline.WriteOptions(False, FieldValidation.STRICT, "test")
        stored = await pipeline.update_flow(
            server.ctx,
            served,
            info,
            options,
            lambda current: with_replicas(served, current.copy(), 2),
            subresource="scale",
        )
        (request,) = hook.received("/scale")
    assert request["kind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    assert (request["resource"]["resource"], request["subResource"]) == ("deployments", "scale")
    assert request["object"]["spec"]["replicas"] == 2
    assert stored.obj["spec"]["replicas"] == 5


async def test_a_changed_configuration_takes_effect_on_the_next_request(server: Server) -> None:
    """Compiled webhooks are reused while nothing changes and rebuilt after an update."""
    await server.namespace("default")
    with WebhookServer({"/allow": allow, "/deny": lambda _request: {"allowed": False}}) as hook:
        await register(
            server, MUTATING, "switch", webhook("switch.example.com", hook.url("/allow"), hook.ca_bundle)
        )
        first = server.admission.webhooks(MUTATING_CONFIGURATION)
        assert server.admission.webhooks(MUTATING_CONFIGURATION) is first
        await server.create(config_map("before"))
        current = server.ctx.store.get(server.served(MUTATING), "", "switch")
        assert current is not None
        changed = current.copy()
        changed["webhooks"][0]["clientConfig"]["url"] = hook.url("/deny")
        await server.update(changed)
        with pytest.raises(WebhookStatusError):
            await server.create(config_map("after"))
