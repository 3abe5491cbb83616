"""The write side of `/api/…`: the buttons of the clusters page and the apply editor.

Each action reuses the CLI's own code path, with the signed-in user's token in place of the
kubeconfig's credentials: joining a Push cluster is `membership.joining.join_cluster` (the uploaded
kubeconfig written to a private temporary file), unjoining is `unjoin_cluster`, cordon and taints
are `membership.taints` (the same parsing and the same cordon taint), a Pull registration is a
bootstrap token from `registration.tokens` and the command `flotilla token create
--print-register-command` prints, and the apply preview is `flotilla plan -o json` itself, run as
a child process with a kubeconfig holding only the user's token, beside a server-side dry-run
apply of every object. The middleware has checked the CSRF token and the Origin before any of
these runs; the hub's RBAC decides whether it succeeds.
"""

from __future__ import annotations

import asyncio
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import orjson
from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.arguments.manifests import parse_manifests
from flotilla.cli.membership import joining
from flotilla.cli.membership.taints import (
    TaintError,
    cordon_taints,
    existing_keys,
    parse_taint_specs,
    reorganize_taints,
)
from flotilla.cli.registration import tokens
from flotilla.client import APIStatusError
from flotilla.client.client import APPLY_PATCH
from flotilla.client.kubeconfig import KubeconfigError
from flotilla.dashboard.errors import DashboardError, bad_request, invalid
from flotilla.dashboard.hubaccess import FIELD_MANAGER, private_file
from flotilla.dashboard.state import HUB, LISTS, SETTINGS, session_of, user_client

MAX_MANIFEST_BYTES = 1024 * 1024
PLAN_TIMEOUT_SECONDS = 60.0
REGISTER_TOKEN_TTL = timedelta(hours=2)
CLUSTER_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?")


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_post("/api/clusters/{name}/cordon", cordon)
    router.add_post("/api/clusters/{name}/taints", taints)
    router.add_post("/api/clusters/{name}/unjoin", unjoin)
    router.add_post("/api/clusters/join", join)
    router.add_post("/api/clusters/register", register)
    router.add_post("/api/preview", preview)
    router.add_post("/api/apply", apply)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError as error:
        raise bad_request("the body must be a JSON object") from error
    if not isinstance(body, dict):
        raise bad_request("the body must be a JSON object")
    return body


def _forget_lists(request: web.Request) -> None:
    request.app[LISTS].invalidate(session_of(request).id)


async def _update_taints(request: web.Request, name: str, compute: Any) -> web.Response:
    client = user_client(request)
    cluster = await client.get(constants.CLUSTER, name)
    existing = list((cluster.get("spec") or {}).get("taints") or [])
    try:
        updated = compute(existing)
    except TaintError as error:
        raise invalid(str(error), "taints") from error
    if updated is not None:
        resource_version = (cluster.get("metadata") or {}).get("resourceVersion")
        patch = {"metadata": {"resourceVersion": resource_version}, "spec": {"taints": updated}}
        await client.patch(constants.CLUSTER, name, patch)
    _forget_lists(request)
    return web.json_response({"cluster": name, "changed": updated is not None})


async def cordon(request: web.Request) -> web.Response:
    """`{"cordon": true|false}`: lay or lift the unschedulable taint, as `flotilla cordon`."""
    body = await _body(request)
    wanted = body.get("cordon")
    if not isinstance(wanted, bool):
        raise invalid("cordon must be true or false", "cordon")
    return await _update_taints(
        request, request.match_info["name"], lambda taints: cordon_taints(taints, wanted)
    )


