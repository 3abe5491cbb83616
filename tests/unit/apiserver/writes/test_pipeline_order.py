"""The write pipeline's order: defaults → mutating admission → validation → validating admission → store.

An in-memory API server whose admission and store write into one journal shows the order of the
steps a create or an update passes; what each step saw shows the steps between them (defaults
before mutating admission, validation after it); and a write that fails a step leaves no trace in
the steps after it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson
import pytest

from flotilla.api.objects import copy_object
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.pipeline import WriteOptions, create_object, update_flow
from flotilla.storage.memory import MemoryBackend

POD = GroupVersionKind("", "v1", "Pod")
PODS = "/registry/core/pods/"
Change = Callable[[dict[str, Any]], None]


class JournalingBackend(MemoryBackend):
    """The in-memory store, noting each pod it writes in the journal."""

    def __init__(self, journal: list[str]) -> None:
        super().__init__()
        self.journal = journal

    async def create(self, key: str, value: bytes) -> int:
        if key.startswith(PODS):
            self.journal.append("store")
        return await super().create(key, value)

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        if key.startswith(PODS):
            self.journal.append("store")
        return await super().update(key, value, mod_revision=mod_revision)


class RecordingAdmission:
    """Admission that notes each call and a copy of what it was shown, then asks the server's own."""

    def __init__(self, journal: list[str], inner: Admission) -> None:
        self.journal = journal
        self.inner = inner
        self.seen: dict[str, dict[str, Any]] = {}
        self.mutation: Change | None = None
        self.refusal: errors.APIError | None = None

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        if attributes.resource.type.plural == "pods":
            self.journal.append("mutating admission")
            self.seen["mutating admission"] = copy_object(obj)
            if self.mutation is not None:
                self.mutation(obj)
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        if attributes.resource.type.plural == "pods" and obj is not None:
            self.journal.append("validating admission")
            self.seen["validating admission"] = copy_object(obj)
            if self.refusal is not None:
                raise self.refusal
        return await self.inner.validate(attributes, obj, old)


class Server:
    def __init__(self, api: EmbeddedAPI, journal: list[str], admission: RecordingAdmission) -> None:
        self.api = api
        self.journal = journal
        self.admission = admission

    @property
    def pods(self) -> ServedResource:
        found = self.api.registry.by_kind(POD)
        assert found is not None
        return found

    async def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> CachedObject:
        body = normalize.check_kind(self.pods, copy_object(obj))
        options = WriteOptions(dry_run, FieldValidation.IGNORE, "test")
        return await create_object(self.api.context, self.pods, body, options)

    async def update(self, name: str, change: Change) -> CachedObject:
        def compute(current: CachedObject) -> dict[str, Any]:
            new = current.copy()
            change(new)
            return new

        info = RequestInfo("", "v1", "default", "pods", name, "", "update")
        options = WriteOptions(False, FieldValidation.IGNORE, "test")
        return await update_flow(self.api.context, self.pods, info, options, compute)

    def stored(self, name: str) -> dict[str, Any] | None:
        found = self.api.cache.get(f"{PODS}default/{name}")
        return found.obj if found is not None else None


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    journal: list[str] = []
    api = EmbeddedAPI(JournalingBackend(journal))
    await api.start()
    admission = RecordingAdmission(journal, api.context.admission)
    api.context.admission = admission
    try:
        yield Server(api, journal, admission)
    finally:
        await api.stop()


def pod(name: str = "web", container: str = "app") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": container, "image": "nginx:1.27"}]},
    }


def rename_container(name: str) -> Change:
    def change(obj: dict[str, Any]) -> None:
        obj["spec"]["containers"][0]["name"] = name

    return change


def add_sidecar(obj: dict[str, Any]) -> None:
    obj["spec"]["containers"].append({"name": "sidecar", "image": "busybox:1.36"})


