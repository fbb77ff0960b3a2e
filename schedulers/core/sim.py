"""A small discrete-event kernel shared by the online simulators.

Like SimPy's, the heap holds ``(time, priority, sequence, payload)`` with an
``itertools.count()`` tie-break, so simultaneous events always run in the same
order and a run is deterministic bit for bit. Cancelled events are skipped
lazily (O(log n) cancel without a heap rebuild); when they outnumber the live ones the heap
is rebuilt without them (``heapify``). The keys are unique (the sequence number), so the
order events come out in never depends on the heap's shape: compaction changes no result,
only the cost of each push and pop (DRC reschedules every task of a server at each change).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import Any

__all__ = ["Event", "EventQueue"]


class Event:
    """A scheduled occurrence. ``kind`` and ``data`` are the simulator's business."""

    __slots__ = ("cancelled", "data", "kind", "priority", "time")

    def __init__(self, time: float, kind: str, data: Any = None, priority: int = 0):
        self.time = time
        self.kind = kind
        self.data = data
        self.priority = priority
        self.cancelled = False

    def __repr__(self) -> str:
        return f"Event({self.time!r}, {self.kind!r}, {self.data!r})"


class EventQueue:
    """Time-ordered event heap. Lower ``priority`` runs first among equal times."""

    def __init__(self, start: float = 0.0):
        self.now = start
        self._heap: list[tuple[float, int, int, Event]] = []
        self._seq = itertools.count()
        self._live = 0

    def __len__(self) -> int:
        return self._live

    def schedule(self, time: float, kind: str, data: Any = None, priority: int = 0) -> Event:
        if time < self.now:
            raise ValueError(f"cannot schedule in the past: {time} < now {self.now}")
        event = Event(time, kind, data, priority)
        heapq.heappush(self._heap, (time, priority, next(self._seq), event))
        self._live += 1
        return event

    def cancel(self, event: Event) -> None:
        if not event.cancelled:
            event.cancelled = True
            self._live -= 1
            heap = self._heap
            if len(heap) > 64 and len(heap) > 2 * self._live:
                heap[:] = [item for item in heap if not item[3].cancelled]
                heapq.heapify(heap)

    def peek_time(self) -> float | None:
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def pop(self) -> Event:
        self._drop_cancelled()
        time, _, _, event = heapq.heappop(self._heap)
        self._live -= 1
        self.now = time
        return event

    def pop_simultaneous(self) -> list[Event]:
        """Pop every live event at the earliest time (in deterministic order)."""
        first = self.pop()
        batch = [first]
        while (t := self.peek_time()) is not None and t == first.time:
            batch.append(self.pop())
        return batch

    def __iter__(self) -> Iterator[Event]:
        while self.peek_time() is not None:
            yield self.pop()

    def _drop_cancelled(self) -> None:
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heapq.heappop(heap)
