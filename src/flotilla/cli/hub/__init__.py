"""How the verbs reach a running hub and its member clusters.

`connection` is kubectl's `--kubeconfig` / `--context`, one coroutine per verb with client failures
turned into one-line errors, and clients of members built from their Cluster and credentials Secret;
`operationscope` is karmadactl's `--operation-scope` and `--clusters`: which clusters a read verb
asks.
"""