async def test_a_create_is_defaulted_mutated_validated_admitted_and_stored_in_that_order(
    server: Server,
) -> None:
    """Mutating admission sees the defaulted object; validating admission and the store see its changes."""
    server.admission.mutation = lambda obj: obj["metadata"].setdefault("labels", {}).update(mutated="yes")
    await server.create(pod())

    assert server.journal == ["mutating admission", "validating admission", "store"]
    mutating = server.admission.seen["mutating admission"]
    assert mutating["spec"]["restartPolicy"] == "Always", "defaults come before mutating admission"
    assert mutating["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert "labels" not in mutating["metadata"]
    assert server.admission.seen["validating admission"]["metadata"]["labels"] == {"mutated": "yes"}
    stored = server.stored("web")
    assert stored is not None and stored["metadata"]["labels"] == {"mutated": "yes"}


async def test_what_mutating_admission_adds_is_defaulted_again(server: Server) -> None:
    """A container a webhook adds gets its defaults too, as kube decodes the patched object again."""
    server.admission.mutation = add_sidecar
    await server.create(pod())
    stored = server.stored("web")
    assert stored is not None
    sidecar = stored["spec"]["containers"][1]
    assert (sidecar["name"], sidecar["imagePullPolicy"]) == ("sidecar", "IfNotPresent")
    assert server.admission.seen["validating admission"]["spec"]["containers"][1] == sidecar


async def test_validation_judges_the_object_after_mutating_admission(server: Server) -> None:
    """A mutation that breaks a valid pod is refused as Invalid; one that mends an invalid pod is stored."""
    server.admission.mutation = rename_container("Not_A_DNS_Label")
    with pytest.raises(errors.Invalid, match="Not_A_DNS_Label"):
        await server.create(pod("broken"))
    assert server.stored("broken") is None

    server.admission.mutation = rename_container("app")
    await server.create(pod("mended", container="Not_A_DNS_Label"))
    mended = server.stored("mended")
    assert mended is not None and mended["spec"]["containers"][0]["name"] == "app"


async def test_a_validation_failure_never_reaches_validating_admission_or_the_store(server: Server) -> None:
    """An invalid pod stops after mutating admission: 422, nothing written, no revision spent."""
    revision = server.api.backend.current_revision()
    with pytest.raises(errors.Invalid) as refused:
        await server.create(pod(container="Not_A_DNS_Label"))
    assert refused.value.code == 422
    assert server.journal == ["mutating admission"]
    assert server.api.backend.current_revision() == revision
    assert server.stored("web") is None


async def test_a_refusal_by_validating_admission_never_reaches_the_store(server: Server) -> None:
    """Validating admission is the last step before the store: its refusal writes nothing."""
    server.admission.refusal = errors.Forbidden("denied by policy")
    with pytest.raises(errors.Forbidden, match="denied by policy"):
        await server.create(pod())
    assert server.journal == ["mutating admission", "validating admission"]
    assert server.stored("web") is None


async def test_a_dry_run_passes_every_step_but_the_store(server: Server) -> None:
    """dryRun=All runs defaults, admission and validation, and answers the object unstored."""
    answered = await server.create(pod(), dry_run=True)
    assert server.journal == ["mutating admission", "validating admission"]
    assert answered.revision == 0 and answered.obj["spec"]["restartPolicy"] == "Always"
    assert server.stored("web") is None


async def test_an_update_passes_the_same_steps_in_the_same_order(server: Server) -> None:
    """An update is defaulted, mutated, validated and admitted before it is stored, like a create."""
    await server.create(pod())
    server.journal.clear()
    server.admission.mutation = lambda obj: obj["metadata"].setdefault("labels", {}).update(mutated="yes")

    with pytest.raises(errors.Invalid, match="pod updates may not add or remove containers"):
        await server.update("web", add_sidecar)
    assert server.journal == ["mutating admission"], "validation stops it before validating admission"

    server.journal.clear()
    await server.update("web", lambda obj: obj["metadata"].update(annotations={"note": "updated"}))
    assert server.journal == ["mutating admission", "validating admission", "store"]
    stored = server.stored("web")
    assert stored is not None
    assert stored["metadata"]["annotations"] == {"note": "updated"}
    assert stored["metadata"]["labels"] == {"mutated": "yes"}


async def test_an_update_that_changes_nothing_stops_before_validating_admission(server: Server) -> None:
    """An update equal to the stored object is answered with it: no validating admission, no write."""
    created = await server.create(pod())
    server.journal.clear()
    unchanged = await server.update("web", lambda _: None)
    assert server.journal == ["mutating admission"]
    assert unchanged.revision == created.revision
    assert orjson.dumps(server.stored("web")) == orjson.dumps(created.obj)
