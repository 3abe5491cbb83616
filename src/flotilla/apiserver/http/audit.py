"""The audit log: one JSON line per request saying who did what to which object, and how it ended.

Each line is an `audit.k8s.io/v1` Event at stage ResponseComplete — auditID, user and groups, verb,
requestURI, objectRef {resource, namespace, name, apiGroup, apiVersion, subresource},
responseStatus, requestReceivedTimestamp, stageTimestamp — plus `latency`, so kube's audit tooling
reads it. The policy is one level for every request (`--audit-level`):

- `None`: nothing is written;
- `Metadata`: the fields above;
- `Request`: also the request body (`requestObject`) — except for Secrets, TokenReviews and Works
  (a Work carries the Secrets it propagates), whose bodies hold credentials and are never logged.

The log file and its rotated copies are readable by their owner only (0600); a directory the log
needs is created 0700, and a log file left readable by others is tightened at start.

The middleware never blocks the event loop on the disk: lines gather on the event loop and are
handed to a writer thread in batches — every `HAND_OFF_SECONDS`, or as soon as `HAND_OFF_LINES` are
waiting, and on stop — which appends them to `<data-dir>/audit.log` or `--audit-log-path`, rotating
it past a size. Handing lines over one by one would wake the writer thread, and pass the GIL back
and forth, on every request. If the disk cannot keep up, more than `buffer_size` lines wait and
new ones are dropped and counted, rather than slowing every request — the choice kube's batching
backend makes too. As before, a line is written after its response is sent: a crash loses the
last few lines of the log (at most a hand-off interval more than the writer had yet to write).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import glob
import os
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson
import structlog
from aiohttp import web

from flotilla.api.times import format_micro_time
from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import PATCH_TYPES, decode_body, decode_json_or_yaml, media_type_of
from flotilla.apiserver.http.responseheaders import escape_unsafe
from flotilla.apiserver.registry.identifiers import RandomIdentifiers
from flotilla.apiserver.requestinfo import RequestInfo, request_info
from flotilla.apiserver.users import USER_KEY, UserInfo
from flotilla.runtime.privatefiles import private_directory, private_file

log = structlog.get_logger("flotilla.apiserver.http.audit")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

AUDIT_ID_HEADER = "Audit-Id"
AUDIT_ID_KEY = web.RequestKey("flotilla.audit.id", str)
AUTHORIZATION_DECISION_KEY = web.RequestKey("flotilla.authorization.decision", tuple[bool, str])
"""Where the API middleware leaves the authorizer's (allowed, reason) for the audit annotations."""
BODY_NEVER_LOGGED = frozenset(
    {("", "secrets"), ("authentication.k8s.io", "tokenreviews"), ("work.karmada.io", "works")}
)
_STOP: list[bytes] = []
HAND_OFF_SECONDS = 0.02
"""Longest a line waits on the event loop before it is handed to the writer thread."""
HAND_OFF_LINES = 256
"""Lines that are handed over at once, without waiting for the interval."""


class AuditLevel(enum.Enum):
    NONE = "None"
    METADATA = "Metadata"
    REQUEST = "Request"


@dataclass(frozen=True, slots=True)
class AuditSettings:
    level: AuditLevel = AuditLevel.NONE
    """How much to record of each request; None writes no log at all."""
    path: Path | None = None
    """Where the lines go; the API server defaults it to `<data-dir>/audit.log`."""
    max_size_bytes: int = 100 * 1024 * 1024
    """Rotate the file (to `.1`, `.2`…) when it grows past this size; 0 never rotates."""
    max_backups: int = 3
    """Rotated files kept."""
    buffer_size: int = 10000
    """Lines waiting for the writer before new ones are dropped."""


def object_ref(info: RequestInfo | None) -> dict[str, str] | None:
    if info is None:
        return None
    ref = {
        "resource": info.resource,
        "namespace": info.namespace,
        "name": info.name,
        "apiGroup": info.group,
        "apiVersion": info.version,
        "subresource": info.subresource,
    }
    return {key: value for key, value in ref.items() if value}


def response_status(code: int, body: bytes | None) -> dict[str, Any]:
    """kube's responseStatus: the code, and for failures the Status' reason and message."""
    status: dict[str, Any] = {"metadata": {}, "code": code}
    if code >= 400 and body:
        with contextlib.suppress(orjson.JSONDecodeError):
            parsed = orjson.loads(body)
            if isinstance(parsed, dict) and parsed.get("kind") == "Status":
                for key in ("status", "message", "reason", "details"):
                    if key in parsed:
                        status[key] = parsed[key]
    return status


