"""Webhook admission: MutatingWebhookConfiguration and ValidatingWebhookConfiguration at work.

`WebhookAdmission` is the `Admission` the write pipeline calls. On every call it reads the current
configurations from the watch cache (compiling them again only when one of them changed) and sends
an `AdmissionReview` to each webhook whose rules and selectors match the request (see `matching`):

- mutating webhooks run one after another — configurations by name, webhooks in listed order —
  each seeing the object as the previous ones patched it. Webhooks with `reinvocationPolicy:
  IfNeeded` are called once more, after the others, when a later webhook changed the object (the
  in-tree admission steps never change it after webhooks here, so that is the only trigger);
- validating webhooks are called concurrently; the first refusal in configuration order fails the
  request with the webhook's own status and message;
- a webhook that cannot be reached, times out or answers nonsense fails the request with a 500
  when its `failurePolicy` is `Fail`, and is skipped with a log line when it is `Ignore`;
- a dry-run request is refused (400) by any matching webhook whose `sideEffects` is neither `None`
  nor `NoneOnDryRun`; the others are called with `dryRun: true`;
- warnings from every answer are returned to the pipeline, which sends them as `Warning` headers;
- requests for the webhook configuration kinds themselves never reach a webhook, so a broken
  webhook can always be removed.

A DELETE reaches admission only through `validate` (there is no object to mutate), so mutating
webhooks that match a DELETE are called there first, as kube-apiserver calls them on deletes; a
patch from one of them is an error. Writes to the `scale` subresource are reviewed as the
`autoscaling/v1` Scale kube-apiserver shows webhooks; a patched `spec.replicas` is written back.

`matchConditions` (CEL) are refused when a configuration is written; should a stored one carry
them anyway, they are ignored (the webhook is called) and a log line says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Mapping
from typing import Any

import orjson
import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.admission.attributes import AdmissionAttributes
from flotilla.apiserver.admission.calls import Endpoint, WebhookCallError, WebhookClient
from flotilla.apiserver.admission.matching import MatchRequest, labels_of, should_call
from flotilla.apiserver.admission.registrations import Webhook, compile_configurations
from flotilla.apiserver.admission.review import (
    AdmissionResponse,
    ReviewSubject,
    admission_review,
    apply_patch,
    decode_patch,
    denial,
    internal_error,
    read_response,
    review_version,
)
from flotilla.apiserver.registry import scale
from flotilla.apiserver.registry.resources import ResourceRegistry
from flotilla.apiserver.store.watchcache import WatchCache

log = structlog.get_logger("flotilla.apiserver.admission.webhooks")

ADMISSION_REGISTRATION = "admissionregistration.k8s.io"
MUTATING_CONFIGURATION = GroupVersionKind(ADMISSION_REGISTRATION, "v1", "MutatingWebhookConfiguration")
VALIDATING_CONFIGURATION = GroupVersionKind(ADMISSION_REGISTRATION, "v1", "ValidatingWebhookConfiguration")
EXEMPT_KINDS = frozenset(
    {
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)
"""Kinds never sent to webhooks (kube's `IsExemptAdmissionConfigurationResource`)."""
DRY_RUN_SAFE = ("None", "NoneOnDryRun")


@dataclasses.dataclass(slots=True)
class Review:
    """One request under review: what matching needs, and the object as webhooks have left it."""

    attributes: AdmissionAttributes
    match: MatchRequest
    kind: GroupVersionKind
    obj: dict[str, Any] | None
    old: dict[str, Any] | None

    def subject(self) -> ReviewSubject:
        attributes = self.attributes
        return ReviewSubject(
            operation=attributes.operation,
            kind=self.kind,
            group=self.match.group,
            version=self.match.version,
            resource=self.match.resource,
            subresource=self.match.subresource,
            name=attributes.name,
            namespace=self.match.namespace,
            user=attributes.user,
            obj=self.obj,
            old=self.old,
            dry_run=attributes.dry_run,
            options=attributes.options,
        )

    @property
    def is_scale(self) -> bool:
        return self.match.subresource == "scale"


def review_of(
    attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
) -> Review:
    """The review of a request: the kind webhooks see (a Scale for `scale`) and its namespace."""
    served = attributes.resource
    resource_type = served.type
    subresource = resource_type.subresource(attributes.subresource) if attributes.subresource else None
    kind = subresource.kind if subresource is not None and subresource.kind is not None else resource_type.gvk
    request = MatchRequest(
        operation=attributes.operation,
        group=resource_type.group,
        version=resource_type.version,
        resource=resource_type.plural,
        subresource=attributes.subresource,
        namespace=attributes.namespace,
    )
    if request.is_namespace and attributes.operation != "CREATE":
        # kube reads a namespace's own name as the namespace of requests to it.
        request = dataclasses.replace(request, namespace=attributes.name)
    if request.subresource == "scale":
        obj = scale.scale_of(served, obj) if obj is not None else None
        old = scale.scale_of(served, old) if old is not None else None
    return Review(attributes, request, kind, obj, old)


def is_exempt(attributes: AdmissionAttributes) -> bool:
    resource_type = attributes.resource.type
    return resource_type.group == ADMISSION_REGISTRATION and resource_type.kind in EXEMPT_KINDS


def patch_operations(webhook: Webhook, response: AdmissionResponse, review: Review) -> list[Any]:
    """The JSON patch operations of a mutating webhook's answer, checked as kube checks them."""
    operations = decode_patch(response.patch)
    if operations and review.obj is None:
        raise internal_error(
            f'admission webhook "{webhook.name}" attempted to modify the object, which is not '
            "supported for this operation"
        )
    if operations and response.patch_type != "JSONPatch":
        raise WebhookCallError(f'unsupported patch type "{response.patch_type}"')
    return operations


@dataclasses.dataclass(frozen=True, slots=True)
class _Compiled:
    changed_at: int
    """The revision of the last change to the configurations these webhooks were compiled from."""
    webhooks: list[Webhook]


class WebhookAdmission:
    """Admission by the webhooks of the stored webhook configurations (one per API server)."""

    def __init__(
        self, registry: ResourceRegistry, cache: WatchCache, client: WebhookClient | None = None
    ) -> None:
        self._registry = registry
        self._cache = cache
        self._client = client or WebhookClient()
        self._compiled: dict[GroupVersionKind, _Compiled] = {}

    # -- the Admission protocol ------------------------------------------------------------------

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        if is_exempt(attributes):
            return []
        webhooks = self.webhooks(MUTATING_CONFIGURATION)
        if not webhooks:
            return []
        review = review_of(attributes, obj, old)
        warnings: list[str] = []
        await self._run_mutating(webhooks, review, warnings)
        if review.is_scale:
            replicas = ((review.obj or {}).get("spec") or {}).get("replicas")
            if isinstance(replicas, int) and not isinstance(replicas, bool):
                scale.with_replicas(attributes.resource, obj, replicas)
        elif review.obj is not obj and review.obj is not None:
            obj.clear()
            obj.update(review.obj)
        return warnings

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        if is_exempt(attributes):
            return []
        mutating = self.webhooks(MUTATING_CONFIGURATION) if attributes.operation == "DELETE" else []
        validating = self.webhooks(VALIDATING_CONFIGURATION)
        if not mutating and not validating:
            return []
        review = review_of(attributes, obj, old)
        warnings: list[str] = []
        if mutating:
            await self._run_mutating(mutating, review, warnings)
        if validating:
            await self._run_validating(validating, review, warnings)
        return warnings

    async def close(self) -> None:
        """Release the HTTP client (call when the API server stops)."""
        await self._client.close()

    # -- configurations ----------------------------------------------------------------------------

    def webhooks(self, kind: GroupVersionKind) -> list[Webhook]:
        """The webhooks of the current configurations of `kind`, compiled again only after a change."""
        served = self._registry.by_kind(kind)
        if served is None:
            return []
        changed_at = self._cache.last_change(served.storage_prefix)
        compiled = self._compiled.get(kind)
        if compiled is None or compiled.changed_at != changed_at:
            items = self._cache.list(served.storage_prefix)
            webhooks = compile_configurations(
                (item.obj for item in items), mutating=kind == MUTATING_CONFIGURATION
            )
            for webhook in webhooks:
                if webhook.has_match_conditions:
                    log.warning(
                        "admission.webhook.match_conditions_ignored",
                        webhook=webhook.name,
                        configuration=webhook.configuration,
                    )
            compiled = self._compiled[kind] = _Compiled(changed_at, webhooks)
        return compiled.webhooks

    def _namespace_labels(self, name: str) -> Mapping[str, str] | None:
        served = self._registry.lookup("", "v1", "namespaces")
        found = self._cache.get(served.key("", name)) if served is not None else None
        return labels_of(found.obj) if found is not None else None

    def _should_call(self, webhook: Webhook, review: Review) -> bool:
        return should_call(webhook, review.match, review.obj, review.old, self._namespace_labels)

    # -- dispatch ----------------------------------------------------------------------------------

    async def _run_mutating(self, webhooks: list[Webhook], review: Review, warnings: list[str]) -> None:
        invoked: set[tuple[str, int]] = set()
        reinvoke: set[tuple[str, int]] = set()
        for webhook in webhooks:
            if not self._should_call(webhook, review):
                continue
            if await self._admit(webhook, review, warnings):
                reinvoke |= invoked
            if webhook.reinvoke_if_needed:
                invoked.add(webhook.identity)
        for webhook in webhooks:
            if webhook.identity in reinvoke and self._should_call(webhook, review):
                await self._admit(webhook, review, warnings)

    async def _admit(self, webhook: Webhook, review: Review, warnings: list[str]) -> bool:
        """Call one mutating webhook and apply its patch; whether the object changed."""
        response = await self._call(webhook, review)
        if response is None:
            return False
        warnings.extend(response.warnings)
        if not response.allowed:
            raise denial(webhook.name, response.result)
        if not response.patch:
            return False
        try:
            operations = patch_operations(webhook, response, review)
        except WebhookCallError as failure:
            self._failed(webhook, failure)
            return False
        if not operations or review.obj is None:
            return False
        patched = apply_patch(review.obj, operations)
        changed = patched != review.obj
        review.obj = patched
        return changed

    async def _run_validating(self, webhooks: list[Webhook], review: Review, warnings: list[str]) -> None:
        selected = [webhook for webhook in webhooks if self._should_call(webhook, review)]
        found: list[list[str]] = [[] for _ in selected]
        refusals: list[errors.APIError | None] = [None for _ in selected]

        async def check(position: int, webhook: Webhook) -> None:
            try:
                response = await self._call(webhook, review)
                if response is not None:
                    found[position].extend(response.warnings)
                    if not response.allowed:
                        raise denial(webhook.name, response.result)
            except errors.APIError as refusal:
                refusals[position] = refusal

        async with asyncio.TaskGroup() as group:
            for position, webhook in enumerate(selected):
                group.create_task(check(position, webhook), name=f"admission-webhook-{webhook.name}")
        for texts in found:
            warnings.extend(texts)
        for refusal in refusals:
            if refusal is not None:
                raise refusal

    # -- one call ----------------------------------------------------------------------------------

    async def _call(self, webhook: Webhook, review: Review) -> AdmissionResponse | None:
        """The webhook's checked answer; None when it failed and its failure policy ignores that."""
        try:
            return await self._exchange(webhook, review)
        except WebhookCallError as failure:
            self._failed(webhook, failure)
            return None

    async def _exchange(self, webhook: Webhook, review: Review) -> AdmissionResponse:
        if review.attributes.dry_run:
            if not webhook.side_effects:
                raise WebhookCallError("Webhook SideEffects is nil")
            if webhook.side_effects not in DRY_RUN_SAFE:
                raise errors.BadRequest(f'admission webhook "{webhook.name}" does not support dry run')
        version = review_version(webhook.review_versions)
        if version is None:
            raise WebhookCallError(
                "could not create admission objects: webhook does not accept known AdmissionReview "
                "versions (v1, v1beta1)"
            )
        uid = str(uuid.uuid4())
        body = orjson.dumps(admission_review(uid, review.subject(), version))
        endpoint = Endpoint(webhook.url, webhook.ca_bundle, webhook.timeout_seconds)
        raw = await self._client.post(endpoint, body)
        return read_response(raw, uid=uid, version=version, mutating=webhook.mutating)

    def _failed(self, webhook: Webhook, failure: WebhookCallError) -> None:
        """Apply the failure policy: fail the request (500) or log and go on without the webhook."""
        if webhook.ignores_failures:
            log.warning(
                "admission.webhook.failed_open",
                webhook=webhook.name,
                configuration=webhook.configuration,
                reason=failure.reason,
            )
            return
        log.warning(
            "admission.webhook.failed_closed",
            webhook=webhook.name,
            configuration=webhook.configuration,
            reason=failure.reason,
        )
        raise internal_error(f'failed calling webhook "{webhook.name}": {failure.reason}')
