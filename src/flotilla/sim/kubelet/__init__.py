"""The simulated kubelet: moves the pods bound to simulated nodes through their lifecycle.

Its behaviour is data (`stages`, kwok's model): each stage selects pods by conditions on their
fields, waits a delay from the cluster's `Timing`, and then writes the next status or deletes the
pod. `Kubelet` is the component that watches pods and applies the stages.
"""

from flotilla.sim.kubelet.kubelet import Kubelet

__all__ = ["Kubelet"]
