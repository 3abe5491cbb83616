"""The simulated cluster's HorizontalPodAutoscaler controller: kube's HPA, scaling on the sim's own load.

An autoscaling/v2 HPA in a simulated cluster scales its target as kube-controller-manager's
would: every sync period it reads the target's Scale, the pods its selector picks and their usage
(the loads `flotilla sim load` sets, computed as the cluster's metrics.k8s.io serves them, in
process), runs kube's algorithm (`flotilla.autoscaling`, the one the hub's FederatedHPA runs;
`flotilla.autoscaling.decision` is the pure look at one autoscaler) and writes the target's `scale`
and the HPA's status (`horizontalpodautoscaler.py`, the shell). Only Resource and ContainerResource
metrics can be computed; the others need a custom or external metrics API the sims do not serve.
"""

from flotilla.sim.controllers.horizontalpodautoscaler.horizontalpodautoscaler import (
    HorizontalPodAutoscalerController,
    PodMetricsSource,
)

__all__ = ["HorizontalPodAutoscalerController", "PodMetricsSource"]
