"""Secrets encrypted at rest, wherever the hub stores them: AES-256-GCM with named keys from a file.

kube-apiserver encrypts Secrets before they reach etcd when given an EncryptionConfiguration; a
Flotilla API server always does, with keys it keeps in `<data-dir>/encryption-keys.yaml` (created
on first start, mode 0600): a list of named 256-bit keys. The first key encrypts; every key
decrypts, so a key is rotated by putting a new one first (`flotilla secrets rotate-key`; a running
server uses it from its next start) and rewriting the stored objects under it while the server is
stopped (`flotilla secrets reencrypt`), after which the old key may be removed from the file.

A Secret's data is stored in two kinds of object on a hub: the Secret itself, and every Work that
propagates it to a member (`spec.workload.manifests[]` holds the whole Secret). Works are all
encrypted, not only those that hold a Secret today: a Work's manifests change with its template, and
a rule that looked inside would leak the first version of a Work that gains a Secret, and cost a
scan of every manifest on every write. (ResourceBindings hold a reference, not the data; the audit
log never records Secret or Work bodies; the last-applied annotation of a Secret is inside it.)
Encrypting a Work costs one AES-GCM pass over its JSON when it is written (2-3 us up to 10 KB, 14 us
per 100 KB), and one to read it back at start (the cache keeps writes of its own server decoded): a
Work update through the whole pipeline took +4 us (+2%) for a 1.5 KB Work, +30 us (+8%) for a
100 KB one (`bench/encryption.py`).

A stored value is kube's `aesgcm` envelope: `k8s:enc:aesgcm:v1:<key name>:` + a random 12-byte
nonce + the AES-GCM ciphertext of the JSON object, sealed with the storage key as additional
authenticated data (a ciphertext copied to another key does not decrypt). Values without the prefix
are read as they are: objects stored before encryption covered them stay readable, and their next
write (or `flotilla secrets reencrypt`) encrypts them. Random nonces are safe for about 2**32
writes per key; rotate long before that — every Work write counts, status updates included: at
1,000 Work writes a second a key reaches 2**32 in about 50 days.

`SecretEncryption` is the watch cache's storage transformer (see `cachedobjects.StorageTransformer`):
objects under `ENCRYPTED_PREFIXES` pass through it whenever bytes meet the store, so nothing else in
the server knows about it; for any other key it costs one `str.startswith`.

Re-encryption runs offline, on the store of a stopped server (`reencrypt_offline`): it refuses when
another process has the store open, rewrites every encrypted kind's object not already under the
first key, compacts the store's history to the current revision (older versions, under old keys or
in plaintext, are dropped) and vacuums the SQLite file so their bytes do not linger in free pages.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from flotilla.runtime.privatefiles import private_file
from flotilla.storage import Backend, StorageError
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings
from flotilla.storage.sqlite import SQLiteBackend

ENCRYPTION_KEYS_FILE = "encryption-keys.yaml"
STORE_FILE = "store.db"
SECRETS_PREFIX = "/registry/core/secrets/"
WORKS_PREFIX = "/registry/work.karmada.io/works/"
ENCRYPTED_PREFIXES = (SECRETS_PREFIX, WORKS_PREFIX)
"""Where the objects that hold a Secret's data are stored (a kind's storage prefix)."""
REENCRYPT_PAGE = 500
ENVELOPE_PREFIX = b"k8s:enc:aesgcm:v1:"
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
GENERATED_NAME = re.compile(r"^key-(\d+)$")

FILE_HEADER = """\
# Keys that encrypt Secrets (and the Works that carry them) at rest (AES-256-GCM). The first key
# encrypts; every key decrypts.
# Rotate: `flotilla secrets rotate-key`, then with the API server stopped `flotilla secrets reencrypt`;
# then keys other than the first may be removed. Losing this file loses every Secret.
"""


class EncryptionConfigError(Exception):
    """The key file is missing, unreadable or malformed; the message says what to fix."""


class DecryptionError(StorageError):
    """A stored object cannot be decrypted: its key is not in the key file, or the bytes were altered."""


class StoreInUseError(Exception):
    """Another process (a running API server) has the store open."""


@dataclass(frozen=True, slots=True)
class EncryptionKey:
    name: str
    secret: bytes = b""

    def __repr__(self) -> str:
        return f"EncryptionKey(name={self.name!r})"  # never the secret


# -- the key file ------------------------------------------------------------------------------------


def new_key(name: str) -> EncryptionKey:
    return EncryptionKey(name, os.urandom(KEY_BYTES))


def next_key_name(keys: Sequence[EncryptionKey]) -> str:
    """`key-<n>`, one past the highest such name in use (names given by hand are left alone)."""
    numbers = [int(match.group(1)) for key in keys if (match := GENERATED_NAME.match(key.name))]
    return f"key-{max(numbers, default=0) + 1}"


def parse_keys(text: str, source: str = ENCRYPTION_KEYS_FILE) -> tuple[EncryptionKey, ...]:
    """The keys of a key file's text, first (encrypting) key first."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise EncryptionConfigError(f"{source}: not valid YAML: {exc}") from exc
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list) or not entries:
        raise EncryptionConfigError(f"{source}: `keys` must be a non-empty list of {{name, secret}}")
    keys: list[EncryptionKey] = []
    for position, entry in enumerate(entries):
        where = f"{source}: keys[{position}]"
        if not isinstance(entry, dict):
            raise EncryptionConfigError(f"{where}: must be a mapping with `name` and `secret`")
        name = entry.get("name")
        if not isinstance(name, str) or not KEY_NAME.match(name):
            raise EncryptionConfigError(
                f"{where}.name: {name!r} must be 1-63 letters, digits, '.', '_' or '-' (no ':')"
            )
        if any(key.name == name for key in keys):
            raise EncryptionConfigError(f"{where}.name: {name!r} is used twice")
        keys.append(EncryptionKey(name, _decode_secret(entry.get("secret"), f"{where}.secret")))
    return tuple(keys)


