"""How a simulated controller runs: its work queue and watches, its events, slow-start creation, its kinds.

`controller.py` is `SimController`, the base every controller of the simulated
kube-controller-manager extends (level-based reconciles by `ObjectKey`, cache handlers that
only enqueue); `events.py` the best-effort event recorder; `slowstart.py` kube's `slowStartBatch`;
`kinds.py` the kinds they read and write, named once. Nothing here knows a workload's rules.
"""
