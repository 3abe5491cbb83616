"""The DaemonSet controller: one pod on every node that should run it, rolled node by node.

`daemonset.py` is the controller; `nodeplacement.py` which nodes should run the pod (node selector,
required node affinity, taints); `daemonpods.py` the pods made for a node, found by node and
counted; `rollout.py` how a RollingUpdate replaces them, with or without surge.
"""
