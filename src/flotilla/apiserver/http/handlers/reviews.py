"""Access and identity reviews: create-only resources answered per request and never stored.

Clients ask the server questions by creating review objects; the answer comes back in the created
object's `status`, with 201, and nothing is written:

- authorization.k8s.io/v1 `SelfSubjectAccessReview` — may I do this? (`kubectl auth can-i`);
  `SubjectAccessReview` — may this user (and these groups) do this? `LocalSubjectAccessReview` —
  the same, inside the URL's namespace. Each carries exactly one of `resourceAttributes` (verb,
  group, resource, subresource, namespace, name) or `nonResourceAttributes` (verb, path), and is
  answered by the server's authorizer, so `status.reason` names the binding that allowed it;
- authorization.k8s.io/v1 `SelfSubjectRulesReview` — every rule I hold in a namespace
  (`kubectl auth can-i --list`);
- authentication.k8s.io/v1 `SelfSubjectReview` — who am I? (`kubectl auth whoami`), and
  `TokenReview` — whom does this bearer token authenticate? (delegated authentication of
  aggregated API servers), answered by the same token authenticators as `Authorization: Bearer`.

Who may ask is RBAC's business like any other request: `system:basic-user` lets every
authenticated user create the self reviews; the others need explicit grants.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.scheme import GroupResource
from flotilla.apiserver import errors
from flotilla.apiserver.authn.bearer import InvalidToken
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.authz.rbac import aggregate
from flotilla.apiserver.authz.rules import FULL_AUTHORITY, PolicyRule
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import read_body
from flotilla.apiserver.http.handlers.params import field_validation
from flotilla.apiserver.http.handlers.writes import request_user
from flotilla.apiserver.http.responses import json_response
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.requestwarnings import request_warnings
from flotilla.apiserver.users import MASTERS_GROUP, UserInfo
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.pipeline import invalid

AUTHORIZATION = "authorization.k8s.io"
AUTHENTICATION = "authentication.k8s.io"


Reviewer = Callable[[APIContext, dict[str, Any], UserInfo], Awaitable[dict[str, Any]]]


async def create_review(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """POST of a review: decode it as every create's body is decoded (bounded, a YAML or big body in a
    worker thread, unknown fields dropped with a warning or refused as `fieldValidation` says),
    answer it in `status`, send it back as created."""
    validation = field_validation(request.query)
    decoded = await read_body(
        await request.read(),
        request.headers.get("Content-Type"),
        find_duplicates=validation is FieldValidation.STRICT,
    )
    review = normalize.check_kind(served, decoded.obj)
    normalize.check_namespace(served, review, info.namespace)
    warnings = request_warnings(request)
    value_errors = normalize.decode_fields(
        ctx, served, review, validation, decoded.duplicate_fields, warnings
    )
    if value_errors:
        raise invalid(served, str(review["metadata"].get("name", "")), value_errors)
    reviewer = REVIEWERS[served.type.plural]
    review["status"] = await reviewer(ctx, review, request_user(request))
    return json_response(review, status=201)


# -- access reviews -------------------------------------------------------------------------------


def _spec(review: Mapping[str, Any]) -> dict[str, Any]:
    spec = review.get("spec")
    return spec if isinstance(spec, dict) else {}


def attributes_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """Exactly one of resourceAttributes and nonResourceAttributes (kube's wording)."""
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        return [
            fielderrors.invalid(
                "spec.nonResourceAttributes",
                non_resource,
                "cannot be specified in combination with resourceAttributes",
            )
        ]
    if resource is None and non_resource is None:
        return [
            fielderrors.invalid(
                "spec.resourceAttributes",
                None,
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )
        ]
    return []


def request_attributes(spec: Mapping[str, Any], user: UserInfo) -> AuthorizationAttributes:
    """The request a review's spec describes, for `user` (validate the spec first)."""
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return AuthorizationAttributes(
            user,
            str(resource.get("verb", "")),
            True,
            str(resource.get("group", "")),
            str(resource.get("version", "")),
            str(resource.get("resource", "")),
            str(resource.get("subresource", "")),
            str(resource.get("namespace", "")),
            str(resource.get("name", "")),
        )
    non_resource = spec.get("nonResourceAttributes") or {}
    return AuthorizationAttributes(
        user, str(non_resource.get("verb", "")), False, path=str(non_resource.get("path", ""))
    )


def _decide(ctx: APIContext, spec: Mapping[str, Any], user: UserInfo) -> dict[str, Any]:
    decision = ctx.authorizer.authorize(request_attributes(spec, user))
    status: dict[str, Any] = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    return status


def _invalid(review: Mapping[str, Any], found: list[FieldError]) -> errors.Invalid:
    name = str((review.get("metadata") or {}).get("name", ""))
    return errors.invalid(str(review.get("kind", "")), AUTHORIZATION, name, found)


async def self_subject_access_review(
    ctx: APIContext, review: dict[str, Any], user: UserInfo
) -> dict[str, Any]:
    spec = _spec(review)
    found = attributes_errors(spec)
    if found:
        raise _invalid(review, found)
    return _decide(ctx, spec, user)


def _subject(spec: Mapping[str, Any]) -> UserInfo:
    extra = spec.get("extra") or {}
    return UserInfo(
        str(spec.get("user", "")),
        tuple(str(group) for group in spec.get("groups") or ()),
        str(spec.get("uid", "")),
        {str(key): [str(v) for v in values or ()] for key, values in extra.items()}
        if isinstance(extra, dict)
        else {},
    )


def _subject_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    found = attributes_errors(spec)
    if not spec.get("user") and not spec.get("groups"):
        found.append(
            fielderrors.invalid(
                "spec.user", spec.get("user", ""), "at least one of user or group must be specified"
            )
        )
    return found


async def subject_access_review(ctx: APIContext, review: dict[str, Any], user: UserInfo) -> dict[str, Any]:
    spec = _spec(review)
    found = _subject_errors(spec)
    if found:
        raise _invalid(review, found)
    return _decide(ctx, spec, _subject(spec))


async def local_subject_access_review(
    ctx: APIContext, review: dict[str, Any], user: UserInfo
) -> dict[str, Any]:
    spec = _spec(review)
    namespace = review["metadata"].get("namespace", "")
    found = _subject_errors(spec)
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict) and resource.get("namespace", "") != namespace:
        found.append(
            fielderrors.invalid(
                "spec.resourceAttributes.namespace",
                resource.get("namespace", ""),
                "must match metadata.namespace",
            )
        )
    if spec.get("nonResourceAttributes") is not None:
        found.append(
            fielderrors.invalid(
                "spec.nonResourceAttributes",
                spec["nonResourceAttributes"],
                "disallowed on this kind of request",
            )
        )
    if found:
        raise _invalid(review, found)
    return _decide(ctx, spec, _subject(spec))


