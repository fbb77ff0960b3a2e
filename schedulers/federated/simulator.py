"""Event-driven simulation of the federated clouds (Sections 3 and 6) on :class:`core.sim.EventQueue`.

Events: an application arrives (the clouds' slot tables are rebuilt from their current status,
:meth:`Simulation._pull`, then its tasks are placed at once, :mod:`allocate`); a task
becomes ready on its cloud (inputs there); a reserved AR task's start time comes; a task
stint ends. After each batch of simultaneous events every touched cloud dispatches:
first its queue of zero-notice AR tasks (FIFO, when the AR slot table admits the head),
then best-effort work FIFO — preempted tasks first, then the ready queue — while the
head fits in the free VMs (Section 5.1.3: "every time when there are enough VMs for the
task on the top of the queue"). Best-effort tasks started together are mapped together
(Alg. 5); an AR task is mapped by Alg. 4.

Readings where the paper is silent:

* A task's *stint* (one stretch on one set of servers) begins with its image load
  ``S_i/b``; an AR task that preempted something also stores the victims' images first
  (another ``S_i/b``, Section 3.2). A reserved AR task's lease, i.e. its first stint,
  begins exactly at its required start.
* A preempted best-effort task is suspended as a whole (all its VMs), keeps its
  remaining work, and resumes on the same cloud before any waiting best-effort task,
  reloading its image. AR tasks preempt only the VMs they lack: victims are the most
  recently started best-effort tasks, minus any not needed (:func:`choose_victims`), chosen
  once for all the AR tasks that start on a cloud at one instant (reserved leases and admitted
  zero-notice tasks together, :meth:`Simulation._start_leases`).
  A preemption is counted (metric ``preemptions``) only when the victim loses time, i.e.
  it had been running (image load included) before the AR task's start; the AR task pays
  the image store ``S_i/b`` only then.
* An AR application refused its reservation is rejected (left out of the averages) by default;
  with ``params.rejected_ar_apps = "run_best_effort"`` its client submits it again, without the
  reservation, at its required start: every task of it is best-effort from then on, and its
  execution time counts from its first submission.
* Every event of one instant is handled before any cloud dispatches best-effort work,
  so no best-effort stint is started and preempted at the same instant.
* A task is ready on cloud ``c`` once the dataset is there (home: at arrival, other
  clouds: ``M_s/S_c`` after the arrival) and every predecessor has finished, plus the
  edge transfer for predecessors on other clouds.
* Servers are active while they hold at least one stint (image transfers included) and
  idle otherwise; energy counts every server from the first arrival to the last completion.
"""

from __future__ import annotations

import heapq
from array import array
from collections import deque
from itertools import chain, islice

import numpy as np

from schedulers.core.sim import EventQueue
from schedulers.federated.allocate import assign_app
from schedulers.federated.mapping import energy_aware, striping
from schedulers.federated.model import FederatedScenario
from schedulers.federated.output import ENDED
from schedulers.federated.planner import EXACT_COMMITTED, EXACT_QUEUE, Planner
from schedulers.federated.workloads import Instance

__all__ = ["Simulation", "choose_victims"]

FINISH, AR_START, READY, ARRIVAL = 0, 1, 2, 3
_LIST_ALGORITHMS = frozenset({"cls", "dcls", "cmms", "dcmms"})  # the algorithms that read the slot tables


def choose_victims(running_be: dict[int, int], short: int) -> list[int]:
    """The best-effort tasks an AR lease preempts when it is ``short`` VMs short (Alg. 4 line 7).

    ``running_be`` maps the running best-effort tasks, in start order, to their VMs. The
    latest started are taken first until the AR lease fits, then every victim whose VMs
    the lease does not need is spared (checked latest started first): no victim can be
    left out, so none could resume at the instant it is preempted.
    """
    if short <= 0:
        return []
    victims: list[int] = []
    freed = 0
    for task in reversed(running_be):  # latest started first
        if freed >= short:
            break
        victims.append(task)
        freed += running_be[task]
    kept: list[int] = []
    for task in victims:
        if freed - running_be[task] >= short:
            freed -= running_be[task]
        else:
            kept.append(task)
    return kept


