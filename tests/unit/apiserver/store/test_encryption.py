"""Secret encryption at rest (Secrets and the Works carrying them): key file, AES-GCM envelope,
storage hook and offline re-encryption."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds
from flotilla.apiserver.store import encryption as encryption_module
from flotilla.apiserver.store.encryption import (
    ENVELOPE_PREFIX,
    SECRETS_PREFIX,
    WORKS_PREFIX,
    DecryptionError,
    EncryptionConfigError,
    EncryptionKey,
    SecretEncryption,
    StoreInUseError,
    check_store_unused,
    load_or_create,
    new_key,
    next_key_name,
    parse_keys,
    read_keys,
    reencrypt_stored,
    render_keys,
    rotate_key,
)
from flotilla.storage import CompactedError
from flotilla.storage.memory import MemoryBackend
from tests.unit.api.karmada.manifests import WORK, fresh

SECRET = GroupVersionKind("", "v1", "Secret")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
NAMESPACE = GroupVersionKind("", "v1", "Namespace")
KEY = "/registry/core/secrets/default/db"
WORK_KEY = "/registry/work.karmada.io/works/karmada-es-sz/nginx-687f7fb96f"
PLAINTEXT = b'{"data":{"password":"aHVudGVyMg=="}}'
SECRET_MANIFEST = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "db", "namespace": "default"},
    "data": {"password": "aHVudGVyMg=="},
}


def encryption(*names: str) -> SecretEncryption:
    return SecretEncryption(
        [EncryptionKey(name, bytes([index + 1]) * 32) for index, name in enumerate(names)]
    )


# -- the key file -----------------------------------------------------------------------------------------


def test_a_rendered_key_file_parses_back_to_the_same_keys() -> None:
    """render_keys and parse_keys are inverses, order (first key first) included."""
    keys = (new_key("key-2"), new_key("key-1"))
    assert parse_keys(render_keys(keys)) == keys


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("keys: []", "non-empty list"),
        ("nothing: here", "non-empty list"),
        ("keys: [{name: 'a:b', secret: " + base64.b64encode(b"k" * 32).decode() + "}]", "no ':'"),
        ("keys: [{name: a, secret: 'not base64!'}]", "not valid base64"),
        ("keys: [{name: a, secret: " + base64.b64encode(b"short").decode() + "}]", "decodes to 5 bytes"),
        (
            "keys: [{name: a, secret: " + base64.b64encode(b"k" * 32).decode() + "}, "
            "{name: a, secret: " + base64.b64encode(b"j" * 32).decode() + "}]",
            "used twice",
        ),
        ("keys: [: bad", "not valid YAML"),
    ],
    ids=["empty", "no-keys", "colon-in-name", "bad-base64", "short-key", "duplicate-name", "bad-yaml"],
)
def test_a_malformed_key_file_is_refused_with_what_to_fix(text: str, complaint: str) -> None:
    """Each mistake in the key file gets an error naming it."""
    with pytest.raises(EncryptionConfigError, match=complaint):
        parse_keys(text)


def test_generated_key_names_count_up_past_the_highest_in_use() -> None:
    """Rotation names the new key key-<n+1>, whatever else the file holds."""
    assert next_key_name(()) == "key-1"
    assert next_key_name((new_key("key-3"), new_key("custom"), new_key("key-1"))) == "key-4"


def test_the_key_file_is_created_once_private_and_rotation_puts_a_new_key_first(tmp_path: Path) -> None:
    """First start creates a 0600 file with one key; later starts keep it; rotate-key prepends."""
    path = tmp_path / "encryption-keys.yaml"
    first = load_or_create(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_or_create(path).keys == first.keys
    added = rotate_key(path)
    assert [key.name for key in read_keys(path)] == [added.name, first.current_key]
    assert path.stat().st_mode & 0o777 == 0o600
    assert added.secret not in {key.secret for key in first.keys}


def test_keys_never_show_their_secret_in_repr() -> None:
    """Logging a key by accident does not leak it."""
    key = new_key("key-1")
    assert base64.b64encode(key.secret).decode() not in repr(key)
    assert str(key.secret) not in repr(key)


# -- the envelope ----------------------------------------------------------------------------------------


def test_values_are_sealed_under_the_first_key_and_open_again() -> None:
    """The stored value is kube's aesgcm envelope, without the plaintext, and decrypts to it."""
    sealed = encryption("key-1").to_storage(KEY, PLAINTEXT)
    assert sealed.startswith(ENVELOPE_PREFIX + b"key-1:")
    assert PLAINTEXT not in sealed and b"aHVudGVyMg" not in sealed
    assert encryption("key-1").from_storage(KEY, sealed) == PLAINTEXT


