"""The labels kube-apiserver gives a request in `apiserver_request_total` and its duration histogram.

Dashboards and alerts written for kube-apiserver select on these values, so they follow
`k8s.io/apiserver/pkg/endpoints/metrics` exactly:

- `verb` is the HTTP method, upper case, made canonical: GET (and HEAD) of a collection is LIST, of
  one object GET; any GET with `watch` true is WATCH; a PATCH sent as
  `application/apply-patch+yaml` is APPLY; the streaming subresources (log, exec, attach,
  portforward, proxy) are CONNECT; creates stay POST, updates PUT, and deleting a collection is
  DELETE with scope `namespace` or `cluster` (kube never reports DELETECOLLECTION here). Any other
  method is `other`.
- `scope` is `resource` for a request naming one object (and for every create), `namespace` for a
  collection in a namespace, `cluster` for a cluster-wide collection, "" for non-resource paths.
- `dry_run` is "" without `?dryRun`, the sorted distinct values when they are valid (`All`),
  `invalid` otherwise.
- A non-resource request (discovery, `/openapi`, `/version`, health) has empty group, version and
  resource and its route in `subresource`, as kube puts its path there.

Label values must stay few whatever clients send: paths and resource names are user input. So a
non-resource request is labelled by its route's pattern (`/openapi/v3/{key}`, never the key), an
unrouted path by "", and an error answer for a group, version, resource or subresource that is not
served has those labels emptied (`bounded`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from multidict import MultiMapping

from flotilla.apiserver.requestinfo import RequestInfo

APPLY_PATCH = "application/apply-patch+yaml"
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy", "tunnel"})
REPORTED_VERBS = frozenset(
    {
        "APPLY",
        "CONNECT",
        "CREATE",
        "DELETE",
        "DELETECOLLECTION",
        "GET",
        "LIST",
        "PATCH",
        "POST",
        "PROXY",
        "PUT",
        "UPDATE",
        "WATCH",
        "WATCHLIST",
    }
)
OTHER_VERB = "other"
COMPONENT = "apiserver"
"""The `component` label of requests this server answers itself (kube's `APIServerComponent`)."""


class RequestLabels(NamedTuple):
    """The labels of `apiserver_request_duration_seconds`, in kube's order (component apart)."""

    verb: str
    dry_run: str
    group: str
    version: str
    resource: str
    subresource: str
    scope: str


def scope_of(info: RequestInfo | None) -> str:
    """kube's `CleanScope`."""
    if info is None:
        return ""
    if info.name or info.verb == "create":
        return "resource"
    if info.namespace:
        return "namespace"
    return "cluster"


def is_watch(method: str, query: MultiMapping[str]) -> bool:
    """Any GET whose `watch` parameter is true (present and not "0" or "false"), as kube reads it."""
    if method not in ("GET", "LIST"):
        return False
    values = query.getall("watch", [])
    return bool(values) and values[0].lower() not in ("0", "false")


def reported_verb(
    method: str, scope: str, info: RequestInfo | None, query: MultiMapping[str], content_type: str
) -> str:
    """kube's `cleanVerb(CanonicalVerb(method, scope), …)`."""
    verb = method.upper()
    if verb in ("GET", "HEAD"):
        verb = "LIST" if scope not in ("resource", "") else "GET"
    if is_watch(method.upper(), query):
        verb = "WATCH"
    if verb == "PATCH" and content_type == APPLY_PATCH:
        verb = "APPLY"
    if info is not None and info.subresource in CONNECT_SUBRESOURCES:
        verb = "CONNECT"
    return verb if verb in REPORTED_VERBS else OTHER_VERB


def dry_run_label(query: MultiMapping[str]) -> str:
    """kube's `cleanDryRun`: "", the sorted distinct values, or `invalid` (only `All` is valid)."""
    if "dryRun" not in query:
        return ""
    values = query.getall("dryRun")
    if any(value != "All" for value in values):
        return "invalid"
    return ",".join(sorted(set(values)))


def request_labels(
    method: str,
    info: RequestInfo | None,
    query: MultiMapping[str],
    content_type: str,
    route: str,
) -> RequestLabels:
    """The labels of a request: `info` for a resource request, else `route` (its route's pattern)."""
    scope = scope_of(info)
    verb = reported_verb(method, scope, info, query, content_type)
    dry_run = dry_run_label(query)
    if info is None:
        return RequestLabels(verb, dry_run, "", "", "", route, scope)
    return RequestLabels(verb, dry_run, info.group, info.version, info.resource, info.subresource, scope)


Served = Callable[[str, str, str, str], bool]
"""Whether group, version, resource (and the subresource, when not "") are served."""


def bounded(labels: RequestLabels, served: Served) -> RequestLabels:
    """`labels` of an error answer, with what is not served emptied: such values are client input."""
    if not labels.resource or served(labels.group, labels.version, labels.resource, labels.subresource):
        return labels
    if served(labels.group, labels.version, labels.resource, ""):
        return labels._replace(subresource="")
    return labels._replace(group="", version="", resource="", subresource="")
