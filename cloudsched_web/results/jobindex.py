"""Per-job index of a stored run for the schedule diff: first start, last end, resource set fingerprint.

The diff (``results.jobdiff.diff``) compares two runs job by job: a job *moved* when the set of
resources it ran on differs, it started *later* or *earlier* by its first start, and its last end
says how much it was delayed. Those are properties of each stored run, so the worker writes them
once (``results.indexes.build`` calls :func:`files`), per run *i*, as ``r{i}-jobindex.parquet``, one
line per job sorted by the job's id (Python's ``str`` order, i.e. UTF-8 byte order):

- ``job`` (string), ``first`` (float64: the earliest ``start`` of its segments), ``last``
  (float64: the latest ``end``);
- ``nres`` (int32): how many distinct resources the job's segments name;
- ``fp`` (uint64): a fingerprint of that *set* of resource names — the wrapping sum (mod 2⁶⁴) of
  a stable 64-bit hash of each distinct name (the first 8 bytes of BLAKE2b, little-endian), so
  it depends neither on the order of the segments nor on how often a resource repeats.

Two equal sets always give equal ``(nres, fp)``. Two different sets of the same size give the
same pair only when the sum over their symmetric difference (with signs) vanishes mod 2⁶⁴: for
hash values that behave as independent uniform 64-bit numbers that happens with probability
2⁻⁶⁴ per compared job, so a diff of 200,000 jobs misreports "moved" for one of them with
probability ≤ 200,000 · 2⁻⁶⁴ ≈ 1.1 · 10⁻¹⁴. (Storing each job's resource list instead would be
exact but is as large as the schedule itself: 16.5 M names for 200,000 KEASY jobs.)

Segments without a resource count for ``first``/``last`` but not in the set (as the pyarrow
``distinct`` aggregation the diff used did). A missing job id is the job ``"None"``.

:func:`table_of` builds the table from a run's segments file without expanding stretches (a
stretch is one job at one start and end on several resources: its codes are the list itself);
the web process calls it for results stored without this file, so both paths are the same code.
"""

from __future__ import annotations

import hashlib

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import store, stretches

__all__ = ["BITMAP_MAX", "files", "name_hash", "positions", "read", "table_of"]

SCHEMA = pa.schema([("job", pa.string()), ("first", pa.float64()), ("last", pa.float64()),
                    ("nres", pa.int32()), ("fp", pa.uint64())])  # fmt: skip
COLUMNS = ["job", "start", "end", "resource"]
BITMAP_MAX = 1 << 26  # bytes of the (job, resource) bitmap; past it, a hash group-by


def name_hash(name: str) -> int:
    """A resource name's stable 64-bit hash (BLAKE2b, 8 bytes, little-endian; the same in every process)."""
    return int.from_bytes(hashlib.blake2b(str(name).encode(), digest_size=8).digest(), "little")


def _hashes(labels) -> np.ndarray:
    return np.fromiter((name_hash(n) for n in labels), dtype=np.uint64, count=len(labels))


def _one(column) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _job_names(column) -> pa.DictionaryArray:
    """A segments ``job`` column as the job index names its jobs (a missing id is ``"None"``), dictionary-encoded."""
    return pc.dictionary_encode(pc.fill_null(pc.cast(_one(column), pa.string()), "None"))


def positions(column) -> np.ndarray:
    """Each row's job (a segments file's ``job`` column) as its line in the job index :func:`table_of` writes
    (int32): the rank of its id among the column's distinct ids in the index's order (``pc.sort_indices``).
    The by-row index stores it (``results.indexes``), so a diff colours occupancy by each job's status."""
    job = _job_names(column)
    order = np.asarray(pc.sort_indices(job.dictionary))
    rank = np.empty(order.size, np.int32)
    rank[order] = np.arange(order.size, dtype=np.int32)
    return rank[np.asarray(job.indices)]


