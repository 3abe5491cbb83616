"""Multi-cluster services: a Service exported from some members is found from all of them.

Placing a workload in three clusters is half the job; the other half is letting each cluster reach
it. This package does that twice, from the same pieces. `serviceexport` implements the Multi-Cluster
Services API (KEP-1645) to the specification — ServiceExports in members become a ServiceImport and
per-source-cluster EndpointSlices in every Ready member, with the conflict rules and conditions of
the spec — which the members' own DNS (a simulated member's, or any MCS DNS provider) resolves under
`clusterset.local`; `multiclusterservice` implements Karmada's MultiClusterService (CrossCluster),
which propagates the Service and copies providers' EndpointSlices into consumers under the Service's
own name. Both read members through per-controller watches (`memberwatch`) and keep their decisions
pure (`exports`, `conditions`, `slices`, `dispatch`); `docs/design/mcs.md` compares them.
"""

from flotilla.controllers.mcs.multiclusterservice import MultiClusterServiceController
from flotilla.controllers.mcs.serviceexport import ServiceExportController

__all__ = ["MultiClusterServiceController", "ServiceExportController"]
