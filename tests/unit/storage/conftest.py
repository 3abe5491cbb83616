"""Fixtures shared by the storage tests: a started backend of each kind, closed afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from flotilla.storage.backend import Backend
from tests.unit.storage.backends import BACKEND_KINDS, BackendKind, opened_backend


@pytest.fixture(params=BACKEND_KINDS)
def backend_kind(request: pytest.FixtureRequest) -> BackendKind:
    kind: BackendKind = request.param
    return kind


@pytest.fixture
async def backend(backend_kind: BackendKind, tmp_path: Path) -> AsyncIterator[Backend]:
    async with opened_backend(backend_kind, tmp_path / "store.db") as started:
        yield started
