"""The audit log: event fields per level, bodies never logged for Secrets, and the writer thread."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from flotilla.apiserver.http.audit import (
    AuditLevel,
    AuditLog,
    AuditSettings,
    audit_event,
    request_object,
    response_status,
)
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.users import UserInfo
from tests.support.waiting import eventually_async

RECEIVED = datetime(2026, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)
SECRETS = RequestInfo("", "v1", "default", "secrets", "", "", "create")
PODS = RequestInfo("", "v1", "default", "pods", "web", "log", "get")


def event(
    level: AuditLevel, info: RequestInfo | None, body: object = None, code: int = 201
) -> dict[str, object]:
    return audit_event(
        level=level,
        audit_id="id-1",
        method="POST",
        request_uri="/api/v1/namespaces/default/secrets?fieldManager=kubectl",
        info=info,
        user=UserInfo("alice", ("dev", "system:authenticated")),
        source_ip="10.0.0.1",
        user_agent="kubectl/v1.32.4",
        code=code,
        response_body=None,
        received=RECEIVED,
        completed=RECEIVED + timedelta(milliseconds=3),
        latency_seconds=0.003,
        decision=(True, ""),
        request_body=body,
    )


def test_metadata_events_carry_who_what_and_how_it_ended() -> None:
    """An event names user, groups, verb, URI, objectRef, code, timestamps and latency."""
    found = event(AuditLevel.METADATA, PODS, body={"spec": 1}, code=200)
    assert found["kind"] == "Event" and found["apiVersion"] == "audit.k8s.io/v1"
    assert found["stage"] == "ResponseComplete" and found["level"] == "Metadata"
    assert found["user"] == {"username": "alice", "groups": ["dev", "system:authenticated"]}
    assert found["verb"] == "get"
    assert found["objectRef"] == {
        "resource": "pods",
        "namespace": "default",
        "name": "web",
        "apiVersion": "v1",
        "subresource": "log",
    }
    assert found["responseStatus"] == {"metadata": {}, "code": 200}
    assert found["requestReceivedTimestamp"] == "2026-06-01T12:00:00.123456Z"
    assert found["stageTimestamp"] == "2026-06-01T12:00:00.126456Z"
    assert found["latency"] == "3.000ms"
    assert "requestObject" not in found


def test_request_level_logs_bodies_except_secrets() -> None:
    """At Request level the body is logged, but never a Secret's."""
    pods = RequestInfo("", "v1", "default", "configmaps", "", "", "create")
    assert event(AuditLevel.REQUEST, pods, body={"data": {"a": "b"}})["requestObject"] == {"data": {"a": "b"}}
    assert "requestObject" not in event(AuditLevel.REQUEST, SECRETS, body={"data": {"password": "x"}})


def test_non_resource_requests_use_the_method_as_verb_and_have_no_object_ref() -> None:
    """/healthz and the like are audited by lower-case method without objectRef."""
    found = event(AuditLevel.METADATA, None)
    assert found["verb"] == "post" and "objectRef" not in found


def test_failures_carry_the_status_reason_and_message() -> None:
    """A Status body's reason and message are kept in responseStatus."""
    body = orjson.dumps(
        {"kind": "Status", "status": "Failure", "message": "nope", "reason": "Forbidden", "code": 403}
    )
    assert response_status(403, body) == {
        "metadata": {},
        "code": 403,
        "status": "Failure",
        "message": "nope",
        "reason": "Forbidden",
    }
    assert response_status(500, b"not json") == {"metadata": {}, "code": 500}


def test_request_bodies_are_read_in_every_content_type() -> None:
    """JSON, YAML apply patches and JSON patches become data; unreadable bodies are dropped."""
    assert request_object(b'{"a": 1}', "application/json") == {"a": 1}
    assert request_object(b"a: 1\n", "application/apply-patch+yaml") == {"a": 1}
    assert request_object(b'[{"op": "remove", "path": "/a"}]', "application/json-patch+json") == [
        {"op": "remove", "path": "/a"}
    ]
    assert request_object(b"{", "application/json") is None
    assert request_object(b"", "application/json") is None


