"""Big objects within every bound still never hold the event loop: their costly checks run off it.

A ConfigMap of 60,000 keys (1.4 MB, far under the 3 MiB bound) is legitimate; decoding its fields
against the schema, recording their ownership and validating every key took the server about a
second, during which it answered nothing else.
"""

from __future__ import annotations

import json

from tests.integration.hostile.probe import Probe

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def test_a_configmap_of_sixty_thousand_keys_keeps_the_server_responsive(probe: Probe) -> None:
    """Create, read, merge-patch and server-side apply it while /readyz stays under 100 ms."""
    data = {f"k{i}": "v" * 10 for i in range(60_000)}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sixty-thousand"}, "data": data}
    with probe.responsiveness():
        assert probe.send("POST", CONFIGMAPS, body).status == 201
        read = probe.send("GET", f"{CONFIGMAPS}/sixty-thousand")
        assert read.status == 200
        assert len(read.body["data"]) == 60_000
        patch = {"metadata": {"labels": {"size": "big"}}, "data": {"k0": "changed"}}
        patched = probe.send(
            "PATCH", f"{CONFIGMAPS}/sixty-thousand", patch, content_type="application/merge-patch+json"
        )
        assert patched.status == 200
        assert patched.body["data"]["k0"] == "changed"
        applied = probe.send(
            "PATCH",
            f"{CONFIGMAPS}/sixty-thousand?fieldManager=bulk&force=true",
            json.dumps(body),
            content_type="application/apply-patch+yaml",
        )
        assert applied.status == 200, applied.body
        assert applied.body["data"]["k0"] == "v" * 10
