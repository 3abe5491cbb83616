"""Controllers that run inside the API server, because the API itself depends on them.

kube-apiserver establishes CRDs itself, and every cluster runs a namespace controller and a
garbage collector; a Flotilla API server — hub or simulated member — works alone, so it runs all
three, plus the bootstrap of the default namespaces and the Certificates API's signer, agent approver
and request cleaner (see `certificates/`). They use the same write pipeline as HTTP
requests and are level-based: each reconcile re-reads the current object from the cache.
"""

from __future__ import annotations

from datetime import timedelta

from flotilla.apiserver.certificates import install as certificates  # a module: it imports us back
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.housekeeping.base import InProcessController
from flotilla.apiserver.housekeeping.bootstrap import ensure_default_namespaces
from flotilla.apiserver.housekeeping.crds import CRDController
from flotilla.apiserver.housekeeping.eventttl import EventExpiry
from flotilla.apiserver.housekeeping.garbagecollector import GarbageCollector
from flotilla.apiserver.housekeeping.namespaces import NamespaceController
from flotilla.apiserver.housekeeping.rbacaggregation import ClusterRoleAggregation
from flotilla.apiserver.housekeeping.rbacbootstrap import ensure_bootstrap_policy


class InProcessControllers:
    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.crds = CRDController(ctx)
        self.namespaces = NamespaceController(ctx)
        self.garbage_collector = GarbageCollector(ctx)
        self.role_aggregation = ClusterRoleAggregation(ctx)
        self._all: list[InProcessController] = [
            self.crds,
            self.namespaces,
            self.garbage_collector,
            self.role_aggregation,
        ]
        self.event_expiry = EventExpiry(ctx, timedelta(seconds=ctx.settings.event_ttl_seconds))
        self.certificates = certificates.CertificateControllers(ctx)

    async def start(self) -> None:
        # Custom resources already defined are served before the first request arrives.
        await self.crds.serve_existing()
        await ensure_default_namespaces(self.ctx)
        await ensure_bootstrap_policy(self.ctx)
        for controller in self._all:
            controller.start()
        self.event_expiry.start()
        self.certificates.start()

    async def stop(self) -> None:
        await self.certificates.stop()
        await self.event_expiry.stop()
        for controller in self._all:
            await controller.stop()


__all__ = ["InProcessControllers"]
