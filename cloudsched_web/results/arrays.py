"""Small array helpers of the charts: columns as numpy, resources as row codes, natural order, JSON numbers."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["float_column", "natural_key", "resource_codes", "rounded", "rounded_list"]


def resource_codes(column, names):
    """Each segment's resource as an index into ``names`` (−1: not among them)."""
    value_set = pa.array(names, pa.string())
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if chunks and all(pa.types.is_dictionary(c.type) and not c.null_count for c in chunks):  # the stored encoding
        parts = []
        for c in chunks:  # look each dictionary up once, then index by the codes
            lookup = pc.fill_null(pc.index_in(pc.cast(c.dictionary, pa.string()), value_set=value_set), -1)
            parts.append(np.asarray(lookup.to_numpy(zero_copy_only=False), np.int64)[c.indices.to_numpy()])
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return np.asarray(
        pc.fill_null(pc.index_in(pc.cast(column, pa.string()), value_set=value_set), -1).to_numpy(zero_copy_only=False),
        dtype=np.int64,
    )


def float_column(table, name):
    return table[name].to_numpy() if table.num_rows else np.zeros(0)


def natural_key(name):
    digits = "".join(ch for ch in str(name) if ch.isdigit())
    return (str(name).rstrip("0123456789"), int(digits) if digits else -1, str(name))


def rounded(value):
    return round(value, 4) if isinstance(value, float) else value


def rounded_list(values, digits=4):
    """``values`` as a list of floats to ``digits`` decimals, at numpy's speed (a chart's points: ties may
    round the other way than Python's ``round``, in the last decimal)."""
    return np.round(np.asarray(values, dtype=float), digits).tolist()