def _decode_secret(value: Any, where: str) -> bytes:
    if not isinstance(value, str):
        raise EncryptionConfigError(f"{where}: must be the base64 encoding of {KEY_BYTES} random bytes")
    try:
        secret = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise EncryptionConfigError(f"{where}: not valid base64") from exc
    if len(secret) != KEY_BYTES:
        raise EncryptionConfigError(
            f"{where}: decodes to {len(secret)} bytes; AES-256 needs exactly {KEY_BYTES}"
        )
    return secret


def render_keys(keys: Sequence[EncryptionKey]) -> str:
    """The key file's text for `keys` (the inverse of `parse_keys`)."""
    document = {"keys": [{"name": key.name, "secret": base64.b64encode(key.secret).decode()} for key in keys]}
    return FILE_HEADER + yaml.safe_dump(document, sort_keys=False)


def read_keys(path: Path) -> tuple[EncryptionKey, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EncryptionConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return parse_keys(text, str(path))


def write_keys(path: Path, keys: Sequence[EncryptionKey]) -> None:
    """Replace the key file atomically; it is readable by its owner only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(render_keys(keys))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def load_or_create(path: Path) -> SecretEncryption:
    """The encryption of a server's Secrets; the key file is created with one key on first start
    (an existing one readable by others is made private first)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_keys(path, [new_key(next_key_name(()))])
    else:
        private_file(path)
    return SecretEncryption(read_keys(path))


def rotate_key(path: Path) -> EncryptionKey:
    """Put a new key first in the key file (the others still decrypt); returns it."""
    keys = read_keys(path)
    key = new_key(next_key_name(keys))
    write_keys(path, [key, *keys])
    return key


# -- the transformer ---------------------------------------------------------------------------------


class SecretEncryption:
    """The storage transformer of the objects holding Secret data: seals values under `prefixes`
    with the first key, opens them with any."""

    def __init__(self, keys: Sequence[EncryptionKey], prefixes: tuple[str, ...] = ENCRYPTED_PREFIXES) -> None:
        if not keys:
            raise EncryptionConfigError("at least one encryption key is needed")
        self.prefixes = prefixes
        self.keys = tuple(keys)
        self._ciphers = {key.name: AESGCM(key.secret) for key in self.keys}
        self._current = AESGCM(self.keys[0].secret)
        self._current_prefix = ENVELOPE_PREFIX + self.keys[0].name.encode() + b":"

    @property
    def current_key(self) -> str:
        return self.keys[0].name

    def applies_to(self, key: str) -> bool:
        return key.startswith(self.prefixes)

    def to_storage(self, key: str, value: bytes) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return self._current_prefix + nonce + self._current.encrypt(nonce, value, key.encode())

    def from_storage(self, key: str, value: bytes) -> bytes:
        if not value.startswith(ENVELOPE_PREFIX):
            return value  # stored before encryption was on
        name, separator, sealed = value[len(ENVELOPE_PREFIX) :].partition(b":")
        key_name = name.decode("utf-8", errors="replace")
        cipher = self._ciphers.get(key_name) if separator else None
        if cipher is None:
            raise DecryptionError(
                f"{key} is encrypted with key {key_name!r}, which is not in {ENCRYPTION_KEYS_FILE}"
            )
        if len(sealed) < NONCE_BYTES + TAG_BYTES:
            raise DecryptionError(f"{key}: the stored value is too short to be encrypted data")
        try:
            return cipher.decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], key.encode())
        except InvalidTag as exc:
            raise DecryptionError(f"{key}: the stored value does not decrypt with key {key_name!r}") from exc

    def is_current(self, value: bytes) -> bool:
        """Whether a stored value is already encrypted with the first key."""
        return value.startswith(self._current_prefix)


