"""Fixtures of the hostile-input suite: a `probe` of the module's API server (admin by default)."""

from __future__ import annotations

import pytest

from tests.integration.hostile.probe import Probe
from tests.support.processes import ServerProcess


@pytest.fixture
def probe(server: ServerProcess) -> Probe:
    return Probe(server)
