"""How `flotilla apply` writes each object: server-side apply, kubectl's outcome words, policies.

Every object is written with server-side apply (field manager `flotilla`, `fieldValidation=Strict`),
the semantics of `kubectl apply --server-side`: fields the manifest sets become ours, fields other
managers own are left alone, and setting a field another manager owns to another value is a
conflict, reported with the fields and the two ways out (`--force-conflicts` takes them over). The
object is read first so the line printed is kubectl's: `created` when it did not exist,
`configured` when the apply changed it (its resourceVersion moved), `unchanged` otherwise. Dry runs
say `(dry run)` (nothing sent but reads) or `(server dry run)` (the hub checks, stores nothing).

With `--all-clusters` / `--cluster` each object is followed by the policy `policies.py`
generates for it, applied the same way. Karmada's own kinds get none: they are never propagated.

A bad object (invalid, unknown kind, wrong namespace, conflicting) is reported on stderr in
kubectl's words and the others are still applied; `Applier.failures` counts them so the command
exits 1 at the end, as kubectl does. The rules deciding the body, the outcome and the messages are
pure functions at the top; `Applier` is the thin shell that sends the requests.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import click

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.arguments.manifests import Manifest
from flotilla.cli.output.names import printed_object_name
from flotilla.cli.propagation.policies import apply_policy, propagates
from flotilla.client import APIStatusError, Client, Conflict, NotFound
from flotilla.client.client import APPLY_PATCH
from flotilla.client.discovery import ResourceInfo

SERVER_FIELDS = ("resourceVersion", "managedFields", "generation")
"""Metadata a server dry run may change without the apply changing anything."""

Echo = Callable[[str, str], None]
"""Prints one applied object: its kubectl name and what happened to it."""


@dataclass(frozen=True)
class ApplySettings:
    """How each object is applied: the command line's options, resolved."""

    namespace: str
    """Namespace of namespaced objects that name none."""
    namespace_enforced: bool = False
    """`-n` was given: an object naming another namespace is an error, as in kubectl."""
    dry_run: str = "none"
    force_conflicts: bool = False
    field_manager: str = "flotilla"
    validation: str = "Strict"
    propagate: bool = False
    """Generate a policy beside every object (`--all-clusters` or `--cluster`)."""
    cluster_names: list[str] | None = None
    """The clusters of generated policies; None places them on all clusters."""


class ManifestProblem(ValueError):
    """An object cannot be applied as written; the message is kubectl's, without `error: `."""


class ApplyFailed(Exception):
    """One object failed; the message is the line to print on stderr."""


# -- pure rules --------------------------------------------------------------------------------------


def prepared_object(
    obj: dict[str, Any], namespaced: bool, settings: ApplySettings, source: str
) -> dict[str, Any]:
    """The body to apply: a copy with the namespace settled (set, checked or, cluster-scoped, removed)."""
    prepared = copy.deepcopy(obj)
    metadata = prepared.setdefault("metadata", {})
    if not isinstance(metadata, dict) or not metadata.get("name"):
        raise ManifestProblem(f'error when applying "{source}": resource name may not be empty')
    if not namespaced:
        metadata.pop("namespace", None)
        return prepared
    written = str(metadata.get("namespace") or "")
    if written and settings.namespace_enforced and written != settings.namespace:
        raise ManifestProblem(
            f'the namespace from the provided object "{written}" does not match the namespace '
            f"\"{settings.namespace}\". You must pass '--namespace={written}' to perform this operation."
        )
    metadata["namespace"] = written or settings.namespace
    return prepared


def apply_outcome(before: dict[str, Any] | None, after: dict[str, Any], dry_run: str) -> str:
    """kubectl's word for what an apply did: `created`, `configured` or `unchanged`."""
    if before is None:
        return "created"
    if dry_run == "client":
        return "configured"
    if dry_run == "server":
        return "unchanged" if _comparable(before) == _comparable(after) else "configured"
    before_version = (before.get("metadata") or {}).get("resourceVersion")
    after_version = (after.get("metadata") or {}).get("resourceVersion")
    return "unchanged" if before_version == after_version else "configured"


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    copied = copy.deepcopy(obj)
    metadata = copied.get("metadata")
    if isinstance(metadata, dict):
        for field in SERVER_FIELDS:
            metadata.pop(field, None)
    return copied