async def test_the_middleware_writes_one_line_per_request(tmp_path: Path) -> None:
    """Requests through the middleware land in the file, each with an Audit-Id echoed to the client."""
    audit = AuditLog(AuditSettings(AuditLevel.REQUEST, tmp_path / "audit.log"))
    app = web.Application(middlewares=[audit.middleware])
    app.on_response_prepare.append(audit.on_response_prepare)

    async def create(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"kind": "ConfigMap"}, status=201)

    app.router.add_post("/api/v1/namespaces/default/configmaps", create)
    audit.start()
    async with TestClient(TestServer(app)) as client:
        response = await client.post(
            "/api/v1/namespaces/default/configmaps",
            json={"metadata": {"name": "c"}},
            headers={"Audit-ID": "mine"},
        )
        assert response.status == 201
        assert response.headers["Audit-Id"] == "mine"
        missing = await client.get("/nowhere")
        assert missing.status == 404
    await audit.stop()
    lines = [orjson.loads(line) for line in (tmp_path / "audit.log").read_bytes().splitlines()]
    assert [(e["verb"], e["responseStatus"]["code"]) for e in lines] == [("create", 201), ("get", 404)]
    assert lines[0]["auditID"] == "mine"
    assert lines[0]["requestObject"] == {"metadata": {"name": "c"}}


async def test_the_writer_rotates_the_file_past_its_size(tmp_path: Path) -> None:
    """Past max_size_bytes the file moves to .1 and a new one starts."""
    path = tmp_path / "audit.log"
    audit = AuditLog(AuditSettings(AuditLevel.METADATA, path, max_size_bytes=100, max_backups=2))
    audit.start()
    for index in range(5):
        audit.record({"n": index, "padding": "x" * 100})
    await audit.stop()
    kept = sorted(p.name for p in tmp_path.iterdir())  # noqa: ASYNC240 - a test reading its tmp dir
    assert "audit.log.1" in kept and "audit.log.3" not in kept


async def test_the_writer_survives_a_failed_write_and_resumes(tmp_path: Path) -> None:
    """A batch that cannot be written is lost, but the writer keeps draining and writes later ones."""
    path = tmp_path / "audit.log"
    path.mkdir()  # opening the log fails while a directory stands in its place
    audit = AuditLog(AuditSettings(AuditLevel.METADATA, path))
    audit.start()
    audit.record({"n": 1})
    # Handed to the writer thread, which has tried to write it (and failed).
    await eventually_async(lambda: not audit._lines and audit._handed_over.value == 0, what="a failed write")
    path.rmdir()
    audit.record({"n": 2})
    await asyncio.wait_for(audit.stop(), timeout=10)
    assert [orjson.loads(line)["n"] for line in path.read_text().splitlines()] == [2]


def test_a_full_buffer_drops_and_counts_instead_of_waiting(tmp_path: Path) -> None:
    """With no writer draining, events beyond the buffer are dropped and counted."""
    audit = AuditLog(AuditSettings(AuditLevel.METADATA, tmp_path / "audit.log", buffer_size=2))
    for index in range(5):
        audit.record({"n": index})
    assert audit.dropped == 3


def test_level_none_disables_the_log(tmp_path: Path) -> None:
    """Level None writes nothing and starts no writer."""
    audit = AuditLog(AuditSettings(AuditLevel.NONE, tmp_path / "audit.log"))
    audit.start()
    assert not audit.enabled
    assert not (tmp_path / "audit.log").exists()


async def test_lines_wait_on_the_loop_and_stop_writes_them(tmp_path: Path) -> None:
    """Lines recorded on the event loop are handed over together, and stop writes the last ones."""
    path = tmp_path / "audit.log"
    audit = AuditLog(AuditSettings(AuditLevel.METADATA, path))
    audit.start()
    for index in range(3):
        audit.record({"n": index})
    assert audit._queue.empty()  # still on the loop: nothing woke the writer thread yet
    await eventually_async(lambda: written(path) == [0, 1, 2], what="the lines written together")
    audit.record({"n": 3})
    await audit.stop()
    assert written(path) == [0, 1, 2, 3]


def written(path: Path) -> list[int]:
    """The `n` of every line in the audit log so far."""
    if not path.exists():
        return []
    return [orjson.loads(line)["n"] for line in path.read_text().splitlines()]
