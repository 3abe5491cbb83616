"""The write pipeline: every create and update of every kind, from HTTP or from in-process controllers.

Create: name (generateName) → system metadata → defaults → kind preparation → namespace lifecycle →
mutating admission → field ownership (managedFields) → validation (kind rules, schema, CEL rules) →
validating admission → store (retrying generated-name collisions).

Both work on the object at the version the request names — an update first converts the stored
object to it — and store it at the kind's storage version (`store/conversion.py`); what they
return is again at the request's version.

Update (`update_flow`): read the current object, compute the new one (a PUT body, a patched copy, an
apply, a status or scale change), keep what clients may not change, default, mutating admission,
bump the generation when the desired state changed, record field ownership, validate, validating
admission, and write guarded by the current revision. The object computed carries the
resourceVersion the write is conditional on (a PUT's, or what a patch left there): one that is not
the current revision answers 409 as kube-apiserver does. Losing a race with another writer re-runs
the computation on the fresh object, and that check with it. An update that changes nothing
(timestamps of managedFields aside) writes nothing; an update that removes the last finalizer of a
deleting object deletes it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.objects import copy_object
from flotilla.api.scheme import GroupResource
from flotilla.apiserver import errors
from flotilla.apiserver.admission import AdmissionAttributes
from flotilla.apiserver.admission.attributes import Operation
from flotilla.apiserver.authz.escalation import check_rbac_write
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry import apply as ssa
from flotilla.apiserver.registry import objectmeta
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.schema.zerovalues import zero_object
from flotilla.apiserver.registry.strategy import Strategy
from flotilla.apiserver.registry.validation.metadata import no_new_finalizers
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.conversion import at_version, for_storage
from flotilla.apiserver.store.objectstore import StaleRevision
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.users import SYSTEM_USER, UserInfo
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.offloop import OFF_LOOP_BYTES, on_or_off_loop

GENERATE_NAME_ATTEMPTS = 8


@dataclass(slots=True)
class WriteOptions:
    dry_run: bool
    validation: FieldValidation
    manager: str
    user: UserInfo = SYSTEM_USER
    applied: bool = False
    """The object comes from server-side apply, which already recorded field ownership."""
    warnings: list[str] = field(default_factory=list)

    def admission_options(self, operation: Operation) -> dict[str, Any]:
        kind = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}[operation]
        options: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
        if self.manager and operation != "DELETE":
            options["fieldManager"] = self.manager
        if self.dry_run:
            options["dryRun"] = ["All"]
        return options


def system_options(manager: str) -> WriteOptions:
    """Options of a write made by the API server itself (bootstrap, in-process controllers)."""
    return WriteOptions(False, FieldValidation.IGNORE, manager)


def invalid(served: ServedResource, name: str, found: list[FieldError]) -> errors.Invalid:
    return errors.invalid(served.type.kind, served.type.group, name, normalize.dedupe(found))


def _attributes(
    operation: Operation, served: ServedResource, subresource: str, obj: dict[str, Any], options: WriteOptions
) -> AdmissionAttributes:
    meta = obj.get("metadata") or {}
    return AdmissionAttributes(
        operation=operation,
        resource=served,
        subresource=subresource,
        namespace=meta.get("namespace", "") if served.namespaced else "",
        name=meta.get("name", ""),
        user=options.user,
        dry_run=options.dry_run,
        options=options.admission_options(operation),
    )


async def _mutate(
    ctx: APIContext,
    served: ServedResource,
    attributes: AdmissionAttributes,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    options: WriteOptions,
) -> int:
    """Mutating admission; what it changes is decoded and defaulted again, as kube re-decodes it.
    Returns the size of the object's JSON (to decide where the costly checks run)."""
    before = orjson.dumps(obj)
    options.warnings.extend(await ctx.admission.mutate(attributes, obj, old))
    after = orjson.dumps(obj)
    if after != before:
        found = normalize.decode_fields(ctx, served, obj, FieldValidation.IGNORE, [], options.warnings)
        if found:
            raise invalid(served, attributes.name, found)
        ctx.strategy(served).default(obj)
    return len(after)


