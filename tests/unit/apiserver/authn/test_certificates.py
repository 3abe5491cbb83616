"""Client-certificate authentication: CN and O read once per certificate, then remembered."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import make_mocked_request

from flotilla.apiserver.authn import CertificateAuthenticator


class _SSLObject:
    def __init__(self, der: bytes | None) -> None:
        self.der = der

    def getpeercert(self, binary_form: bool = False) -> bytes | None:
        assert binary_form
        return self.der


class _Transport:
    """What the server's TLS transport tells about the peer (the handshake already verified it)."""

    def __init__(self, der: bytes | None, subject: tuple[Any, ...]) -> None:
        self.ssl_object = _SSLObject(der)
        self.subject = subject
        self.decoded = 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "ssl_object":
            return self.ssl_object
        if name == "peercert":
            self.decoded += 1
            return {"subject": self.subject} if self.ssl_object.der else None
        return default


def _subject(name: str, *groups: str) -> tuple[Any, ...]:
    return ((("commonName", name),), *((("organizationName", group),) for group in groups))


async def _user(authenticator: CertificateAuthenticator, transport: _Transport) -> Any:
    return await authenticator.authenticate(make_mocked_request("GET", "/api", transport=transport))


async def test_the_common_name_is_the_user_and_organizations_are_groups() -> None:
    """CN is the name, each O a group, plus system:authenticated."""
    user = await _user(CertificateAuthenticator(), _Transport(b"der-1", _subject("alice", "dev", "ops")))
    assert user.username == "alice"
    assert user.groups == ("dev", "ops", "system:authenticated")


async def test_a_certificate_is_read_once_and_each_certificate_has_its_own_user() -> None:
    """The subject is decoded on first sight of a certificate only; another certificate is read anew."""
    authenticator = CertificateAuthenticator()
    alice = _Transport(b"der-1", _subject("alice"))
    for _ in range(3):
        assert (await _user(authenticator, alice)).username == "alice"
    assert alice.decoded == 1
    bob = _Transport(b"der-2", _subject("bob", "system:masters"))
    assert (await _user(authenticator, bob)).username == "bob"
    assert (await _user(authenticator, alice)).username == "alice"


async def test_no_certificate_or_no_common_name_is_no_user() -> None:
    """Without a client certificate, or with one that names nobody, authentication moves on."""
    authenticator = CertificateAuthenticator()
    assert await _user(authenticator, _Transport(None, ())) is None
    assert await _user(authenticator, _Transport(b"der-3", ((("organizationName", "dev"),),))) is None
