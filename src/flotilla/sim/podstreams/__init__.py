"""What a kubelet streams for a pod: `pods/<name>/exec` over WebSocket and `pods/<name>/log`, as kwok does
them — an exec runs a configured local command, a log is a configured local file (`spec.PodStreams`).

`channels.py` is the remote command protocol (pure), `pods.py` finds the pod and container with kube's
errors, `execs.py` and `logs.py` are the handlers the cluster registers on its API server.
"""
