"""Objects in memory and on disk: the only part of the server that talks to a storage backend.

`objectstore.py` keys, encodes and writes objects with guarded revisions; `watchcache.py` holds every
object in memory, fed by one store watch, with the history of changes (`watchhistory.py`, replayed
from the store past its in-memory bound) and the per-client watch queues (`watchers.py`).
`encryption.py` seals Secrets and Works at rest, `compactor.py` forgets old revisions, and
`cachecontroller.py` lets in-process controllers follow the cache's changes.
"""
