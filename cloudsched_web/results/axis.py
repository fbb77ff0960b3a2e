"""The resource axis of a run's Gantt: every resource, grouped, in natural order.

Read from the rows file the worker wrote (``results.indexes``), else built from the segments file.
"""

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import indexfiles, stretches
from cloudsched_web.results.arrays import natural_key

__all__ = ["resource_axis", "rows_file"]

GROUP_KEYS = ("host", "cloud", "pm_type")  # a resource's group on the axis, first one the family records


def resource_axis(parsed, index):
    """The resource axis of run ``index``: every resource, grouped, and the groups (read once).

    Resources are grouped by the first of :data:`GROUP_KEYS` the segments carry (dvfs_bot's
    VMs by host, federated servers by cloud, vm_reservations' PMs by PM type); groups come in
    natural order and resources in natural order inside each. A resource's group is the
    value its earliest segment records. Without such a column there is one unnamed group.
    """

    def build():
        stored_rows = rows_file(parsed, index)
        if stored_rows:  # built by the worker when it stored the result (results.indexes)
            names, group_of, key, _, _ = stored_rows
            return {"names": names, "groups": _groups(names, group_of) if key else [], "group_by": key}
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        if schema is None:
            return {"names": [], "groups": [], "group_by": None}
        key = next((k for k in GROUP_KEYS if k in schema.names), None)
        labels = None if key else (pq.read_schema(stored.source("segments")).metadata or {}).get(stretches.STRETCH)
        if labels is not None:  # a file of stretches names every resource it holds, once (results.store)
            order = sorted(orjson.loads(labels), key=lambda n: (natural_key(""), natural_key(n)))
            return {"names": order, "groups": [], "group_by": None}
        table = stored.table("segments", ["resource"] + ([key] if key else []))
        names = [v for v in pc.unique(pc.cast(table["resource"], pa.string())).to_pylist() if v is not None]
        group_of = dict.fromkeys(names, "")
        if key:
            pairs = table.group_by(["resource", key], use_threads=False).aggregate([])
            for r, g in zip(pc.cast(pairs["resource"], pa.string()).to_pylist(), pairs[key].to_pylist(), strict=True):
                if r is not None and g is not None and not group_of.get(r):
                    group_of[r] = str(g)
        order = sorted(names, key=lambda n: (natural_key(group_of[n]), natural_key(n)))
        return {"names": order, "groups": _groups(order, [group_of[n] for n in order]) if key else [], "group_by": key}

    return parsed.memo(("layout", index), build)


def rows_file(parsed, index):
    """The worker's rows file of run ``index`` (``indexfiles.read_rows``), read once for the axis and the
    lanes; None for a result stored without indexes."""

    def build():
        name = indexfiles.files_of(parsed, index).get("rows")
        return indexfiles.read_rows(name) if name else None

    return parsed.memo(("stored_rows", index), build)


def _groups(names, group_of):
    """The runs of equal groups along the axis (``group_of``: each resource's group, in axis order)."""
    groups = []
    for i, g in enumerate(group_of):
        if not groups or groups[-1]["name"] != g:
            groups.append({"name": g, "row0": i, "rows": 0})
        groups[-1]["rows"] += 1
    return groups
