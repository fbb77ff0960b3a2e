"""Traces stored before the machine size was read as the families read it get it from their files: the header's
MaxProcs, else MaxNodes, else the largest job, and which; a trace whose file is gone keeps its row."""

import gzip

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

JOBS = "1 0 0 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n2 50 0 100 40 -1 -1 40 100 -1 1 1 1 1 1 -1 -1 -1\n"


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_stored_traces_are_resummarised_from_their_files():
    graph = MigrationExecutor(connection).loader.graph
    (mine,) = [key for key in graph.nodes if key[0] == "traces" and key[1].endswith("_machine_size")]
    before = sorted(parent.key for parent in graph.node_map[mine].parents)
    old = _migrate(before)
    Trace = old.get_model("traces", "Trace")
    rows = {}
    for name, header in (("nodes", "; MaxNodes: 16\n"), ("bare", ""), ("gone", "; MaxProcs: 8\n")):
        text = (header + JOBS).encode()
        stored = default_storage.save(f"traces/test-{name}.swf.gz", ContentFile(gzip.compress(text)))
        rows[name] = Trace.objects.create(sha256=name.ljust(64, "0"), name=name, file=stored, jobs=2, usable_jobs=2,
                                          processors=40, span_s=50.0, natural_load=0.5, text_bytes=len(text),
                                          stored_bytes=1)  # fmt: skip
    default_storage.delete(rows["gone"].file.name)
    new = _migrate([mine]).get_model("traces", "Trace")
    nodes, bare, gone = (new.objects.get(pk=rows[k].pk) for k in ("nodes", "bare", "gone"))
    assert (nodes.processors, nodes.processors_from, nodes.largest_job) == (16, "MaxNodes", 40)
    assert nodes.natural_load == pytest.approx((4 * 100 + 40 * 100) / (16 * 50))
    assert (bare.processors, bare.processors_from, bare.largest_job) == (40, "largest job", 40)
    assert (gone.processors, gone.processors_from, gone.largest_job) == (40, "", None)  # as it was
    _migrate(graph.leaf_nodes())
