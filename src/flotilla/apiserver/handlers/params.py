"""Query parameters of resource requests, parsed and checked once with Kubernetes' error wording."""

from __future__ import annotations

import base64
import binascii
import enum
from dataclasses import dataclass

import orjson
from multidict import MultiMapping

from flotilla.api.fielderrors import FieldError, invalid, not_supported
from flotilla.apiserver import errors


class FieldValidation(enum.Enum):
    IGNORE = "Ignore"
    WARN = "Warn"
    STRICT = "Strict"


def _int(query: MultiMapping[str], name: str, default: int | None = None) -> int | None:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise errors.BadRequest(
            f'invalid value for query parameter {name}: "{raw}" is not an integer'
        ) from exc


def _bool(query: MultiMapping[str], name: str) -> bool:
    raw = query.get(name, "")
    if raw in ("", "false", "0", "False"):
        return False
    if raw in ("true", "1", "True"):
        return True
    raise errors.BadRequest(f'invalid value for query parameter {name}: "{raw}" is not a boolean')


def dry_run(query: MultiMapping[str]) -> bool:
    values = query.getall("dryRun", [])
    for value in values:
        if value != "All":
            raise errors.BadRequest(
                f'Invalid dryRun value: "{value}"; the only supported value is "All"',
                causes=[not_supported("dryRun", value, ["All"]).cause()],
            )
    return bool(values)


def field_validation(query: MultiMapping[str]) -> FieldValidation:
    raw = query.get("fieldValidation", "")
    if not raw:
        return FieldValidation.WARN
    for option in FieldValidation:
        if option.value == raw:
            return option
    raise errors.BadRequest(f'fieldValidation must be one of "Ignore", "Warn" or "Strict", got "{raw}"')


def field_manager(query: MultiMapping[str], user_agent: str) -> str:
    manager = query.get("fieldManager", "")
    if len(manager) > 128:
        raise errors.Invalid(
            "fieldManager: Too long: must have at most 128 bytes",
            causes=[
                {
                    "reason": "FieldValueTooLong",
                    "message": "must have at most 128 bytes",
                    "field": "fieldManager",
                }
            ],
        )
    if manager:
        return manager
    # Kubernetes derives the manager of clients that name none from their user agent's first word.
    return user_agent.split("/", 1)[0][:128] or "unknown"


@dataclass(frozen=True, slots=True)
class ListOptions:
    label_selector: str
    field_selector: str
    resource_version: str
    resource_version_match: str
    limit: int
    continue_token: str
    timeout_seconds: int | None
    allow_bookmarks: bool
    send_initial_events: bool | None


def list_options(query: MultiMapping[str]) -> ListOptions:
    limit = _int(query, "limit", 0) or 0
    limit = max(limit, 0)
    send_initial = query.get("sendInitialEvents")
    options = ListOptions(
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        limit=limit,
        continue_token=query.get("continue", ""),
        timeout_seconds=_int(query, "timeoutSeconds"),
        allow_bookmarks=_bool(query, "allowWatchBookmarks"),
        send_initial_events=None if send_initial is None else send_initial in ("true", "1"),
    )
    _check_resource_version(options)
    return options


def _check_resource_version(options: ListOptions) -> None:
    problems: list[FieldError] = []
    rv, match = options.resource_version, options.resource_version_match
    if rv and not _is_revision(rv):
        raise errors.BadRequest(f'invalid resource version "{rv}": must be a non-negative integer')
    if match:
        if match not in ("NotOlderThan", "Exact"):
            problems.append(not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan"]))
        elif not rv and options.send_initial_events is None:
            problems.append(
                FieldError(
                    invalid("resourceVersionMatch", match, "").type,
                    "resourceVersionMatch",
                    match,
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                )
            )
        elif match == "Exact" and rv == "0":
            problems.append(
                invalid(
                    "resourceVersionMatch",
                    match,
                    'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                )
            )
    if options.continue_token and rv and rv != "0":
        problems.append(
            invalid("resourceVersion", rv, "specifying resource version is not allowed when using continue")
        )
    if problems:
        raise errors.Invalid(
            'ListOptions.meta.k8s.io "" is invalid: ' + ", ".join(str(p) for p in problems),
            kind="ListOptions",
            group="meta.k8s.io",
            causes=[p.cause() for p in problems],
        )


def _is_revision(value: str) -> bool:
    return value.isdigit()


@dataclass(frozen=True, slots=True)
class ContinueToken:
    revision: int
    start_after: str


def encode_continue(revision: int, start_after: str) -> str:
    payload = orjson.dumps({"v": "meta.k8s.io/v1", "rv": revision, "start": start_after})
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


def decode_continue(token: str) -> ContinueToken:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = orjson.loads(base64.urlsafe_b64decode(padded))
        return ContinueToken(int(data["rv"]), str(data["start"]))
    except (binascii.Error, ValueError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
        raise errors.BadRequest(f"continue key is not valid: {exc}") from exc


def timeout_seconds(query: MultiMapping[str]) -> int | None:
    return _int(query, "timeoutSeconds")
