"""What the controllers of pod-owning workloads share: kube's rules for owners, pods and templates.

Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs all own pods made from a template, so
they apply the same rules, kept here once as pure functions (and one store of revisions):
controller references and claims (`ownership.py`), what a pod's state is and which pods go first
(`pods.py`), template hashes and the pods made from a template (`podtemplates.py`), template history
as ControllerRevisions (`history.py`), status conditions (`conditions.py`) and int-or-percent
values such as `maxSurge` (`intorpercent.py`).
"""
