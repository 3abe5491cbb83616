"""The Deployment controller: ReplicaSets per pod template, rolled out as the strategy says.

`deployment.py` is the controller (kube's `syncDeployment`); `rollout.py` the arithmetic of how big
each ReplicaSet should be next; `revisions.py` the revision and replicas annotations a Deployment
keeps on its ReplicaSets; `status.py` its status and the Available / Progressing conditions.
"""