def dry_run_suffix(dry_run: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")


def unknown_kind_message(obj: dict[str, Any], source: str) -> str:
    """kubectl's message for a kind the hub does not serve."""
    metadata = obj.get("metadata") or {}
    return (
        f'resource mapping not found for name: "{metadata.get("name", "")}" namespace: '
        f'"{metadata.get("namespace", "")}" from "{source}": no matches for kind "{obj.get("kind")}" '
        f'in version "{obj.get("apiVersion")}"; ensure CRDs are installed first'
    )


def conflict_message(message: str, printed: str, source: str) -> str:
    """One line saying which fields conflict, for which object, and the two ways out."""
    return (
        f'{message} (applying {printed} from "{source}"); re-run with --force-conflicts to take these '
        "fields over, or remove them from the manifest to leave them to their current managers"
    )


def status_message(reason: str, message: str, causes: list[dict[str, Any]], source: str) -> str:
    """kubectl's `Error from server (Reason): error when applying "file": message`, causes appended."""
    missing = [cause for cause in causes if cause.get("field") and str(cause["field"]) not in message]
    details = "".join(f"; {cause['field']}: {cause.get('message', '')}" for cause in missing)
    return f'Error from server ({reason}): error when applying "{source}": {message}{details}'


def output_document(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """What `-o yaml|json` prints: the object, or a v1 List of them, without managedFields (as kubectl)."""
    printable = [_without_managed_fields(obj) for obj in objects]
    if len(printable) == 1:
        return printable[0]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": printable}


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or "managedFields" not in metadata:
        return obj
    return {**obj, "metadata": {key: value for key, value in metadata.items() if key != "managedFields"}}


# -- the shell ---------------------------------------------------------------------------------------


class Applier:
    """Applies manifests one at a time to the hub, printing as kubectl does; never raises per object."""

    def __init__(self, hub: Client, settings: ApplySettings, echo: Echo) -> None:
        self.hub = hub
        self.settings = settings
        self.echo = echo
        self.results: list[dict[str, Any]] = []
        self.failures = 0

    async def check_clusters(self, cluster_names: list[str]) -> None:
        """Fail before applying anything if `--cluster` names a cluster the hub does not know."""
        clusters, _ = await self.hub.list(constants.CLUSTER)
        known = {str((cluster.get("metadata") or {}).get("name")) for cluster in clusters}
        unknown = [name for name in cluster_names if name not in known]
        if unknown:
            raise click.ClickException("; ".join(f"cluster {name} does not exist" for name in unknown))

    async def apply_manifest(self, manifest: Manifest) -> None:
        applied = await self._apply_one(manifest.object, manifest.source)
        if applied is None or not self.settings.propagate:
            return
        gvk = GroupVersionKind.of(applied)
        if not propagates(gvk):
            return
        metadata = applied.get("metadata") or {}
        policy = apply_policy(
            gvk, str(metadata.get("name")), str(metadata.get("namespace") or ""), self.settings.cluster_names
        )
        await self._apply_one(policy, manifest.source)

    async def _apply_one(self, obj: dict[str, Any], source: str) -> dict[str, Any] | None:
        """Apply one object and print the outcome; the object as applied, or None after reporting."""
        try:
            printed, outcome, applied = await self._write(obj, source)
        except ApplyFailed as failure:
            click.echo(str(failure), err=True)
            self.failures += 1
            return None
        self.echo(printed, outcome + dry_run_suffix(self.settings.dry_run))
        self.results.append(applied)
        return applied

    async def _write(self, obj: dict[str, Any], source: str) -> tuple[str, str, dict[str, Any]]:
        """(printed name, outcome, object as applied); ApplyFailed with the message to print."""
        try:
            info = await self.hub.resource(GroupVersionKind.of(obj))
        except NotFound as exc:
            raise ApplyFailed("error: " + unknown_kind_message(obj, source)) from exc
        try:
            body = prepared_object(obj, info.namespaced, self.settings, source)
        except ManifestProblem as exc:
            raise ApplyFailed(f"error: {exc}") from exc
        printed = printed_object_name(body)
        metadata = body["metadata"]
        try:
            before = await self.hub.get_or_none(
                info.gvk, metadata["name"], namespace=metadata.get("namespace", "")
            )
            after = body if self.settings.dry_run == "client" else await self._send(info, body)
        except Conflict as exc:
            if exc.causes:
                raise ApplyFailed(f"error: {conflict_message(exc.message, printed, source)}") from exc
            raise ApplyFailed(status_message(exc.reason or "Conflict", exc.message, [], source)) from exc
        except APIStatusError as exc:
            message = status_message(exc.reason or str(exc.code), exc.message, exc.causes, source)
            raise ApplyFailed(message) from exc
        return printed, apply_outcome(before, after, self.settings.dry_run), after

    async def _send(self, info: ResourceInfo, body: dict[str, Any]) -> dict[str, Any]:
        metadata = body["metadata"]
        query = {
            "fieldManager": self.settings.field_manager,
            "force": "true" if self.settings.force_conflicts else "false",
            "fieldValidation": self.settings.validation,
        }
        if self.settings.dry_run == "server":
            query["dryRun"] = "All"
        path = info.path(metadata.get("namespace", ""), quote(str(metadata["name"]), safe=""))
        applied: dict[str, Any] = await self.hub.request(
            "PATCH", path, query=query, body=body, content_type=APPLY_PATCH
        )
        return applied
