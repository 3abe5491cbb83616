"""Running one controller against a test's API server, and the objects tests start from."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.spec import ClusterSpec, Timing

SPEC = ClusterSpec(name="test", nodes=3, timing=Timing(pod_start=0, pod_complete=0))

C = TypeVar("C", bound=SimController)


@contextlib.asynccontextmanager
async def running(api: EmbeddedAPI, controller_type: type[C], clock: Clock | None = None) -> AsyncIterator[C]:
    """The controller started on the API server for the duration of the block."""
    controller = controller_type(api.client("kube-controller-manager"), SPEC, clock or SystemClock())
    await controller.start()
    try:
        yield controller
    finally:
        await controller.stop()


def pod_template(labels: dict[str, str], image: str = "nginx:1.27", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": dict(labels)},
        "spec": {"containers": [{"name": "main", "image": image}], **spec},
    }
