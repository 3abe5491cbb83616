"""Query parameters of resource requests, parsed and checked once with Kubernetes' error wording."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

import orjson
from multidict import MultiMapping

from flotilla.api.fielderrors import FieldError, forbidden, invalid, not_supported
from flotilla.apiserver import errors
from flotilla.apiserver.gostrings import go_quote
from flotilla.apiserver.registry.objectbounds import INT64_MIN, UINT64_MAX
from flotilla.apiserver.writes.normalize import FieldValidation

INT64_MAX = 2**63 - 1


_INTEGER = re.compile(r"[+-]?[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")


def parse_int64(name: str, raw: str) -> int:
    """A query parameter as kube reads an int64 one (Go's strconv.ParseInt): ASCII digits with an
    optional sign, within 64 bits; anything else is 400 with Go's words and the bounds."""
    if not _INTEGER.fullmatch(raw):
        raise errors.BadRequest(
            f"invalid value for query parameter {name}: strconv.ParseInt: parsing {go_quote(raw)}: "
            "invalid syntax; it must be an integer"
        )
    value = int(raw)
    if not INT64_MIN <= value <= INT64_MAX:
        raise errors.BadRequest(
            f"invalid value for query parameter {name}: strconv.ParseInt: parsing {go_quote(raw)}: "
            f"value out of range; it must be between {INT64_MIN} and {INT64_MAX}"
        )
    return value


def _int(query: MultiMapping[str], name: str, default: int | None = None) -> int | None:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    return parse_int64(name, raw)


def query_bool(query: MultiMapping[str], name: str) -> bool | None:
    """A boolean query parameter as kube reads one: absent is None; present, it is true unless it is
    "0" or "false" in any case — so `?watch`, `?watch=1` and `?watch=yes` all ask for a watch."""
    values = query.getall(name, [])
    if not values:
        return None
    return not (values[0] == "0" or values[0].lower() == "false")


def _bool(query: MultiMapping[str], name: str) -> bool:
    return query_bool(query, name) or False


def parse_resource_version(raw: str) -> int:
    """A resourceVersion as kube's storage reads it: "" and "0" are 0, else a uint64 (400 otherwise)."""
    if raw in ("", "0"):
        return 0
    if not _UNSIGNED.fullmatch(raw):
        raise errors.BadRequest(
            f"invalid resource version {go_quote(raw)}: it must be a non-negative integer, as the "
            "metadata.resourceVersion of an object or list"
        )
    value = int(raw)
    if value > UINT64_MAX:
        raise errors.BadRequest(
            f"invalid resource version {go_quote(raw)}: strconv.ParseUint: value out of range (at most "
            f"{UINT64_MAX})"
        )
    return value


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
    for position, char in enumerate(manager):
        if not char.isprintable():
            problem = invalid(
                "fieldManager", manager, f"invalid character U+{ord(char):04X} (at position {position})"
            )
            raise errors.Invalid(str(problem), causes=[problem.cause()])
    if manager:
        return manager
    # Kubernetes derives the manager of clients that name none from their user agent's first word;
    # bytes of it that are not UTF-8 (undecodable, so lone surrogates here) read as U+FFFD, as in JSON.
    derived = user_agent.split("/", 1)[0][:128]
    if not derived.isascii():
        derived = derived.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return derived or "unknown"


INCLUDE_OBJECT_VALUES = ("Metadata", "Object", "None")


def include_object(query: MultiMapping[str]) -> str:
    """`includeObject` of a request answered with a Table: what each row carries (Metadata when
    unset). kube reads it only for Table answers and refuses any other value with 400 in these words
    (ValidateTableOptions), before it reads anything; other answers ignore it."""
    raw = query.get("includeObject", "")
    if raw in INCLUDE_OBJECT_VALUES:
        return raw
    if raw == "":
        return "Metadata"
    problem = invalid("includeObject", raw, "must be 'Metadata', 'Object', 'None', or empty")
    raise errors.BadRequest(f"Unable to convert to Table as requested: {problem}")


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
    """The options of a list or watch (which of the two: the `watch` parameter), checked as kube's
    ValidateListOptions checks them: 400 for values that do not parse, 422 for bad combinations."""
    limit = _int(query, "limit", 0) or 0
    options = ListOptions(
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        limit=max(limit, 0),
        continue_token=query.get("continue", ""),
        timeout_seconds=_int(query, "timeoutSeconds"),
        allow_bookmarks=_bool(query, "allowWatchBookmarks"),
        send_initial_events=query_bool(query, "sendInitialEvents"),
    )
    parse_resource_version(options.resource_version)
    _check_combinations(options, watch=_bool(query, "watch"))
    return options


def _check_combinations(options: ListOptions, *, watch: bool) -> None:
    problems: list[FieldError] = []
    rv, match = options.resource_version, options.resource_version_match
    if match:
        if options.continue_token:
            problems.append(
                forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"
                )
            )
        if watch:
            if options.send_initial_events is None:
                problems.append(
                    forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    )
                )
            if match != "NotOlderThan":
                problems.append(not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
        else:
            if not rv:
                problems.append(
                    forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden unless resourceVersion is provided",
                    )
                )
            if match not in ("NotOlderThan", "Exact"):
                problems.append(not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
            elif match == "Exact" and rv == "0":
                problems.append(
                    forbidden(
                        "resourceVersionMatch",
                        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                    )
                )
    if not watch and options.send_initial_events is not None:
        problems.append(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
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


@dataclass(frozen=True, slots=True)
class ContinueToken:
    revision: int
    start_after: str


CONTINUE_VERSION = "meta.k8s.io/v1"


def encode_continue(revision: int, start_after: str) -> str:
    payload = orjson.dumps({"v": CONTINUE_VERSION, "rv": revision, "start": start_after})
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


def decode_continue(token: str) -> ContinueToken:
    """A continue token as `encode_continue` made it; anything else is 400 in kube's words."""
    try:
        padded = token + "=" * (-len(token) % 4)
        data = orjson.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
        raise _bad_continue("it is not the base64-encoded JSON of a continue token") from exc
    if not isinstance(data, dict):
        raise _bad_continue("it is not the base64-encoded JSON of a continue token")
    if data.get("v") != CONTINUE_VERSION:
        shown = orjson.dumps(data.get("v")).decode()[:64]
        raise _bad_continue(f"server does not recognize this encoded version {shown}")
    revision, start = data.get("rv"), data.get("start")
    if type(revision) is not int or not 0 < revision <= INT64_MAX:
        raise _bad_continue(f"incorrect encoded start resourceVersion (version {CONTINUE_VERSION})")
    if not isinstance(start, str) or not start:
        raise _bad_continue(f"encoded start key empty (version {CONTINUE_VERSION})")
    return ContinueToken(revision, start)


def _bad_continue(reason: str) -> errors.BadRequest:
    return errors.BadRequest(
        f"invalid continue token: continue key is not valid: {reason}; start the list again without continue"
    )


def timeout_seconds(query: MultiMapping[str]) -> int | None:
    return _int(query, "timeoutSeconds")
