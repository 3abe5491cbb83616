"""A small kopf operator with a finalizer, run against the hub by `test_kopf_operator.py`.

It is what kopf's users write: a create handler that sets the status, an update handler on one field,
and a delete handler — the reason kopf puts its finalizer on every object it serves (with a JSON patch
guarded by a test of metadata.resourceVersion). The delete handler writes one line to the file named by
`WIDGETS_RECORD`, so the test can see it ran before the object went.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import kopf

GROUP, VERSION, PLURAL = "compat.flotilla.io", "v1", "widgets"


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.watching.server_timeout = 30


@kopf.on.create(GROUP, VERSION, PLURAL)
def made(body: kopf.Body, spec: kopf.Spec, patch: kopf.Patch, **_: Any) -> None:
    kopf.info(body, reason="Made", message="The widget is made.")  # posted with a `+00:00` timestamp
    patch.status["phase"] = "Made"
    patch.status["size"] = spec.get("size", 0)


@kopf.on.update(GROUP, VERSION, PLURAL, field="spec.size")
def resized(new: Any, patch: kopf.Patch, **_: Any) -> None:
    patch.status["size"] = new


@kopf.on.delete(GROUP, VERSION, PLURAL)
def gone(name: str, **_: Any) -> None:
    with Path(os.environ["WIDGETS_RECORD"]).open("a") as record:
        record.write(f"deleted {name}\n")
