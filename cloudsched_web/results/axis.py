"""The resource axis of a result's Gantts: every resource of the data centre, grouped, in natural order.

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


def resource_axis(parsed, index=None):
    """The resource axis of the result's Gantts: every resource of the data centre, grouped (read once).

    One axis for every run of the result (``index`` is accepted for the callers that name a run): the
    union of the resources any run's segments name and those the family declares in a run's
    ``extra.resources`` (a list, or a dict resource → group; idle resources included), so the rows of
    every algorithm line up, on the run page and in the diff. Resources are grouped by the first of
    :data:`GROUP_KEYS` the segments carry (dvfs_bot's VMs by host, federated servers by cloud,
    vm_reservations' PMs by PM type); groups come in natural order and resources in natural order
    inside each. A resource's group is the value its earliest segment records in the first run that
    has it, else what the family declares. Without such a column there is one unnamed group.
    """

    def build():
        stored_rows = rows_file(parsed, 0)
        if stored_rows:  # built by the worker when it stored the result (results.indexes): the result's axis
            names, group_of, key, _, _ = stored_rows
            return {"names": names, "groups": _groups(names, group_of) if key else [], "group_by": key}
        group_of, key = {}, None
        for i in range(len(parsed.doc.get("runs", []))):
            found, run_key = _run_resources(parsed, i)
            key = key or run_key
            for name, group in found.items():
                if not group_of.get(name):
                    group_of[name] = group
        for run in parsed.doc.get("runs", []):
            declared = (run.get("extra") or {}).get("resources") or []
            pairs = declared.items() if isinstance(declared, dict) else ((n, "") for n in declared)
            for name, group in pairs:
                if not group_of.get(str(name)):
                    group_of[str(name)] = str(group or "")
        if not key:
            group_of = dict.fromkeys(group_of, "")
        order = sorted(group_of, key=lambda n: (natural_key(group_of[n]), natural_key(n)))
        return {"names": order, "groups": _groups(order, [group_of[n] for n in order]) if key else [], "group_by": key}

    return parsed.memo(("layout",), build)


def _run_resources(parsed, index):
    """``({resource: group}, group column or None)`` of run ``index``'s segments (a resource's group: the
    value its earliest segment records; "" without a group column)."""
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    if schema is None:
        return {}, None
    key = next((k for k in GROUP_KEYS if k in schema.names), None)
    labels = None if key else (pq.read_schema(stored.source("segments")).metadata or {}).get(stretches.STRETCH)
    if labels is not None:  # a file of stretches names every resource it holds, once (results.store)
        return dict.fromkeys(orjson.loads(labels), ""), None
    table = stored.table("segments", ["resource"] + ([key] if key else []))
    names = [v for v in pc.unique(pc.cast(table["resource"], pa.string())).to_pylist() if v is not None]
    group_of = dict.fromkeys(names, "")
    if key:
        pairs = table.group_by(["resource", key], use_threads=False).aggregate([])
        for r, g in zip(pc.cast(pairs["resource"], pa.string()).to_pylist(), pairs[key].to_pylist(), strict=True):
            if r is not None and g is not None and not group_of.get(r):
                group_of[r] = str(g)
    return group_of, key


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