def test_each_write_uses_a_fresh_nonce() -> None:
    """Sealing the same value twice gives different bytes."""
    transformer = encryption("key-1")
    assert transformer.to_storage(KEY, PLAINTEXT) != transformer.to_storage(KEY, PLAINTEXT)


def test_old_keys_still_decrypt_after_a_new_key_is_put_first() -> None:
    """Rotation: values sealed under key-1 open with [key-2, key-1], new ones are sealed under key-2."""
    old = SecretEncryption([EncryptionKey("key-1", b"\x01" * 32)])
    rotated = SecretEncryption([EncryptionKey("key-2", b"\x02" * 32), EncryptionKey("key-1", b"\x01" * 32)])
    sealed = old.to_storage(KEY, PLAINTEXT)
    assert rotated.from_storage(KEY, sealed) == PLAINTEXT
    assert not rotated.is_current(sealed)
    assert rotated.is_current(rotated.to_storage(KEY, PLAINTEXT))


def test_a_value_under_a_removed_key_names_the_missing_key() -> None:
    """Dropping a key still in use is an error that says which key is missing."""
    sealed = encryption("key-1").to_storage(KEY, PLAINTEXT)
    with pytest.raises(DecryptionError, match=r"key 'key-1', which is not in encryption-keys\.yaml"):
        SecretEncryption([EncryptionKey("key-1b", b"\x09" * 32)]).from_storage(KEY, sealed)


def test_a_value_moved_to_another_key_or_altered_does_not_decrypt() -> None:
    """The storage key is authenticated data, and any changed byte fails the tag."""
    transformer = encryption("key-1")
    sealed = transformer.to_storage(KEY, PLAINTEXT)
    with pytest.raises(DecryptionError):
        transformer.from_storage("/registry/core/secrets/default/other", sealed)
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(DecryptionError):
        transformer.from_storage(KEY, tampered)
    with pytest.raises(DecryptionError, match="too short"):
        transformer.from_storage(KEY, ENVELOPE_PREFIX + b"key-1:abc")


@pytest.mark.parametrize(
    ("key", "covered"),
    [
        (KEY, True),
        (WORK_KEY, True),
        ("/registry/core/configmaps/default/db", False),
        ("/registry/work.karmada.io/worksets/x/y", False),
        ("/registry/core/secretsx/default/db", False),
        ("/registry/policy.karmada.io/propagationpolicies/default/p", False),
    ],
)
def test_secrets_and_works_are_covered_and_nothing_else(key: str, covered: bool) -> None:
    """Both kinds that hold a Secret's data are encrypted; a prefix match needs the whole resource."""
    assert encryption("key-1").applies_to(key) is covered
    assert {SECRETS_PREFIX, WORKS_PREFIX} == set(encryption("key-1").prefixes)


def test_values_stored_before_encryption_read_as_they_are() -> None:
    """A plaintext JSON value (no envelope prefix) is returned unchanged."""
    assert encryption("key-1").from_storage(KEY, PLAINTEXT) == PLAINTEXT