def body_is_loggable(info: RequestInfo | None) -> bool:
    return info is None or (info.group, info.resource) not in BODY_NEVER_LOGGED


def request_object(body: bytes, content_type: str | None) -> Any:
    """The request body as data for `requestObject`; None when it is empty or unreadable."""
    if not body:
        return None
    media = media_type_of(content_type)
    try:
        # The handler's own bounded decoders (size, nesting, YAML aliases): what the request could
        # not be decoded as is not logged as an object either.
        if media in PATCH_TYPES:
            return decode_json_or_yaml(body)
        return decode_body(body, content_type).obj
    except errors.APIError:
        return None


def audit_event(
    *,
    level: AuditLevel,
    audit_id: str,
    method: str,
    request_uri: str,
    info: RequestInfo | None,
    user: UserInfo | None,
    source_ip: str | None,
    user_agent: str | None,
    code: int,
    response_body: bytes | None,
    received: datetime,
    completed: datetime,
    latency_seconds: float,
    decision: tuple[bool, str] | None = None,
    request_body: Any = None,
) -> dict[str, Any]:
    """One audit.k8s.io/v1 Event at stage ResponseComplete."""
    event: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": level.value,
        "auditID": audit_id,
        "stage": "ResponseComplete",
        "requestURI": request_uri,
        "verb": info.verb if info is not None else method.lower(),
        "user": user.to_json() if user is not None else {},
        "sourceIPs": [source_ip] if source_ip else [],
    }
    if user_agent:
        event["userAgent"] = user_agent
    ref = object_ref(info)
    if ref is not None:
        event["objectRef"] = ref
    event["responseStatus"] = response_status(code, response_body)
    if level is AuditLevel.REQUEST and request_body is not None and body_is_loggable(info):
        event["requestObject"] = request_body
    event["requestReceivedTimestamp"] = format_micro_time(received)
    event["stageTimestamp"] = format_micro_time(completed)
    event["latency"] = f"{latency_seconds * 1000:.3f}ms"
    if decision is not None:
        event["annotations"] = {
            "authorization.k8s.io/decision": "allow" if decision[0] else "forbid",
            "authorization.k8s.io/reason": decision[1],
        }
    return event


