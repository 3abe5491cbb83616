"""From a decoded request body to an object the write pipeline can trust.

Checks what a Go server checks while decoding: the body is an object of the URL's kind and
version, in the URL's namespace; fields have the right JSON types; unknown and duplicate fields
are rejected, reported as warnings or dropped, as `fieldValidation` asks; and a built-in kind's
timestamps come out as its Go types encode them (UTC, `Z`).
"""

from __future__ import annotations

import enum
from typing import Any

from flotilla.api.fielderrors import FieldError
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.gostrings import go_quote
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.schema.walk import WalkOptions, walk_object
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.timestamps import reencode_timestamps


class FieldValidation(enum.Enum):
    """What to do with unknown and duplicate fields (the `fieldValidation` query parameter)."""

    IGNORE = "Ignore"
    WARN = "Warn"
    STRICT = "Strict"


_BUILTIN_DECODE = WalkOptions(apply_defaults=False, check_values=False, drop_nulls=True)
_BUILTIN_CHECK = WalkOptions(apply_defaults=False, check_values=True, drop_nulls=True)
_CUSTOM_DECODE = WalkOptions(apply_defaults=False, check_values=False, drop_nulls=False)
_CUSTOM_CHECK = WalkOptions(apply_defaults=True, check_values=True, drop_nulls=False)


def check_kind(
    served: ServedResource,
    obj: Any,
    *,
    expected_kind: str | None = None,
    expected_api_version: str | None = None,
) -> dict[str, Any]:
    """The body must be an object of the URL's kind; missing apiVersion/kind are filled in."""
    kind = expected_kind or served.type.kind
    api_version = expected_api_version or served.type.api_version
    if not isinstance(obj, dict):
        raise errors.BadRequest(
            f"the request body must be a JSON object of kind {kind}, not {type(obj).__name__}"
        )
    given_version = obj.get("apiVersion")
    given_kind = obj.get("kind")
    if given_version not in (None, "") and given_version != api_version:
        raise errors.BadRequest(
            f"the API version in the data ({given_version}) does not match the expected API version "
            f"({api_version})"
        )
    if given_kind not in (None, "") and given_kind != kind:
        raise errors.BadRequest(
            f"the kind in the data ({given_kind}) does not match the expected kind ({kind})"
        )
    obj["apiVersion"] = api_version
    obj["kind"] = kind
    meta = obj.get("metadata")
    if meta is None:
        obj["metadata"] = {}
    elif not isinstance(meta, dict):
        raise errors.BadRequest("metadata must be an object")
    return obj


def check_namespace(served: ServedResource, obj: dict[str, Any], url_namespace: str) -> None:
    meta = obj["metadata"]
    if not served.namespaced:
        meta.pop("namespace", None)
        return
    given = meta.get("namespace")
    if given not in (None, "") and given != url_namespace:
        raise errors.BadRequest(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    meta["namespace"] = url_namespace


def decode_fields(
    ctx: APIContext,
    served: ServedResource,
    obj: dict[str, Any],
    validation: FieldValidation,
    duplicates: list[str],
    warnings: list[str],
    patched: CachedObject | None = None,
) -> list[FieldError]:
    """Type-check and prune the object in place (what decoding does); type errors of custom resources
    are returned as field errors (422), of built-ins raised as 400. A built-in's timestamps are
    re-encoded as kube stores them (`timestamps`), 400 when unreadable. Value rules (required, enums,
    ranges) wait for `check_values` on the complete object — an apply body or a patch is only part of
    one.

    A patched object is only decoded where it differs from the stored object it was patched from
    (`patched`), when that was written under this schema: the rest was decoded when stored."""
    options = _BUILTIN_DECODE if served.builtin else _CUSTOM_DECODE
    if patched is not None and written_under_schema(served, patched):
        result = walk_object(obj, served.schema, ctx.metadata_schema, options, patched.obj)
    else:
        result = walk_object(obj, served.schema, ctx.metadata_schema, options)
    # Quoted as Go's %q quotes them: a name may hold anything, a message must stay printable.
    problems = [f"unknown field {go_quote(path)}" for path in result.unknown_fields]
    problems += [f"duplicate field {go_quote(name)}" for name in duplicates]
    if problems:
        if validation is FieldValidation.STRICT:
            raise errors.BadRequest("strict decoding error: " + ", ".join(problems))
        if validation is FieldValidation.WARN:
            warnings.extend(problems)
    if result.type_errors:
        if served.builtin:
            detail = "; ".join(f"{e.field}: {e.detail}, got {e.value}" for e in result.type_errors)
            raise _undecodable(served, detail)
        return result.type_errors
    if served.builtin:
        old = patched.obj if patched is not None else None
        unreadable = reencode_timestamps(obj, served.schema, ctx.metadata_schema, old)
        if unreadable:
            raise _undecodable(served, "; ".join(unreadable))
    return []


def _undecodable(served: ServedResource, detail: str) -> errors.BadRequest:
    """kube's 400 for a body its Go type cannot hold."""
    kind, version = served.type.kind, served.type.version
    return errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {detail}')


def check_values(
    ctx: APIContext, served: ServedResource, obj: dict[str, Any], old: CachedObject | None = None
) -> list[FieldError]:
    """Schema value rules of the complete object; custom resources also get their schema defaults here.

    On updates, values unchanged since `old` are not checked again: at any depth when `old` was
    written under this very schema, else (a custom resource stored before its CRD last changed, or
    served in several versions) only whole top-level fields, so a changed field is brought to the
    current schema — pruned and defaulted — all through.
    """
    options = _BUILTIN_CHECK if served.builtin else _CUSTOM_CHECK
    if old is None:
        return walk_object(obj, served.schema, ctx.metadata_schema, options).errors
    deep = written_under_schema(served, old)
    return walk_object(obj, served.schema, ctx.metadata_schema, options, old.obj, deep=deep).errors


def written_under_schema(served: ServedResource, stored: CachedObject) -> bool:
    """Whether every write of `stored` went through `served`'s schema (built-in schemas never change)."""
    if served.builtin or served.custom is None:
        return True
    since = served.custom.sole_schema_since
    return since is not None and stored.created > since


def dedupe(found: list[FieldError]) -> list[FieldError]:
    seen: set[tuple[str, str]] = set()
    unique = []
    for error in found:
        identity = (error.type.value, error.field)
        if identity not in seen:
            seen.add(identity)
            unique.append(error)
    return unique