# -- the storage hook ------------------------------------------------------------------------------------


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    server = EmbeddedAPI(MemoryBackend())
    server.cache.transformer = encryption("key-1")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def test_secrets_are_encrypted_in_the_store_and_plain_in_the_cache(api: EmbeddedAPI) -> None:
    """Only Secrets pass through the transformer; reads from the cache and from the store are decrypted."""
    client = api.client("test")
    await client.create(
        SECRET, {"metadata": {"name": "db", "namespace": "default"}, "stringData": {"password": "hunter2"}}
    )
    await client.create(
        CONFIG_MAP, {"metadata": {"name": "cm", "namespace": "default"}, "data": {"a": "visible"}}
    )
    stored = await api.backend.get(KEY)
    assert stored is not None and stored.value.startswith(ENVELOPE_PREFIX + b"key-1:")
    assert b"hunter2" not in stored.value and b"aHVudGVyMg==" not in stored.value
    config_map = await api.backend.get("/registry/core/configmaps/default/cm")
    assert config_map is not None and b"visible" in config_map.value
    secret = client.get(SECRET, "db", namespace="default")
    assert secret is not None and secret["data"] == {"password": "aHVudGVyMg=="}

    served = api.registry.by_kind(SECRET)
    assert served is not None
    page, _ = await api.context.store.list_at(served, "default", api.backend.current_revision(), "", 10)
    assert [item.obj["data"] for item in page] == [{"password": "aHVudGVyMg=="}]


async def test_works_are_encrypted_in_the_store_and_read_back_whole(api: EmbeddedAPI) -> None:
    """A Work whose manifests hold a Secret is sealed in the store; the API serves its manifests."""
    await install_karmada_crds(api.context)
    client = api.client("test")
    await client.create(NAMESPACE, {"metadata": {"name": "karmada-es-sz"}})
    work = fresh(WORK)
    work["spec"]["workload"]["manifests"].append(SECRET_MANIFEST)
    await client.create(constants.WORK, work)
    stored = await api.backend.get(WORK_KEY)
    assert stored is not None and stored.value.startswith(ENVELOPE_PREFIX + b"key-1:")
    assert b"aHVudGVyMg==" not in stored.value and b"nginx" not in stored.value
    served = client.get(constants.WORK, "nginx-687f7fb96f", namespace="karmada-es-sz")
    assert served is not None
    assert served["spec"]["workload"]["manifests"][-1]["data"] == {"password": "aHVudGVyMg=="}


async def test_a_work_stored_in_plaintext_reads_and_its_next_write_encrypts_it(api: EmbeddedAPI) -> None:
    """Migration: Works written before they were covered stay readable; an update seals them."""
    await install_karmada_crds(api.context)
    client = api.client("test")
    await client.create(NAMESPACE, {"metadata": {"name": "karmada-es-sz"}})
    work = fresh(WORK)
    work["spec"]["workload"]["manifests"] = [SECRET_MANIFEST]
    api.cache.transformer = None  # as a server before this version wrote it
    await client.create(constants.WORK, work)
    plain = await api.backend.get(WORK_KEY)
    assert plain is not None and b"aHVudGVyMg==" in plain.value
    restarted = EmbeddedAPI(api.backend)
    restarted.cache.transformer = encryption("key-1")
    await restarted.cache.start()
    try:
        cached = restarted.cache.get(WORK_KEY)
        assert cached is not None
        assert cached.obj["spec"]["workload"]["manifests"][0]["data"] == {"password": "aHVudGVyMg=="}
    finally:
        await restarted.cache.stop()
    api.cache.transformer = encryption("key-1")
    await client.patch(
        constants.WORK,
        "nginx-687f7fb96f",
        {"metadata": {"labels": {"touched": "yes"}}},
        namespace="karmada-es-sz",
    )
    sealed = await api.backend.get(WORK_KEY)
    assert sealed is not None and sealed.value.startswith(ENVELOPE_PREFIX + b"key-1:")
    assert b"aHVudGVyMg==" not in sealed.value


