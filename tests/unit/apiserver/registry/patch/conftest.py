"""Fixtures for the strategic merge patch tests: the Deployment schema and a stored Deployment."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.schema.model import Schema
from tests.unit.apiserver.registry.patch.workloads import kind_schema, stored_deployment


@pytest.fixture
def deployment_schema() -> Schema:
    return kind_schema("apps", "v1", "Deployment")


@pytest.fixture
def deployment() -> dict[str, Any]:
    return stored_deployment()
