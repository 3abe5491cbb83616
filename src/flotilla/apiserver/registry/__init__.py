"""What the server serves and the rules of each kind, as data and pure functions.

`resources.py` is the registry of served resources (built-in kinds, CRDs' versions in
`customresources.py`); `strategy.py` the kind-specific steps of a write (defaults, preparation,
validation); `objectmeta.py` the system-owned metadata. The rules themselves live in sub-packages:
`schema/` (structural schemas and their walk), `validation/`, `defaults/`, `cel/` (CRD validation
rules), `tables/` (what `kubectl get` prints), `apply/` (server-side apply and managedFields),
`patch/` (merge, strategic merge and JSON patches) and `karmada/` (Karmada's kinds as CRDs). Nothing
here reads the store or a request: the writes above use it.
"""