async def test_a_restarted_cache_decrypts_what_it_loads(api: EmbeddedAPI) -> None:
    """A new watch cache over the same store (a server restart) reads encrypted Secrets back."""
    client = api.client("test")
    await client.create(SECRET, {"metadata": {"name": "db", "namespace": "default"}, "data": {"k": "dg=="}})
    restarted = EmbeddedAPI(api.backend)
    restarted.cache.transformer = encryption("key-1")
    await restarted.cache.start()
    try:
        cached = restarted.cache.get(KEY)
        assert cached is not None and cached.obj["data"] == {"k": "dg=="}
    finally:
        await restarted.cache.stop()


# -- offline re-encryption -------------------------------------------------------------------------------


async def test_reencryption_moves_every_secret_to_the_first_key_and_drops_older_versions() -> None:
    """Plaintext and old-key Secrets are rewritten, other kinds untouched, history compacted away."""
    backend = MemoryBackend()
    await backend.start()
    old, rotated = (
        encryption("key-1"),
        SecretEncryption([*encryption("key-2").keys, *encryption("key-1").keys]),
    )
    plain_key, old_key = "/registry/core/secrets/a/plain", "/registry/core/secrets/a/old"
    config_key = "/registry/core/configmaps/a/cm"
    first = await backend.create(plain_key, PLAINTEXT)
    await backend.create(old_key, old.to_storage(old_key, PLAINTEXT))
    await backend.create(config_key, b'{"data":{}}')
    current = await backend.create(
        "/registry/core/secrets/a/current", rotated.to_storage("/registry/core/secrets/a/current", PLAINTEXT)
    )
    work_keys = [f"{WORKS_PREFIX}karmada-es-m/w{i}" for i in range(5)]
    for index, work_key in enumerate(work_keys):  # plaintext, old key, current key
        value = (PLAINTEXT, old.to_storage(work_key, PLAINTEXT), rotated.to_storage(work_key, PLAINTEXT))
        await backend.create(work_key, value[index % 3])

    result = await reencrypt_stored(backend, rotated)

    assert (result.secrets, result.works, result.key) == (3, 5, "key-2")
    assert result.rewritten == {SECRETS_PREFIX: 2, WORKS_PREFIX: 4}
    only_new = SecretEncryption(encryption("key-2").keys)
    for key in (plain_key, old_key, "/registry/core/secrets/a/current", *work_keys):
        found = await backend.get(key)
        assert found is not None and only_new.from_storage(key, found.value) == PLAINTEXT
    unchanged = await backend.get(config_key)
    assert unchanged is not None and unchanged.value == b'{"data":{}}'
    current_secret = await backend.get("/registry/core/secrets/a/current")
    assert current_secret is not None and current_secret.mod_revision == current
    with pytest.raises(CompactedError):
        await backend.get(plain_key, revision=first)
    await backend.close()


async def test_reencryption_pages_through_many_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects are read a page at a time; every page is rewritten, none skipped or repeated."""
    monkeypatch.setattr(encryption_module, "REENCRYPT_PAGE", 3)
    backend = MemoryBackend()
    await backend.start()
    for index in range(10):
        await backend.create(f"{WORKS_PREFIX}karmada-es-m/w{index:02d}", PLAINTEXT)
    result = await reencrypt_stored(backend, encryption("key-1"))
    assert (result.works, result.rewritten[WORKS_PREFIX]) == (10, 10)
    found = await backend.range(WORKS_PREFIX)
    assert all(kv.value.startswith(ENVELOPE_PREFIX + b"key-1:") for kv in found.kvs)
    await backend.close()


def test_the_store_counts_as_in_use_while_another_connection_is_open(tmp_path: Path) -> None:
    """Re-encryption refuses a store a running server holds open, and accepts it once closed."""
    path = tmp_path / "store.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE t (v)")
    with pytest.raises(StoreInUseError, match="is the API server running"):
        check_store_unused(path)
    holder.close()
    check_store_unused(path)


def test_envelope_bytes_are_not_json() -> None:
    """A sealed value can never be mistaken for a plaintext object (which always starts with '{')."""
    sealed = encryption("key-1").to_storage(KEY, PLAINTEXT)
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(sealed)
