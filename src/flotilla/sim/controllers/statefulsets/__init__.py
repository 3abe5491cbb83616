"""The StatefulSet controller: pods with stable names and storage, created and replaced in order.

`statefulset.py` is the controller (kube's `updateStatefulSet`); `statefulpods.py` a pod's identity
(name, index, hostname, volume claims), its health and the status the pods add up to.
"""