def _plugin_assigner(algorithm: str):
    """The assigner of a plug-in cloud choice and whether it reads eq. 8 (policy.py)."""
    from schedulers import plugins
    from schedulers.federated.policy import checked, choice_assign

    plugin = plugins.lookup("federated", algorithm)
    choose = checked(plugin, plugin.obj)
    return (lambda planner, app: choice_assign(planner, app, choose)), plugin.obj.feedback


class _Cloud:
    def __init__(self, spec, vms: int, origin: float, n_tasks: int):
        self.capacity = int(spec.server_capacity)
        self.free = np.full(spec.servers, self.capacity, dtype=np.int64)
        self.total_free = int(vms)
        self.vms = int(vms)
        # queues of (task, VMs, estimated duration here: image load + ETM, or the remaining work)
        self.ar_queue: deque[tuple[int, int, float]] = deque()
        self.resume: deque[tuple[int, int, float]] = deque()
        self.queue: deque[tuple[int, int, float]] = deque()
        self.running_be: dict[int, int] = {}
        # what the managers know of each running stint: task -> (estimated end, VMs, is AR) (:meth:`Simulation._pull`)
        self.running_est: dict[int, tuple[float, int, bool]] = {}
        # VM-seconds of each task queued here, in queue order (a task enters a queue at most once):
        # ``work[head : head + len(queue)]`` is the queue's work, summed by numpy as a slice (:func:`_tail_work`)
        self.queue_work, self.ar_queue_work = np.empty(n_tasks), np.empty(n_tasks)
        self.queue_head = self.ar_queue_head = 0
        # tasks assigned here whose inputs are not here yet: task -> (estimated ready time, task, VMs,
        # estimated duration, is AR), and their VM-seconds in all (what the pull adds past EXACT_QUEUE)
        self.committed: dict[int, tuple[float, int, int, float, bool]] = {}
        self.committed_work = 0.0
        self.committed_heap: list[tuple[float, int, int, float, bool]] = []  # the same, by ready time (stale kept)
        self.active = 0
        self.active_s = 0.0  # server-seconds active
        self.busy_vm_s = 0.0
        self.last_t = origin


def _tail_work(work: np.ndarray, head: int, length: int, skip: int) -> float:
    """VM-seconds (image load + ETM) of a queue's tasks after its first ``skip``.

    ``work[head : head + length]`` holds the queue's tasks' work in order: a contiguous slice,
    summed by numpy exactly as the array of the same values gathered by task index would be
    (the same pairwise summation), without walking the queue in Python.
    """
    if length <= skip:
        return 0.0
    return float(work[head + skip : head + length].sum())


