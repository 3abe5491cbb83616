"""The simulated kube-scheduler inside each member cluster; Karmada's scheduler is `flotilla.scheduler`.

It places a member's pods on its simulated nodes as kube-scheduler's default profile would
(`scheduler.py`: a pure choice of node and the shell that binds through `pods/binding`).
"""