class AuditLog:
    """The audit middleware and its writer thread (start before serving, stop after)."""

    def __init__(self, settings: AuditSettings, clock: Callable[[], datetime] | None = None) -> None:
        self.settings = settings
        self.clock = clock or (lambda: datetime.now(UTC))
        self.dropped = 0
        self.ids = RandomIdentifiers()
        self._lines: list[bytes] = []  # on the event loop, not yet handed over
        self._hand_off_timer: asyncio.TimerHandle | None = None
        self._queue: queue.SimpleQueue[list[bytes]] = queue.SimpleQueue()
        self._handed_over = _LineCount()  # lines the writer thread has yet to write
        self._thread: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.settings.level is not AuditLevel.NONE and self.settings.path is not None

    def start(self) -> None:
        if not self.enabled or self._thread is not None:
            return
        path = self.settings.path
        assert path is not None
        if not path.parent.exists():
            private_directory(path.parent)
        for existing in (path, *path.parent.glob(f"{glob.escape(path.name)}.*")):
            private_file(existing)
        self._thread = threading.Thread(
            target=_write_lines,
            args=(self._queue, self._handed_over, self.settings),
            name="audit-writer",
            daemon=True,
        )
        self._thread.start()

    async def stop(self) -> None:
        """Write what is waiting, then end the writer thread."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._hand_off()
        self._queue.put(_STOP)
        await asyncio.to_thread(thread.join)
        if self.dropped:
            log.warning("audit.dropped_total", dropped=self.dropped)

    def record(self, event: dict[str, Any]) -> None:
        """Keep one event for the writer; never waits."""
        if len(self._lines) + self._handed_over.value >= self.settings.buffer_size:
            self.dropped += 1
            if self.dropped & (self.dropped - 1) == 0:  # log at 1, 2, 4, 8… drops, not on each one
                log.warning("audit.buffer_full", dropped=self.dropped)
            return
        self._lines.append(orjson.dumps(event) + b"\n")
        if len(self._lines) >= HAND_OFF_LINES:
            self._hand_off()
        elif self._hand_off_timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop to wait on (a synchronous caller): hand over now
                self._hand_off()
            else:
                self._hand_off_timer = loop.call_later(HAND_OFF_SECONDS, self._hand_off)

    def _hand_off(self) -> None:
        """Give the waiting lines to the writer thread in one piece."""
        if self._hand_off_timer is not None:
            self._hand_off_timer.cancel()
            self._hand_off_timer = None
        lines, self._lines = self._lines, []
        if lines:
            self._handed_over.add(len(lines))
            self._queue.put(lines)

    async def on_response_prepare(self, request: web.Request, response: web.StreamResponse) -> None:
        """Every response, streamed ones included, names its audit event in the `Audit-Id` header."""
        audit_id = request.get(AUDIT_ID_KEY)
        if isinstance(audit_id, str):
            response.headers[AUDIT_ID_HEADER] = audit_id

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not self.enabled:
            return await handler(request)
        # Header text may hold bytes that are not UTF-8 (lone surrogates here): U+FFFD, as in kube's JSON.
        audit_id = escape_unsafe(request.headers.get("Audit-ID", "").strip()[:128]) or self.ids.uuid4()
        request[AUDIT_ID_KEY] = audit_id
        received = self.clock()
        started = time.perf_counter()
        code = 500
        body: bytes | None = None
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            code = exc.status
            raise
        else:
            code = response.status
            if isinstance(response, web.Response) and code >= 400 and isinstance(response.body, bytes):
                body = response.body
            return response
        finally:
            await self._record(request, audit_id, code, body, received, time.perf_counter() - started)

    async def _record(
        self,
        request: web.Request,
        audit_id: str,
        code: int,
        body: bytes | None,
        received: datetime,
        latency: float,
    ) -> None:
        info = request_info(request)
        request_body = None
        if self.settings.level is AuditLevel.REQUEST and request.body_exists and body_is_loggable(info):
            # aiohttp keeps a body the handler read, so this reads the network only if nobody did.
            with contextlib.suppress(web.HTTPException, ConnectionError, ValueError):
                request_body = request_object(await request.read(), request.headers.get("Content-Type"))
        user = request.get(USER_KEY)
        decision = request.get(AUTHORIZATION_DECISION_KEY)
        self.record(
            audit_event(
                level=self.settings.level,
                audit_id=audit_id,
                method=request.method,
                request_uri=escape_unsafe(request.raw_path),
                info=info,
                user=user if isinstance(user, UserInfo) else None,
                source_ip=request.remote,
                user_agent=escape_unsafe(request.headers.get("User-Agent", "")),
                code=code,
                response_body=body,
                received=received,
                completed=self.clock(),
                latency_seconds=latency,
                decision=decision if isinstance(decision, tuple) else None,
                request_body=request_body,
            )
        )


class _LineCount:
    """Lines handed to the writer thread and not yet written, shared by the two threads."""

    __slots__ = ("_lock", "value")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0

    def add(self, count: int) -> None:
        with self._lock:
            self.value += count


def _write_lines(
    batches: queue.SimpleQueue[list[bytes]], pending: _LineCount, settings: AuditSettings
) -> None:
    """The writer thread: append batches of lines, rotating the file past its size limit.

    A failed write (disk full, file removed with its directory) loses that batch, is logged, and the
    file is opened again for the next one: the thread keeps draining the queue, so requests never
    wait on it and `stop` always finds it listening.
    """
    assert settings.path is not None
    path = settings.path
    handle: IO[bytes] | None = None
    failing = False
    try:
        while True:
            batch = batches.get()
            stop = batch is _STOP
            with contextlib.suppress(queue.Empty):
                while not stop and len(batch) < 1000:
                    more = batches.get_nowait()
                    stop = more is _STOP
                    batch = batch + more
            try:
                if handle is None:
                    handle = _open(path)
                handle.write(b"".join(batch))
                handle.flush()
                if settings.max_size_bytes and handle.tell() >= settings.max_size_bytes:
                    handle.close()
                    handle = None
                    _rotate(path, settings.max_backups)
                if failing:
                    log.warning("audit.write_recovered", path=str(path))
                    failing = False
            except OSError as exc:
                if not failing:
                    log.error("audit.write_failed", path=str(path), error=str(exc), lost=len(batch))  # noqa: TRY400
                failing = True
                if handle is not None:
                    with contextlib.suppress(OSError):
                        handle.close()
                    handle = None
            pending.add(-len(batch))
            if stop:
                return
    finally:
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()


def _open(path: Path) -> IO[bytes]:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    return os.fdopen(fd, "ab")


def _rotate(path: Path, backups: int) -> None:
    if backups <= 0:
        path.unlink(missing_ok=True)
        return
    for index in range(backups - 1, 0, -1):
        older = path.with_name(f"{path.name}.{index}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{index + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))
