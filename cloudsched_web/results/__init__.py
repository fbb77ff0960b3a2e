"""The result engine: the read side of a stored result (docs/architecture.md, "The result engine").

A plain package, not a Django app (no models, no migrations, no templates): ``runs`` stores results
through it and its views serve the payloads it builds; nothing here imports ``runs`` but
``runs.models`` (read only) and ``results.formatting`` (the metric number rules).
"""