def _track_fields(
    ctx: APIContext,
    served: ServedResource,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    options: WriteOptions,
    subresource: str,
) -> dict[str, Any]:
    """Record in managedFields which fields this write's manager now owns (non-apply writes)."""
    if not options.applied:
        starting = ssa.managed_fields_for_write(old, new, subresource=subresource)
        managed = ssa.record_update(
            old,
            new,
            manager=options.manager,
            schema=served.schema,
            managed_fields=starting,
            api_version=served.type.api_version,
            now=ctx.clock(),
            subresource=subresource,
        )
        if managed:
            new["metadata"]["managedFields"] = managed
        else:
            new["metadata"].pop("managedFields", None)
    return ssa.strip_time_only_changes(old, new)


async def _check_rules(
    ctx: APIContext,
    served: ServedResource,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    found: list[FieldError],
) -> list[FieldError]:
    """A custom resource's CEL rules (after defaulting, as kube runs them); like kube, not over values
    of the wrong type, which the rules' types could not describe."""
    rules = served.custom.rules if served.custom is not None else None
    if rules is None or any(error.type is fielderrors.ErrorType.TYPE_INVALID for error in found):
        return []
    return await ctx.rule_runner.validate(rules, obj, old)


# -- create ---------------------------------------------------------------------------------------


CRD_RESOURCE = GroupResource("apiextensions.k8s.io", "customresourcedefinitions")


def is_custom_resource_definition(served: ServedResource) -> bool:
    """CRDs are validated in a worker thread: compiling and costing thousands of CEL rules takes
    seconds of pure Python (a 200 KB CRD with 1,000 rules stalled every request 1.5 s on the loop)."""
    return served.builtin and served.type.group_resource == CRD_RESOURCE


async def create_object(
    ctx: APIContext,
    served: ServedResource,
    obj: dict[str, Any],
    options: WriteOptions,
    value_errors: list[FieldError] | None = None,
) -> CachedObject:
    """Run the create pipeline on a decoded, normalised object and store it."""
    meta = obj["metadata"]
    if meta.get("resourceVersion"):
        raise errors.BadRequest("resourceVersion should not be set on objects to be created")
    generate = meta.get("generateName", "")
    if not meta.get("name") and generate:
        meta["name"] = objectmeta.generate_name(generate, ctx.ids)
    objectmeta.prepare_create_metadata(
        obj, ctx.clock(), ctx.ids.uuid4(), tracks_generation=served.tracks_generation
    )
    if served.has_status and not served.keeps_status_on_create:
        obj.pop("status", None)
    if served.has_status and served.builtin:
        # A built-in kind's status is a Go struct without omitempty: kube-apiserver always serves it,
        # its unset required fields as zeros (kr8s reads `obj.status` at once); a custom resource's
        # may be absent.
        obj.setdefault("status", zero_status(served))
    if served.namespaced:
        check_namespace_open(ctx, meta["namespace"])
    strategy = ctx.strategy(served)
    strategy.default(obj)
    strategy.prepare_create(obj, ctx.strategy_env)
    attributes = _attributes("CREATE", served, "", obj, options)
    size = await _mutate(ctx, served, attributes, obj, None, options)
    check_rbac_write(ctx.authorizer, ctx.rbac, served, obj, None, options.user)
    mutated = obj

    def checked() -> tuple[dict[str, Any], list[FieldError]]:
        tracked = _track_fields(ctx, served, None, mutated, options, "")
        # Kind validation first: for the same field its wording is kube's, the schema's is generic.
        found = strategy.validate_create(tracked)
        found += list(value_errors or [])
        found += normalize.check_values(ctx, served, tracked)
        return tracked, found

    off_loop = size > OFF_LOOP_BYTES or is_custom_resource_definition(served)
    obj, found = await on_or_off_loop(off_loop, checked)
    meta = obj["metadata"]
    found += await _check_rules(ctx, served, obj, None, found)
    if found:
        raise invalid(served, meta.get("name", ""), found)
    options.warnings.extend(await ctx.admission.validate(attributes, obj, None))
    if options.dry_run:
        return unsaved(served, obj)
    for attempt in range(GENERATE_NAME_ATTEMPTS):
        try:
            return at_version(served, await ctx.store.create(served, for_storage(served, obj)))
        except errors.AlreadyExists:
            if not generate or attempt == GENERATE_NAME_ATTEMPTS - 1:
                raise
            meta["name"] = objectmeta.generate_name(generate, ctx.ids)
    raise AssertionError("unreachable")


