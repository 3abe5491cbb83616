"""`POST …/serviceaccounts/<name>/token`: the TokenRequest API behind `kubectl create token`.

The body is an authentication.k8s.io/v1 TokenRequest (JSON, or protobuf from kubectl):
`spec.expirationSeconds` (default 3600, at least 600, at most 2^32), `spec.audiences` (default the
API server's own) and an optional `spec.boundObjectRef` to a Pod, Secret or Node in the
ServiceAccount's namespace — the token then dies with that object. The answer (201) is the request
with `status.token` and `status.expirationTimestamp`; nothing is stored. Checks and wording follow
kube-apiserver's TokenREST.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from aiohttp import web

from flotilla.api.fielderrors import ErrorType, FieldError
from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.authn.lookup import NODE, POD, SECRET, SERVICE_ACCOUNT, ObjectLookup
from flotilla.apiserver.authn.serviceaccounts import Binding, ObjectReference, TokenIssuer
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import read_body
from flotilla.apiserver.http.responses import json_response
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo

API_VERSION = "authentication.k8s.io/v1"
KIND = "TokenRequest"
GROUP = "authentication.k8s.io"
DEFAULT_EXPIRATION_SECONDS = 3600
MIN_EXPIRATION_SECONDS = 600
MAX_EXPIRATION_SECONDS = 1 << 32


async def create_token(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """The `create` handler of the `serviceaccounts/token` subresource."""
    issuer = ctx.token_issuer
    if issuer is None:
        raise errors.ServiceUnavailable("this API server has no key to sign service account tokens")
    body = (await read_body(await request.read(), request.headers.get("Content-Type"))).obj
    answer = token_request(body, info.namespace, info.name, ctx.lookup, issuer, ctx.clock())
    return json_response(answer, status=201)


def token_request(
    body: Any, namespace: str, name: str, lookup: ObjectLookup, issuer: TokenIssuer, now: datetime
) -> dict[str, Any]:
    """The answered TokenRequest for a request body (pure but for the key's signature)."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be an authentication.k8s.io/v1 TokenRequest object")
    kind = body.get("kind")
    if kind not in (None, "", KIND):
        raise errors.BadRequest(f"the body is a {kind}; send an {API_VERSION} {KIND}")
    meta: dict[str, Any] = body["metadata"] if isinstance(body.get("metadata"), dict) else {}
    spec: dict[str, Any] = body["spec"] if isinstance(body.get("spec"), dict) else {}
    expiration = _expiration_seconds(spec, name)
    _check_names(meta, namespace, name)
    account = lookup(SERVICE_ACCOUNT, namespace, name)
    if account is None:
        raise errors.not_found(GroupResource("", "serviceaccounts"), name)
    account_uid = str((account.get("metadata") or {}).get("uid", ""))
    requested_uid = meta.get("uid")
    if requested_uid and requested_uid != account_uid:
        raise errors.conflict(
            GroupResource(GROUP, KIND),
            name,
            f"the UID in the token request ({requested_uid}) does not match the UID of the service "
            f"account ({account_uid})",
        )
    bound_ref = spec.get("boundObjectRef")
    binding = _binding(bound_ref, namespace, name, lookup) if isinstance(bound_ref, dict) else None
    audiences = [a for a in spec.get("audiences") or () if isinstance(a, str)] or list(issuer.api_audiences)
    token = issuer.issue(account, audiences, expiration, now, binding)
    expires = now + timedelta(seconds=expiration)
    return {
        "kind": KIND,
        "apiVersion": API_VERSION,
        "metadata": {
            "name": meta.get("name") or name,
            "namespace": meta.get("namespace") or namespace,
            "creationTimestamp": None,
        },
        "spec": {
            "audiences": audiences,
            "expirationSeconds": expiration,
            "boundObjectRef": bound_ref if isinstance(bound_ref, dict) else None,
        },
        "status": {"token": token, "expirationTimestamp": format_time(expires)},
    }


def _invalid(name: str, error: FieldError) -> errors.Invalid:
    return errors.invalid(KIND, GROUP, name, [error])


def _expiration_seconds(spec: Mapping[str, Any], name: str) -> int:
    value = spec.get("expirationSeconds")
    if value is None:
        return DEFAULT_EXPIRATION_SECONDS
    field = "spec.expirationSeconds"
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(
            name, FieldError(ErrorType.INVALID, field, value, "must be an integer number of seconds")
        )
    if value < MIN_EXPIRATION_SECONDS:
        raise _invalid(
            name,
            FieldError(ErrorType.INVALID, field, value, "may not specify a duration less than 10 minutes"),
        )
    if value > MAX_EXPIRATION_SECONDS:
        raise _invalid(
            name,
            FieldError(
                ErrorType.INVALID, field, value, "may not specify a duration larger than 2^32 seconds"
            ),
        )
    return value


def _check_names(meta: Mapping[str, Any], namespace: str, name: str) -> None:
    if meta.get("name") and meta["name"] != name:
        raise _invalid(
            name,
            FieldError(
                ErrorType.INVALID,
                "metadata.name",
                meta["name"],
                "must match the service account name if specified",
            ),
        )
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise _invalid(
            name,
            FieldError(
                ErrorType.INVALID,
                "metadata.namespace",
                meta["namespace"],
                "must match the service account namespace if specified",
            ),
        )


def _binding(ref: Mapping[str, Any], namespace: str, account: str, lookup: ObjectLookup) -> Binding:
    """What `boundObjectRef` names, checked to exist (and to match its uid if one is given)."""
    kind, api_version = str(ref.get("kind") or ""), str(ref.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    name = str(ref.get("name") or "")
    if group or kind not in ("Pod", "Secret", "Node"):
        raise errors.BadRequest(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    binding: Binding
    if kind == "Pod":
        pod = _get(lookup, POD, namespace, name, "pods")
        pod_account = str((pod.get("spec") or {}).get("serviceAccountName") or "")
        if pod_account != account:
            raise errors.BadRequest(
                f'cannot bind token for serviceaccount "{account}" to pod running with different '
                "serviceaccount name."
            )
        uid = _uid(pod)
        node_name = str((pod.get("spec") or {}).get("nodeName") or "")
        node = None
        if node_name:
            found = lookup(NODE, "", node_name)
            node = ObjectReference(node_name, _uid(found) if found is not None else "")
        binding = Binding(pod=ObjectReference(name, uid), node=node)
    elif kind == "Secret":
        uid = _uid(_get(lookup, SECRET, namespace, name, "secrets"))
        binding = Binding(secret=ObjectReference(name, uid))
    else:
        uid = _uid(_get(lookup, NODE, "", name, "nodes"))
        binding = Binding(node=ObjectReference(name, uid))
    wanted = ref.get("uid")
    if wanted and wanted != uid:
        raise errors.conflict(
            GroupResource("", kind),
            name,
            f"the UID in the bound object reference ({wanted}) does not match the UID in record. The "
            "object might have been deleted and then recreated",
        )
    return binding


def _get(
    lookup: ObjectLookup, kind: GroupVersionKind, namespace: str, name: str, plural: str
) -> Mapping[str, Any]:
    found = lookup(kind, namespace, name) if name else None
    if found is None:
        raise errors.not_found(GroupResource("", plural), name)
    return found


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))