async def self_subject_rules_review(
    ctx: APIContext, review: dict[str, Any], user: UserInfo
) -> dict[str, Any]:
    namespace = str(_spec(review).get("namespace", ""))
    if not namespace:
        raise errors.BadRequest("namespace is required on this type: ")
    # Like kube's union of rule resolvers: masters hold everything, then what RBAC grants.
    rules: list[PolicyRule] = list(FULL_AUTHORITY) if MASTERS_GROUP in user.groups else []
    held, problems = ctx.rbac.rules_for(user, namespace)
    rules.extend(held)
    status: dict[str, Any] = {
        "resourceRules": [_resource_rule(rule) for rule in rules if not rule.non_resource_urls],
        "nonResourceRules": [
            {"verbs": list(rule.verbs), "nonResourceURLs": list(rule.non_resource_urls)}
            for rule in rules
            if rule.non_resource_urls
        ],
        "incomplete": bool(problems),
    }
    if problems:
        status["evaluationError"] = aggregate(problems)
    return status


def _resource_rule(rule: PolicyRule) -> dict[str, Any]:
    body: dict[str, Any] = {"verbs": list(rule.verbs), "apiGroups": list(rule.api_groups)}
    body["resources"] = list(rule.resources)
    if rule.resource_names:
        body["resourceNames"] = list(rule.resource_names)
    return body


# -- identity reviews -----------------------------------------------------------------------------


async def self_subject_review(ctx: APIContext, review: dict[str, Any], user: UserInfo) -> dict[str, Any]:
    return {"userInfo": user.to_json()}


async def token_review(ctx: APIContext, review: dict[str, Any], user: UserInfo) -> dict[str, Any]:
    """Whom the token authenticates, by the same token authenticators as the request path."""
    spec = _spec(review)
    token = str(spec.get("token", ""))
    if not token:
        raise errors.BadRequest("token is required for TokenReview in authentication")
    tokens = ctx.token_authenticators
    if tokens is None:
        return {"user": {}, "error": "this API server does not authenticate bearer tokens"}
    try:
        result = tokens.authenticate_token(token, [str(a) for a in spec.get("audiences") or ()])
    except InvalidToken as exc:
        return {"user": {}, "error": str(exc)}
    status: dict[str, Any] = {"authenticated": True, "user": result.user.to_json()}
    if result.audiences:
        status["audiences"] = list(result.audiences)
    return status


REVIEWERS: dict[str, Reviewer] = {
    "selfsubjectaccessreviews": self_subject_access_review,
    "subjectaccessreviews": subject_access_review,
    "localsubjectaccessreviews": local_subject_access_review,
    "selfsubjectrulesreviews": self_subject_rules_review,
    "selfsubjectreviews": self_subject_review,
    "tokenreviews": token_review,
}

REVIEW_RESOURCES = frozenset(
    GroupResource(
        AUTHENTICATION if plural in ("selfsubjectreviews", "tokenreviews") else AUTHORIZATION, plural
    )
    for plural in REVIEWERS
)
"""The resources `create_review` answers (the API server routes their POSTs here)."""