def check_namespace_open(ctx: APIContext, namespace: str) -> None:
    """Creating in a missing namespace is 404; in a terminating one, 403 (NamespaceLifecycle)."""
    found = ctx.cache.get(f"/registry/core/namespaces/{namespace}")
    if found is not None:
        found = found.readable()
    if found is None:
        raise errors.NotFound(f'namespaces "{namespace}" not found', name=namespace, kind="namespaces")
    if (
        found.metadata.get("deletionTimestamp")
        or (found.obj.get("status") or {}).get("phase") == "Terminating"
    ):
        raise errors.Forbidden(
            f"unable to create new content in namespace {namespace} because it is being terminated",
            name=namespace,
            kind="namespaces",
            causes=[
                {
                    "reason": "NamespaceTerminating",
                    "message": f"namespace {namespace} is being terminated",
                    "field": "metadata.namespace",
                }
            ],
        )


def unsaved(served: ServedResource, obj: dict[str, Any]) -> CachedObject:
    """A would-be object, for dry runs (no resourceVersion: nothing was stored)."""
    meta = obj["metadata"]
    return CachedObject(
        served.key(meta.get("namespace", ""), meta["name"]), meta.get("namespace", ""), meta["name"], 0, obj
    )


# -- update ---------------------------------------------------------------------------------------


ComputeNew = Callable[[CachedObject], dict[str, Any] | Awaitable[dict[str, Any]]]
"""Given the current object, the object the client wants stored (a private dict), or a coroutine
that makes it (a costly patch is applied in a worker thread)."""


def is_namespace(served: ServedResource) -> bool:
    return served.builtin and served.type.group == "" and served.type.plural == "namespaces"


async def update_flow(
    ctx: APIContext,
    served: ServedResource,
    info: RequestInfo,
    options: WriteOptions,
    compute: ComputeNew,
    *,
    pinned_revision: Callable[[dict[str, Any]], str] | None = None,
    subresource: str = "",
) -> CachedObject:
    """Compute, check and store an update, re-running `compute` when a concurrent write wins."""
    await ctx.cache.wait_current()
    strategy = ctx.strategy(served)
    for _ in range(ctx.settings.max_retries):
        stored = ctx.store.get(served, info.namespace, info.name)
        if stored is None:
            raise errors.not_found(served.type.group_resource, info.name)
        current = at_version(served, stored).readable()  # decoded once for the whole write
        computed = compute(current)
        new = await computed if inspect.isawaitable(computed) else computed
        wanted = pinned_revision(new) if pinned_revision else ""
        if wanted and wanted != str(current.revision):
            raise errors.conflict(served.type.group_resource, info.name, errors.STALE_OBJECT)
        old = current.obj
        new = merge_subresource(served, subresource, new, old)
        objectmeta.carry_over_metadata(new, old)
        check_finalizers(new, old)
        strategy.default(new)
        strategy.prepare_update(new, old, ctx.strategy_env, subresource)
        attributes = _attributes("UPDATE", served, subresource, new, options)
        size = await _mutate(ctx, served, attributes, new, old, options)
        check_rbac_write(ctx.authorizer, ctx.rbac, served, new, old, options.user)
        off_loop = size > OFF_LOOP_BYTES or is_custom_resource_definition(served)
        new, found = await on_or_off_loop(
            off_loop,
            functools.partial(_checked_update, ctx, served, strategy, new, current, options, subresource),
        )
        found += await _check_rules(ctx, served, new, old, found)
        if found:
            raise invalid(served, info.name, found)
        if objectmeta.same_object(new, old):
            return current
        options.warnings.extend(await ctx.admission.validate(attributes, new, old))
        if options.dry_run:
            return unsaved(served, new)
        try:
            if new["metadata"].get("deletionTimestamp") and not objectmeta.has_finalizers(
                new, is_namespace=is_namespace(served)
            ):
                return await ctx.store.delete(served, current)
            return at_version(
                served, await ctx.store.update(served, for_storage(served, new), current.revision)
            )
        except StaleRevision:
            # Another write won: compute again on the fresh object. A write that pins a revision
            # (a PUT's resourceVersion, one a patch set) then meets the check above and answers 409;
            # a patch that left resourceVersion alone carries the fresh one and goes through.
            continue
    raise errors.conflict(
        served.type.group_resource, info.name, "too many concurrent writes to this object; try again"
    )