async def taints(request: web.Request) -> web.Response:
    """`{"taints": ["key=value:NoSchedule", "key-"], "overwrite": false}`, as `flotilla taint` takes them."""
    body = await _body(request)
    specs = body.get("taints")
    if not isinstance(specs, list) or not specs or not all(isinstance(spec, str) for spec in specs):
        raise invalid("taints must be a list of taint specs such as key=value:NoSchedule or key-", "taints")
    try:
        changes = parse_taint_specs(specs)
    except TaintError as error:
        raise invalid(str(error), "taints") from error
    overwrite = bool(body.get("overwrite", False))

    name = request.match_info["name"]

    def compute(existing: list[dict[str, Any]]) -> list[Any] | None:
        keys = [] if overwrite else existing_keys(existing, changes.add)
        if keys:
            raise TaintError(
                f"cluster {name} already has {','.join(keys)} taint(s) with same effect(s) "
                "and overwrite is false"
            )
        return list(reorganize_taints(existing, changes, overwrite)[1])

    return await _update_taints(request, name, compute)


async def unjoin(request: web.Request) -> web.Response:
    """`{"confirm": NAME}`: the name typed again (the page asks for it), then `flotilla unjoin`."""
    name = request.match_info["name"]
    body = await _body(request)
    if body.get("confirm") != name:
        raise invalid(f"type the cluster's name ({name}) to confirm", "confirm")
    session = session_of(request)
    with private_file(request.app[HUB].user_kubeconfig(session.token), "hub.kubeconfig") as kubeconfig:
        try:
            message = await joining.unjoin_cluster(
                name, kubeconfig, None, 30.0, bool(body.get("force", False))
            )
        except RuntimeError as error:
            raise DashboardError(409, "Conflict", str(error)) from error
    _forget_lists(request)
    return web.json_response({"cluster": name, "message": message})


async def join(request: web.Request) -> web.Response:
    """`{"name", "kubeconfig" (the member's, as text), "region"?, "provider"?, "zones"?}`: a Push join."""
    body = await _body(request)
    name = body.get("name")
    if not isinstance(name, str) or not CLUSTER_NAME.fullmatch(name):
        raise invalid("name must be a DNS label of at most 48 characters", "name")
    text = body.get("kubeconfig")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MANIFEST_BYTES:
        raise invalid("upload the member cluster's kubeconfig", "kubeconfig")
    zones = body.get("zones") or []
    if not isinstance(zones, list) or not all(isinstance(zone, str) for zone in zones):
        raise invalid("zones must be a list of names", "zones")
    session = session_of(request)
    hub = request.app[HUB]
    with (
        private_file(hub.user_kubeconfig(session.token), "hub.kubeconfig") as hub_kubeconfig,
        private_file(text, "member.kubeconfig") as member_kubeconfig,
    ):
        try:
            cluster = await joining.join_cluster(
                name,
                hub_kubeconfig,
                None,
                member_kubeconfig,
                None,
                str(body.get("provider") or ""),
                str(body.get("region") or ""),
                zones,
                dry_run=False,
            )
        except KubeconfigError as error:
            raise invalid(str(error), "kubeconfig") from error
        except RuntimeError as error:
            raise DashboardError(409, "Conflict", str(error)) from error
    _forget_lists(request)
    return web.json_response({"cluster": (cluster.get("metadata") or {}).get("name", name)}, status=201)


async def register(request: web.Request) -> web.Response:
    """A bootstrap token (two hours) and the `flotilla register` command a Pull member runs with it."""
    hub = request.app[HUB]
    if not hub.config.ca_pem:
        raise DashboardError(
            409, "Conflict", "the dashboard's hub kubeconfig has no CA data, so the CA hash is unknown"
        )
    token = tokens.generate_token()
    secret = tokens.token_secret(
        token, expiration=datetime.now(UTC) + REGISTER_TOKEN_TTL, description="created by the dashboard"
    )
    await user_client(request).create(secret)
    command = tokens.register_command(hub.config.server, token, tokens.ca_cert_hash(hub.config.ca_pem))
    return web.json_response(
        {"command": command, "expiresInSeconds": int(REGISTER_TOKEN_TTL.total_seconds())}, status=201
    )