def table_of(stored) -> pa.Table:
    """The job index of a run (``stored``: its ``store.StoredRun``), sorted by job; empty without segments.

    Reads the segments file as stored: ``job``, ``start`` and ``end`` once per row (a stretch is one
    row), the resources a row group at a time (a stretch's list of codes is its segments' resources),
    so 16.5 M segments are never expanded. The distinct (job, resource) pairs come from a bitmap of
    jobs × resources bytes (up to ``BITMAP_MAX``), else from a hash group-by.
    """
    name = stored.files.get("segments")
    if not name:
        return SCHEMA.empty_table()
    pf = pq.ParquetFile(store.source(name))
    schema = pf.schema_arrow
    if any(c not in schema.names for c in COLUMNS) or not pf.metadata.num_rows:
        return SCHEMA.empty_table()
    head = pf.read(columns=["job", "start", "end"], use_threads=False)
    job = _job_names(head["job"])
    jcodes, n_jobs = np.asarray(job.indices).astype(np.int64), len(job.dictionary)
    first, last = np.full(n_jobs, np.nan), np.full(n_jobs, np.nan)
    np.fmin.at(first, jcodes, head["start"].to_numpy())  # fmin/fmax: a missing start or end is skipped
    np.fmax.at(last, jcodes, head["end"].to_numpy())
    del head
    canonical = {}  # a resource name's one code (a dictionary may, in principle, hold a value twice)

    def remap_of(names):
        return np.fromiter((canonical.setdefault(str(n), len(canonical)) for n in names), np.int64, len(names))

    labels = (schema.metadata or {}).get(stretches.STRETCH)
    if labels is not None:  # stretches: resource is the list of the stretch's codes into ``labels``
        remap = remap_of(orjson.loads(labels))

        def parts():  # (file row, resource) of each segment, a row group at a time
            offset = 0
            for g in range(pf.num_row_groups):
                lists = _one(pf.read_row_group(g, columns=["resource"], use_threads=False)["resource"])
                yield np.asarray(pc.list_parent_indices(lists)) + offset, remap[np.asarray(pc.list_flatten(lists))]
                offset += len(lists)

        pairs = parts()
    else:  # one row per segment (families whose segments all differ: small enough to read whole)
        column = _one(pf.read(columns=["resource"], use_threads=False)["resource"])
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(pc.cast(column, pa.string()))
        remap = remap_of(pc.cast(column.dictionary, pa.string()).to_pylist())
        rows = np.flatnonzero(np.asarray(column.is_valid()))  # a segment without resource: not in the set
        pairs = [(rows, remap[np.asarray(column.indices.filter(column.is_valid()))])]
    width = max(len(canonical), 1)
    if n_jobs * width <= BITMAP_MAX:
        seen = np.zeros(n_jobs * width, dtype=bool)
        for rows, codes in pairs:
            seen[jcodes[rows] * width + codes] = True
        keys = np.flatnonzero(seen)  # job-major: sorted by job
        del seen
    else:
        chunks = [pa.array(jcodes[rows] * width + codes, pa.int64()) for rows, codes in pairs]
        keys = pa.table({"k": pa.chunked_array(chunks, pa.int64())})
        keys = np.sort(np.asarray(keys.group_by("k", use_threads=False).aggregate([])["k"]))
    pj, pr = keys // width, keys % width
    nres = np.bincount(pj, minlength=n_jobs).astype(np.int32)
    fp = np.zeros(n_jobs, dtype=np.uint64)
    if keys.size:
        starts = np.flatnonzero(np.diff(pj, prepend=-1))
        fp[pj[starts]] = np.add.reduceat(_hashes(list(canonical))[pr], starts)  # uint64: wraps mod 2**64
    out = pa.table([job.dictionary, first, last, nres, fp], schema=SCHEMA)
    return out.take(pc.sort_indices(out["job"]))


def files(parsed, index: int, base: str) -> dict:
    """Write run ``index``'s job index beside its files: ``{"jobs": name}`` for ``results.indexes.build`` to
    add to the run's index files (nothing for a run without a segments file)."""
    stored = parsed.stored(index)
    if "segments" not in stored.files:
        return {}
    name = store.save_parquet(f"{base}/r{index}-jobindex.parquet", table_of(stored), row_group_size=1 << 20,
                              use_dictionary=False, write_statistics=False,
                              column_encoding={"first": "BYTE_STREAM_SPLIT", "last": "BYTE_STREAM_SPLIT"})  # fmt: skip
    return {"jobs": name}


def read(name: str) -> pa.Table:
    """A job index file as :func:`table_of` built it."""
    return pq.read_table(store.source(name))
