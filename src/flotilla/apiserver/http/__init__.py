"""The HTTP edge: from a request on the wire to a call into the writes or the caches, and back.

`app.py` is the aiohttp application and its filter chain (authenticate → limits and fairness →
authorize → handler, audit around everything); `requestinfo` parsing, content negotiation
(`content.py`), responses and views (objects, lists, Tables, metadata) are here, with discovery,
OpenAPI, metrics and the handlers, one module per verb family (`handlers/`).
"""
