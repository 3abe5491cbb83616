"""Sessions: unguessable ids, the CSRF check, and idle expiry on an injected clock."""

from __future__ import annotations

from flotilla.dashboard.sessions import OneTimeCode, SessionStore


def test_a_session_is_found_by_its_id_and_checks_its_csrf_token() -> None:
    store = SessionStore()
    session = store.create("token", "alice", ("devs",))
    assert store.get(session.id) is session
    assert store.get("other") is None and store.get(None) is None
    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches("") and not session.csrf_matches(None) and not session.csrf_matches("x")
    assert session.id != session.csrf and len(session.id) >= 40


def test_an_idle_session_expires_and_use_keeps_it_alive() -> None:
    now = [0.0]
    store = SessionStore(idle_seconds=10, clock=lambda: now[0])
    session = store.create("token", "alice", ())
    now[0] = 9
    assert store.get(session.id) is session
    now[0] = 18
    assert store.get(session.id) is session
    now[0] = 29
    assert store.get(session.id) is None
    assert len(store) == 0


def test_sign_out_forgets_the_session() -> None:
    store = SessionStore()
    session = store.create("token", "alice", ())
    assert store.delete(session.id) is session
    assert store.get(session.id) is None


def test_a_one_time_code_opens_one_sign_in() -> None:
    code = OneTimeCode("s3cret")
    assert not code.consume("wrong")
    assert code.consume("s3cret")
    assert code.spent
    assert not code.consume("s3cret")
    code.restore("s3cret")  # the sign-in it opened failed before a session existed
    assert code.consume("s3cret") and not code.consume("s3cret")
