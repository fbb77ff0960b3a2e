from django.apps import AppConfig


class TracesConfig(AppConfig):
    """Stored SWF traces (docs/formats.md, "Stored traces").

    A separate app because a trace is its own resource: referenced by scenarios of three
    families and by presets, deduplicated by content across users, with its own endpoints,
    admin and import command. At start it makes the library resolve ``workload.trace``
    references from the ``Trace`` table (:class:`~cloudsched_web.traces.catalog.StoredTraces`).
    """

    name = "cloudsched_web.traces"

    def ready(self):
        from cloudsched_web.traces.catalog import StoredTraces
        from schedulers.core.traces import set_catalog

        set_catalog(StoredTraces())