def _objects(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    text = body.get("yaml")
    if not isinstance(text, str) or not text.strip():
        raise invalid("write the manifests to apply", "yaml")
    if len(text.encode()) > MAX_MANIFEST_BYTES:
        raise invalid("the manifests are larger than 1 MiB", "yaml")
    found = parse_manifests(text, "editor")
    if found.errors:
        raise invalid("; ".join(found.errors), "yaml")
    if not found.manifests:
        raise invalid("the editor holds no object", "yaml")
    objects = []
    for manifest in found.manifests:
        if not manifest.name:
            raise invalid(f"a {manifest.kind or 'manifest'} has no metadata.name", "yaml")
        objects.append(manifest.object)
    return text, objects


async def _server_side_apply(request: web.Request, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
    """One object applied as the user (`kubectl apply --server-side`), or only dry-run; its outcome."""
    client = user_client(request)
    meta = obj.get("metadata") or {}
    label = f"{obj.get('kind')}/{meta.get('name')}"
    try:
        gvk = GroupVersionKind.parse(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        info = await client.resource(gvk)
        namespace = str(meta.get("namespace") or ("default" if info.namespaced else ""))
        if info.namespaced:
            obj = {**obj, "metadata": {**meta, "namespace": namespace}}
        query = {"fieldManager": FIELD_MANAGER, "force": "true", "dryRun": "All" if dry_run else None}
        answer = await client.request(
            "PATCH",
            info.path(namespace, quote(str(meta.get("name")), safe="")),
            query=query,
            body=obj,
            content_type=APPLY_PATCH,
        )
    except APIStatusError as error:
        return {
            "object": label,
            "ok": False,
            "code": error.code,
            "reason": error.reason,
            "message": error.message,
            "causes": list(error.causes),
        }
    except ValueError as error:
        return {
            "object": label,
            "ok": False,
            "code": 422,
            "reason": "Invalid",
            "message": str(error),
            "causes": [],
        }
    return {
        "object": label,
        "ok": True,
        "namespace": (answer.get("metadata") or {}).get("namespace", ""),
        "message": "applied (dry run)" if dry_run else "applied",
    }


async def _plan(request: web.Request, text: str) -> dict[str, Any]:
    """`flotilla plan -f - -o json` as the user: the scheduler's answer for these manifests."""
    settings = request.app[SETTINGS]
    session = session_of(request)
    command = settings.plan_command or (sys.executable, "-m", "flotilla")
    with private_file(request.app[HUB].user_kubeconfig(session.token), "hub.kubeconfig") as kubeconfig:
        process = await asyncio.create_subprocess_exec(
            *command,
            "plan",
            "-f",
            "-",
            "-o",
            "json",
            "--kubeconfig",
            str(kubeconfig),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(text.encode()), PLAN_TIMEOUT_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()
            return {"ok": False, "error": f"flotilla plan did not answer within {PLAN_TIMEOUT_SECONDS:.0f}s"}
    if process.returncode != 0:
        return {"ok": False, "error": err.decode(errors="replace").strip().removeprefix("Error: ")}
    try:
        return {"ok": True, "plan": orjson.loads(out)}
    except orjson.JSONDecodeError:
        return {"ok": False, "error": "flotilla plan answered something that is not JSON"}


async def preview(request: web.Request) -> web.Response:
    """`{"yaml": "…"}`: the plan (placement, split, excluded clusters and why) and the dry-run result."""
    text, objects = _objects(await _body(request))
    plan, dry_runs = await asyncio.gather(
        _plan(request, text), asyncio.gather(*(_server_side_apply(request, obj, True) for obj in objects))
    )
    return web.json_response({"plan": plan, "dryRun": list(dry_runs)})


async def apply(request: web.Request) -> web.Response:
    """`{"yaml": "…"}`: every object server-side applied as the user, in order; each one's outcome."""
    _, objects = _objects(await _body(request))
    results = [await _server_side_apply(request, obj, False) for obj in objects]
    _forget_lists(request)
    status = 200 if all(result["ok"] for result in results) else 207
    return web.json_response({"results": results}, status=status)