class Simulation:
    """One algorithm on one instance. ``run()`` returns the raw outcome for :mod:`results`."""

    def __init__(self, cfg: FederatedScenario, inst: Instance, algorithm: str, progress=None):
        self.cfg, self.inst, self.algorithm = cfg, inst, algorithm
        self.assigner, feedback = None, algorithm in ("dcls", "dcmms")
        if algorithm not in _LIST_ALGORITHMS and algorithm not in ("fcfs", "round_robin"):  # a plug-in (policy.py)
            self.assigner, feedback = _plugin_assigner(algorithm)
        self.progress = progress or (lambda fraction, message="": None)
        self.el = cfg.params.energy_aware
        self.record = cfg.params.record_schedule
        self.planner = Planner(
            inst,
            cfg.params.alpha,
            feedback=feedback,
            negative_feedback=cfg.params.negative_feedback,
            fcfs_any=algorithm == "fcfs" and cfg.params.fcfs_placement == "any",
        )
        self.resubmit = cfg.params.rejected_ar_apps == "run_best_effort"
        origin = inst.origin
        self.clouds = [
            _Cloud(spec, int(v), origin, inst.n_tasks)
            for spec, v in zip(cfg.datacenter.clouds, inst.cloud_vms, strict=True)
        ]
        self.p_idle = np.array([c.p_idle_w for c in cfg.datacenter.clouds])
        self.p_gap = np.array([c.p_active_w - c.p_idle_w for c in cfg.datacenter.clouds])
        self.n_servers = np.array([c.servers for c in cfg.datacenter.clouds], dtype=float)
        self.idle_w = float((self.p_idle * self.n_servers).sum())
        self.gap_w = self.p_gap.tolist()
        n = inst.n_tasks
        self.preds_left = np.diff(inst.pred_ptr).astype(np.int64).tolist()
        self.vms = self.planner.vms
        self.etm = self.planner.etm
        self.actual = inst.actual.tolist()
        self.preds = self.planner.preds
        self.succ: list[list[int]] = [[] for _ in range(n)]
        for t, ps in enumerate(self.preds):
            for p in ps:
                self.succ[p].append(t)
        self.rem = [0.0] * n
        self.finish = [np.nan] * n
        # when each task's inputs were actually there (its "ready" event): eq. 6's Δτ counts from
        # no earlier than this, so a cloud is not charged for the lateness of its inputs
        self.inputs_at = [-np.inf] * n
        self.stint: dict[int, tuple] = {}  # task -> (start, overhead, servers, event)
        self.app_left = np.diff(inst.app_ptr).astype(np.int64).tolist()
        self.app_finish = np.full(inst.n_apps, np.nan)
        self.app_rejected = np.zeros(inst.n_apps, dtype=bool)
        self.app_resubmitted = np.zeros(inst.n_apps, dtype=bool)  # refused a reservation, run as best-effort
        self.preemptions = 0
        # the schedule, one row per stint (growing arrays of scalars, never dicts) and one per server of it
        self.st_task, self.st_cloud, self.st_reason, self.st_servers = (array("q") for _ in range(4))
        self.st_start, self.st_end, self.st_overhead = array("d"), array("d"), array("d")
        self.seg_server, self.seg_vms = array("q"), array("q")
        self.n_segments = 0
        self.cut: tuple[int, int, float] | None = None  # (limit, recorded, time) when max_segments stopped it
        self.power_t: list[float] = [origin]
        self.power_w: list[float] = [float((self.p_idle * self.n_servers).sum())]
        self.busy_vms: list[int] = [0]
        self.events = EventQueue()
        self.changed: set[int] = set()  # clouds whose servers changed at the current instant
        self.leases: dict[int, list[int]] = {}  # per cloud, the reserved AR tasks starting at the current instant
        self.slot_tables = cfg.params.slot_tables
        # whether arrivals pull (rebuild the slot tables): only then is what the pull reads kept
        # (each stint's estimated end, each queued task's work)
        self._pulls = self.slot_tables == "current" and (
            algorithm in _LIST_ALGORITHMS or self.assigner is not None or self.planner.fcfs_any
        )
        # VM-seconds of a queued task per cloud (what the tail of a long queue adds, :meth:`_pull`)
        self._queue_work = inst.task_vms[:, None] * (inst.image_s + np.where(np.isfinite(inst.etm), inst.etm, 0.0))
        self._synced = -np.inf  # the last instant the slot tables were rebuilt (:meth:`_pull`)

    # --- bookkeeping ---------------------------------------------------------------------
    def _account(self, c: int, now: float) -> None:
        cl = self.clouds[c]
        cl.active_s += cl.active * (now - cl.last_t)
        cl.last_t = now

    def _refresh(self, changed: set[int], now: float) -> None:
        """Active servers of the clouds whose servers changed at ``now``, and the power/busy series.

        Done once per instant, after every change of that instant: ``_account`` calls within the
        instant add zero-length intervals, so the active counts they would read may be stale.
        """
        for c in changed:
            cl = self.clouds[c]
            cl.active = int(np.count_nonzero(cl.free < cl.capacity))
        watts = self.idle_w
        busy = 0
        for k, other in enumerate(self.clouds):
            watts += self.gap_w[k] * other.active
            busy += other.vms - other.total_free
        if self.power_t[-1] == now:
            self.power_w[-1], self.busy_vms[-1] = watts, busy
        else:
            self.power_t.append(now)
            self.power_w.append(watts)
            self.busy_vms.append(busy)

    def _start(self, c: int, t: int, now: float, servers: list[tuple[int, int]], stored_image: bool) -> None:
        inst = self.inst
        overhead = inst.image_s * (2.0 if stored_image else 1.0)
        end = now + overhead + self.rem[t]
        event = self.events.schedule(end, "finish", t, FINISH)
        self.stint[t] = (now, overhead, servers, event)
        if self._pulls:
            self.clouds[c].running_est[t] = (
                now + overhead + self._estimated_rem(t),
                self.vms[t],
                self.planner.is_ar[t],
            )
        if self.planner.is_ar[t]:
            self.planner.book.start(c, t, end, self.vms[t])
        else:
            self.clouds[c].running_be[t] = self.vms[t]

    def _end_stint(self, c: int, t: int, now: float, reason: str) -> None:
        start, overhead, servers, _ = self.stint.pop(t)
        cl = self.clouds[c]
        cl.running_est.pop(t, None)
        self._account(c, now)
        w = self.vms[t]
        if len(servers) > 8:  # one vectorised update (servers are distinct within a stint)
            idx, vms = zip(*servers, strict=True)
            cl.free[list(idx)] += vms
        else:
            for s, v in servers:
                cl.free[s] += v
        cl.total_free += w
        cl.busy_vm_s += w * (now - start)
        if self.record:
            limit = self.cfg.params.max_segments
            if limit is not None and self.n_segments + len(servers) > limit:
                self.record, self.cut = False, (limit, self.n_segments, now)
            else:
                self._record(t, c, servers, start, now, overhead, reason)
        if self.planner.is_ar[t]:
            self.planner.book.finish(c, t)
        else:
            cl.running_be.pop(t, None)
        if reason == "preempted":
            self.rem[t] -= max(0.0, now - (start + overhead))
            self.rem[t] = max(self.rem[t], 0.0)

    def _record(self, t: int, c: int, servers, start: float, end: float, overhead: float, reason: str) -> None:
        """One stint of the schedule: its scalars, then the (server, VMs) pairs it held."""
        self.n_segments += len(servers)
        self.st_task.append(t)
        self.st_cloud.append(c)
        self.st_reason.append(ENDED.index(reason))
        self.st_servers.append(len(servers))
        self.st_start.append(start)
        self.st_end.append(end)
        self.st_overhead.append(overhead)
        for server, vms in servers:
            self.seg_server.append(server)
            self.seg_vms.append(vms)

    # --- events --------------------------------------------------------------------------
    def _pull(self, now: float) -> None:
        """Rebuild every cloud's slot tables from its current status (:meth:`Planner.resync`).

        Once per instant, before the first assignment of that instant: assignments of the
        same instant then see each other through the tables. Running stints end, as far as
        the managers know, at start + overhead + the estimated remaining work (computed when
        the stint starts, :attr:`_Cloud.running_est`).
        """
        self._synced = now
        planner, k = self.planner, EXACT_QUEUE
        for c, cl in enumerate(self.clouds):
            room = max(0, k - len(cl.resume))
            committed, tail = self._committed_head(c, cl)
            planner.resync(
                c,
                now,
                list(cl.running_est.values()),
                islice(cl.ar_queue, k),
                chain(cl.resume, islice(cl.queue, room)),
                _tail_work(cl.ar_queue_work, cl.ar_queue_head, len(cl.ar_queue), k),
                _tail_work(cl.queue_work, cl.queue_head, len(cl.queue), room),
                committed,
                tail,
            )

    def _committed_head(self, c: int, cl: _Cloud) -> tuple[list, float]:
        """The first :data:`EXACT_COMMITTED` tasks committed to ``c`` and not ready, by estimated ready
        time, and the VM-seconds of the rest. Entries of tasks that became ready since are dropped
        from the heap as they surface, so a pull costs O(EXACT_COMMITTED log n), not O(n)."""
        heap, live = cl.committed_heap, cl.committed
        head = []
        while heap and len(head) < EXACT_COMMITTED:
            item = heapq.heappop(heap)
            if item[1] in live:
                head.append(item)
        for item in head:
            heapq.heappush(heap, item)
        if len(live) == len(head):
            return head, 0.0
        work = sum(self._queue_work[t, c] for _, t, _, _, _ in head)
        return head, max(cl.committed_work - work, 0.0)

    def _estimated_rem(self, t: int) -> float:
        """Remaining work of ``t`` as its ETM says (what the managers know)."""
        c = self.planner.cloud[t]
        actual = self.actual[t][c]
        return self.rem[t] * self.etm[t][c] / actual if actual > 0 else self.rem[t]

    def _arrival(self, app: int, now: float, dirty: set[int]) -> None:
        inst, planner = self.inst, self.planner
        if self._pulls and now != self._synced:
            self._pull(now)
        planner.now = now
        if not assign_app(self.algorithm, planner, app, self.assigner):
            lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
            if self.resubmit and planner.app_ar[app] and np.isfinite(inst.etm[lo:hi]).any(axis=1).all():
                # refused a reservation: submitted again without it at the required start (never earlier,
                # so no task starts before the time its client asked for)
                planner.app_ar[app] = False
                for t in range(lo, hi):
                    planner.is_ar[t] = False
                self.app_resubmitted[app] = True
                self.events.schedule(max(now, float(inst.app_start[app])), "arrival", app, ARRIVAL)
                return
            self.app_rejected[app] = True
            return
        for t in range(int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])):
            c = planner.cloud[t]
            self.rem[t] = self.actual[t][c]
            if self._pulls and not (planner.is_ar[t] and planner.is_entry[t]):  # AR entries are reserved
                cl = self.clouds[c]
                item = (planner.ready_est(t, c), t, self.vms[t], planner.span(t, c), planner.is_ar[t])
                cl.committed[t] = item
                heapq.heappush(cl.committed_heap, item)
                cl.committed_work += self._queue_work[t, c]
            if not planner.is_entry[t]:
                continue
            if planner.is_ar[t]:
                self.events.schedule(float(inst.app_start[app]), "ar_start", t, AR_START)
            else:
                self.inputs_at[t] = max(now, planner.data_ready(app, c))
                self.events.schedule(self.inputs_at[t], "ready", t, READY)

    def _ready(self, t: int, dirty: set[int]) -> None:
        c = self.planner.cloud[t]
        cl = self.clouds[c]
        item = (t, self.vms[t], self.inst.image_s + self.etm[t][c])
        if self._pulls:  # no longer on its way: queued from now on
            del cl.committed[t]
            cl.committed_work = cl.committed_work - self._queue_work[t, c] if cl.committed else 0.0
        if self.planner.is_ar[t]:
            if self._pulls:
                cl.ar_queue_work[cl.ar_queue_head + len(cl.ar_queue)] = self._queue_work[t, c]
            cl.ar_queue.append(item)
        else:
            if self._pulls:
                cl.queue_work[cl.queue_head + len(cl.queue)] = self._queue_work[t, c]
            cl.queue.append(item)
        dirty.add(c)

    def _start_leases(self, c: int, leases: list[int], now: float) -> None:
        """Start the AR tasks ``leases`` (in order) on cloud ``c`` at ``now``, preempting for all at once.

        The victims are chosen for the VMs the leases lack together (:func:`choose_victims`):
        chosen lease by lease, a later lease could preempt a task while VMs freed for an earlier
        one stayed idle, and the victim resumed at once (2.4 % of the preemptions on
        random DAG + AR workloads). The free VMs go to the leases in order; a lease that needs
        VMs a victim held pays the store of the victims' images (``S_i/b``) when one lost time.
        """
        cl = self.clouds[c]
        free = cl.total_free
        victims = choose_victims(cl.running_be, sum(self.vms[t] for t in leases) - free)
        lost_time = False
        for victim in victims:
            lost = self.stint[victim][0] < now  # a lease started at ``now`` loses nothing
            self.events.cancel(self.stint[victim][3])
            self._end_stint(c, victim, now, "preempted")
            cl.resume.append((victim, self.vms[victim], self.inst.image_s + self._estimated_rem(victim)))
            if lost:
                self.preemptions += 1
                lost_time = True
        self._account(c, now)
        for t in leases:
            w = self.vms[t]
            if self.el:
                alloc = energy_aware(cl.free, cl.capacity, [(t, w)], ar=True)
            else:
                alloc = striping(cl.free, cl.capacity, [(t, w)])
            cl.total_free -= w
            self._start(c, t, now, alloc[t], lost_time and w > free)
            free = max(free - w, 0)
        self.changed.add(c)

    def _finish(self, t: int, now: float, dirty: set[int]) -> None:
        inst, planner = self.inst, self.planner
        c = planner.cloud[t]
        self._end_stint(c, t, now, "finish")
        self.finish[t] = now
        planner.observe(t, now, self.inputs_at[t])
        self.changed.add(c)
        dirty.add(c)
        app = planner.task_app[t]
        self.app_left[app] -= 1
        if self.app_left[app] == 0:
            self.app_finish[app] = now
        preds_left, cloud, finish, edge_s = self.preds_left, planner.cloud, self.finish, inst.edge_s
        for s in self.succ[t]:
            preds_left[s] -= 1
            if preds_left[s] == 0:
                cs = cloud[s]
                ready = planner.data_ready(app, cs)
                if now > ready:  # max(data ready, now)
                    ready = now
                for p in self.preds[s]:
                    fin = finish[p] + edge_s if cloud[p] != cs else finish[p]
                    if fin > ready:
                        ready = fin
                self.inputs_at[s] = ready
                self.events.schedule(ready, "ready", s, READY)

    def _dispatch(self, c: int, now: float) -> None:
        inst, book = self.inst, self.planner.book
        cl = self.clouds[c]
        leases = self.leases.pop(c, [])  # reserved AR tasks whose start is now (still in the book's reservations)
        while cl.ar_queue:
            t, w, _ = cl.ar_queue[0]
            duration = 2 * inst.image_s + self.etm[t][c]
            if not book.fits(c, now, w, duration, cl.vms):
                break
            cl.ar_queue.popleft()
            cl.ar_queue_head += 1
            # admitted: counted by the next head's admission as reserved over its longest lease until it starts
            book.reserve(c, t, now, now + duration, w)
            leases.append(t)
        if leases:
            self._start_leases(c, leases, now)
        batch: list[tuple[int, int]] = []
        room = cl.total_free
        while True:
            q = cl.resume if cl.resume else cl.queue
            if not q or q[0][1] > room:
                break
            t, w, _ = q.popleft()
            if q is cl.queue:
                cl.queue_head += 1
            batch.append((t, w))
            room -= w
        if not batch:
            return
        self._account(c, now)
        if self.el:
            alloc = energy_aware(cl.free, cl.capacity, batch, ar=False)
        else:
            alloc = striping(cl.free, cl.capacity, batch)
        for t, w in batch:
            cl.total_free -= w
            self._start(c, t, now, alloc[t], False)
        self.changed.add(c)

    def run(self) -> None:
        inst, events = self.inst, self.events
        for app in range(inst.n_apps):
            events.schedule(float(inst.app_arrival[app]), "arrival", app, ARRIVAL)
        step = max(1, inst.n_apps // 100)
        arrived = 0
        while len(events):
            now = events.peek_time()
            dirty: set[int] = set()
            # every event at ``now``, also those scheduled at ``now`` while handling the batch
            # (a successor ready at its predecessor's finish, a zero-notice AR start), is handled
            # before any cloud dispatches: a best-effort task never starts at an instant at
            # which an AR task then takes its VMs (no zero-length stints).
            while events.peek_time() == now:
                for ev in events.pop_simultaneous():
                    if ev.kind == "finish":
                        self._finish(ev.data, now, dirty)
                    elif ev.kind == "ar_start":  # started with the instant's other leases (_dispatch)
                        c = self.planner.cloud[ev.data]
                        self.leases.setdefault(c, []).append(ev.data)
                        dirty.add(c)
                    elif ev.kind == "ready":
                        self._ready(ev.data, dirty)
                    else:
                        again = self.app_resubmitted[ev.data]  # a resubmission is not a new arrival
                        self._arrival(ev.data, now, dirty)
                        arrived += 0 if again else 1
                        if not again and arrived % step == 0:
                            self.progress(0.95 * arrived / inst.n_apps)
            for c in sorted(dirty):
                self._dispatch(c, now)
            if self.changed:
                self._refresh(self.changed, now)
                self.changed.clear()
        end = max([inst.origin, *(cl.last_t for cl in self.clouds), float(np.nanmax(self.app_finish, initial=0.0))])
        for c in range(len(self.clouds)):
            self._account(c, end)
        self.end_time = end