def _checked_update(
    ctx: APIContext,
    served: ServedResource,
    strategy: Strategy,
    new: dict[str, Any],
    current: CachedObject,
    options: WriteOptions,
    subresource: str,
) -> tuple[dict[str, Any], list[FieldError]]:
    """The generation, field ownership and every check of an update (see `on_or_off_loop`)."""
    old = current.obj
    if served.tracks_generation and objectmeta.spec_changed(new, old, status_is_separate=served.has_status):
        objectmeta.bump_generation(new)
    new = _track_fields(ctx, served, old, new, options, subresource)
    # A binding changes only the node assignment, which pod validation otherwise forbids.
    kind_errors = [] if subresource == "binding" else strategy.validate_update(new, old, subresource)
    return new, kind_errors + normalize.check_values(ctx, served, new, current)


def zero_status(served: ServedResource) -> dict[str, Any]:
    """The status a built-in object has before anything wrote one, as kube-apiserver serves it."""
    return zero_object(served.schema.property("status"))


def merge_subresource(
    served: ServedResource, subresource: str, new: dict[str, Any], old: dict[str, Any]
) -> dict[str, Any]:
    """Keep to each endpoint its part: status writes change only status, main writes never status."""
    if subresource == "finalize":
        merged = copy_object(old)
        merged.setdefault("spec", {})["finalizers"] = list((new.get("spec") or {}).get("finalizers") or [])
        return merged
    if subresource == "status":
        merged = {k: v for k, v in old.items() if k != "status"}
        # Labels, annotations and finalizers may not change through /status; field ownership may.
        merged["metadata"] = {**(old.get("metadata") or {})}
        if "managedFields" in (new.get("metadata") or {}):
            merged["metadata"]["managedFields"] = new["metadata"]["managedFields"]
        if "status" in new:
            merged["status"] = new["status"]
        return copy_object(merged)
    if served.has_status:
        if "status" in old:
            new["status"] = old["status"]
        elif served.builtin:
            new["status"] = zero_status(served)
        else:
            new.pop("status", None)
    return new


def check_finalizers(new: dict[str, Any], old: dict[str, Any]) -> None:
    old_meta = old.get("metadata") or {}
    if not old_meta.get("deletionTimestamp"):
        return
    found = no_new_finalizers(
        list(new["metadata"].get("finalizers") or []),
        list(old_meta.get("finalizers") or []),
        "metadata.finalizers",
    )
    if found:
        raise errors.Invalid(
            "no new finalizers can be added if the object is being deleted",
            causes=[error.cause() for error in found],
        )


async def admit_delete(
    ctx: APIContext, served: ServedResource, current: CachedObject, options: WriteOptions
) -> None:
    """Validating admission of a DELETE (webhooks see the object being deleted as oldObject)."""
    attributes = _attributes("DELETE", served, "", current.obj, options)
    options.warnings.extend(await ctx.admission.validate(attributes, None, current.obj))