# -- offline re-encryption ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReencryptResult:
    stored: dict[str, int]
    """Objects in the store, per encrypted prefix."""
    rewritten: dict[str, int]
    """Objects that were under another key (or in plaintext) and now are under the first key, per prefix."""
    key: str
    """The key everything is now encrypted with."""

    @property
    def secrets(self) -> int:
        return self.stored.get(SECRETS_PREFIX, 0)

    @property
    def works(self) -> int:
        return self.stored.get(WORKS_PREFIX, 0)


async def reencrypt_stored(backend: Backend, encryption: SecretEncryption) -> ReencryptResult:
    """Rewrite every stored object the encryption covers that is not under its first key, then drop
    all older history."""
    stored: dict[str, int] = {}
    rewritten: dict[str, int] = {}
    for prefix in encryption.prefixes:
        stored[prefix] = rewritten[prefix] = 0
        start_after = ""
        while True:
            page = await backend.range(prefix, start_after=start_after, limit=REENCRYPT_PAGE)
            for kv in page.kvs:
                stored[prefix] += 1
                if encryption.is_current(kv.value):
                    continue
                plaintext = encryption.from_storage(kv.key, kv.value)
                sealed = encryption.to_storage(kv.key, plaintext)
                await backend.update(kv.key, sealed, mod_revision=kv.mod_revision)
                rewritten[prefix] += 1
            if not page.more:
                break
            start_after = page.kvs[-1].key
    # Older versions of every object (under old keys, or in plaintext) live on in the history until
    # compacted; only once they are gone may an old key leave the key file.
    await backend.compact(backend.current_revision())
    return ReencryptResult(stored, rewritten, encryption.current_key)


def check_store_unused(path: Path) -> None:
    """Raise StoreInUseError when another process has the SQLite store open.

    A running API server keeps a connection open for its whole life; SQLite grants an exclusive
    lock in exclusive locking mode only to a connection that is alone on the file.
    """
    if not path.exists():
        return
    conn = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        raise StoreInUseError(
            f"{path} is in use (is the API server running?): stop it first ({exc})"
        ) from exc
    finally:
        conn.close()


def vacuum_store(path: Path) -> None:
    """Rebuild the SQLite file and empty its WAL, so deleted rows' bytes are gone from disk."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


async def reencrypt_offline(data_dir: Path, etcd: EtcdSettings | None = None) -> ReencryptResult:
    """Re-encrypt the Secrets and Works of the stopped API server whose data directory is `data_dir`.

    `etcd` names the server's store when it is not the SQLite file in `data_dir`; the SQLite
    file's in-use check and vacuum do not apply then (etcd's compaction removes the old versions).
    """
    encryption = SecretEncryption(read_keys(data_dir / ENCRYPTION_KEYS_FILE))
    if etcd is not None:
        on_etcd = EtcdBackend(etcd)
        await on_etcd.start()
        try:
            return await reencrypt_stored(on_etcd, encryption)
        finally:
            await on_etcd.close()
    store = data_dir / STORE_FILE
    if not store.exists():
        raise EncryptionConfigError(f"{store} does not exist: is {data_dir} an API server's data directory?")
    await asyncio.to_thread(check_store_unused, store)
    backend = SQLiteBackend(store)
    await backend.start()
    try:
        result = await reencrypt_stored(backend, encryption)
    finally:
        await backend.close()
    await asyncio.to_thread(vacuum_store, store)
    return result
