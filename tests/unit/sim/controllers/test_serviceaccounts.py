"""Every namespace gets the `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap."""

from __future__ import annotations

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import SystemClock
from flotilla.sim.controllers.framework.kinds import CONFIG_MAP, NAMESPACE, SERVICE_ACCOUNT
from flotilla.sim.controllers.serviceaccounts import ROOT_CA_DESCRIPTION, ServiceAccountsController
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.harness import SPEC

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


async def start(api: EmbeddedAPI) -> ServiceAccountsController:
    controller = ServiceAccountsController(
        api.client("kube-controller-manager"), SPEC, SystemClock(), root_ca_pem=PEM
    )
    await controller.start()
    return controller


async def test_existing_namespaces_get_a_default_service_account_at_start(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """The namespaces the server starts with are served as soon as the controller runs."""
    controller = await start(api)
    try:
        namespaces = ("default", "kube-system", "kube-public", "kube-node-lease")
        await eventually_async(
            lambda: all(client.get(SERVICE_ACCOUNT, "default", namespace=ns) is not None for ns in namespaces)
        )
    finally:
        await controller.stop()


async def test_a_new_namespace_gets_its_service_account_and_root_ca(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """`default` and `kube-root-ca.crt` (the CA under `ca.crt`) appear in a new namespace."""
    controller = await start(api)
    try:
        await client.create(
            NAMESPACE, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
        )
        await eventually_async(lambda: client.get(SERVICE_ACCOUNT, "default", namespace="team-a") is not None)
        await eventually_async(
            lambda: client.get(CONFIG_MAP, "kube-root-ca.crt", namespace="team-a") is not None
        )
        config_map = client.get(CONFIG_MAP, "kube-root-ca.crt", namespace="team-a")
        assert config_map is not None and config_map["data"] == {"ca.crt": PEM}
        assert config_map["metadata"]["annotations"]["kubernetes.io/description"] == ROOT_CA_DESCRIPTION
    finally:
        await controller.stop()


async def test_a_deleted_default_service_account_comes_back(api: EmbeddedAPI, client: LocalClient) -> None:
    """Deleting `default` or editing the root CA ConfigMap is undone."""
    controller = await start(api)
    try:
        await eventually_async(
            lambda: client.get(SERVICE_ACCOUNT, "default", namespace="default") is not None
        )
        first = client.get(SERVICE_ACCOUNT, "default", namespace="default")
        assert first is not None
        await client.delete(SERVICE_ACCOUNT, "default", namespace="default")
        await eventually_async(
            lambda: (
                (client.get(SERVICE_ACCOUNT, "default", namespace="default") or {})
                .get("metadata", {})
                .get("uid")
                not in (None, first["metadata"]["uid"])
            )
        )
        await eventually_async(
            lambda: client.get(CONFIG_MAP, "kube-root-ca.crt", namespace="default") is not None
        )
        await client.patch(
            CONFIG_MAP, "kube-root-ca.crt", {"data": {"ca.crt": "tampered"}}, namespace="default"
        )
        await eventually_async(
            lambda: (
                (client.get(CONFIG_MAP, "kube-root-ca.crt", namespace="default") or {}).get("data")
                == {"ca.crt": PEM}
            )
        )
    finally:
        await controller.stop()
