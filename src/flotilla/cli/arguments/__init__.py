"""What the user hands a verb, read as kubectl reads it.

`resources` parses kubectl's resource arguments (`TYPE[,TYPE…] [NAME…]`, `TYPE/NAME`) into requests
and the paths they read; `manifests` reads the manifests of `-f` from files, directories and
standard input; `etcd` reads the etcd client flags the API server and `store migrate` share.
"""
