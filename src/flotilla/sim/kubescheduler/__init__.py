"""The simulated kube-scheduler inside each member cluster; Karmada's scheduler is `flotilla.scheduler`.

It places a member's pods on its simulated nodes as kube-scheduler's default profile would. The
choice is pure and split by concern — `resources.py` (what a pod asks, what a node has left),
`filters.py` (the default filter plugins and kube's reasons), `scores.py` (least allocated),
`decision.py` (filter → score → select, kube's FitError) and `queueing.py` (which pods it takes,
which node changes retry the waiting ones); `scheduler.py` is the shell that watches, binds through
`pods/binding` and records conditions and events.
"""

from flotilla.sim.kubescheduler.scheduler import KubeScheduler

__all__ = ["KubeScheduler"]
