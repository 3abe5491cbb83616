"""Autoscaling across clusters: Karmada's FederatedHPA and CronFederatedHPA controllers.

A workload spread over member clusters must still follow its load. A FederatedHPA runs
Kubernetes' HPA algorithm (`flotilla.autoscaling`, shared with the simulated members' HPA) over the
union of the workload's pods in its Ready target clusters (`observation`: read through each
member's own metrics.k8s.io) and writes the total to the hub template's `/scale`; the scheduler
then divides the new total over the clusters as the PropagationPolicy says, and the member copies
follow (`federatedhpa`). A CronFederatedHPA sets, on a cron schedule (`flotilla.api.cron`, in a
rule's time zone), a workload's replicas or a FederatedHPA's bounds, keeping per-rule execution
histories (`cronhistory`, `cronfederatedhpa`); tests may run its clock faster (`cronclock`).
Karmada's `federatedHorizontalPodAutoscaler` and `cronFederatedHorizontalPodAutoscaler`.
"""

from flotilla.controllers.autoscaling.cronfederatedhpa import CronFederatedHPAController
from flotilla.controllers.autoscaling.federatedhpa import FederatedHPAController

__all__ = ["CronFederatedHPAController", "FederatedHPAController"]
