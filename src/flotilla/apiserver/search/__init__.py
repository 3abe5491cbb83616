"""Search: `search.karmada.io/v1alpha1` ResourceRegistries and the search API, served by the hub itself.

Karmada runs the search API in a separate server, karmada-search, whose cache keeps every selected
member object as a decoded Go object — its users report about 70 KB of memory per cached pod (140 GB
for two million). Flotilla's hub API server serves the same API itself from a compact cache: a
ResourceRegistry selects kinds of member clusters, reflectors list and watch them through the hub's
own cluster proxy (Push and Pull members alike), and each object is kept as compressed JSON beside
its labels and selectable fields (`compact.py`), indexed by label (`objects.py`), numbered by one
revision counter (`store.py`) so lists, `limit`/`continue` paging and watches behave as a Kubernetes
API server's do (`handlers.py`, `listing.py`, `streaming.py`). `docs/design/search.md` has the
figures and where the memory goes.
"""
