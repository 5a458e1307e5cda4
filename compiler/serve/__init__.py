"""``hotplex serve``: the library's compiles over HTTP, for gateways written in any language.

The one edge of the project that speaks HTTP and JSON: ``service.py`` holds the ``Project`` and
knows nothing of HTTP; ``routes.py`` turns requests (their bodies read and checked by
``body.py``) into its calls and its answers (or ``problems.py``'s RFC 9457 documents) into
responses; ``app.py`` assembles the ASGI application
(token, metrics, the watcher's life); ``run.py`` binds the socket and starts uvicorn.
"""
