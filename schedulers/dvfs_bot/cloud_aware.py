"""Alg. 1 of paper 002 (cloud-aware energy-efficient scheduling) and its not-cloud-aware baseline.

Both score every VM for one task at once with numpy (the inner loop of Alg. 1,
lines 6–40, becomes array expressions; the paper's loop order survives as the
first-maximum rule of ``argmax``, which is line 34's strict ``>``).

* Lines 9–12: a VM in use gets the task inserted into its deadline-ordered queue
  behind every queued task with the same or an earlier deadline (Sec. IV: "if
  other task with the same deadline is also in the queue, it has priority");
  the running task stays at the head (no preemption). The smallest working
  level meeting every deadline of the queue is found in closed form: at speed
  s = f/f_max the k-th task ends at ``now + W_k / s`` (W_k = estimated work ahead
  of and including it, at top frequency), so the level needs
  ``s ≥ max_k W_k / (d_k − now)``. A relative tolerance of 1e-12 absorbs rounding.
* Lines 13–21: −1 if no level suffices; 1000 − freqRank − energyRank if the level
  must rise above the VM's current level, else 10000 − freqRank − energyRank.
* Lines 22–30: an idle VM needs ``w / (d − now)``; score 100 − energyRank when its
  host runs another VM, 10 − energyRank when the host is suspended, −1 when
  infeasible. As in the pseudocode (and unlike the prose's "go from the lowest
  frequency to the highest"), lines 25/27 do not subtract freqRank.
* Baseline (Sec. V-A): identical, except the host test of line 24 is ignored, so
  every feasible idle VM scores 100 − energyRank.

Levels are indexed from 0 = lowest working frequency; the idle state is kept
apart (level −1), so freqRank is the working-level index. A chosen level below
the VM's current one is applied (line 37 sets the frequency for the whole queue),
which is how the lowest frequency meeting every queued deadline is kept.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BASE_SCORES",
    "feasible_levels",
    "queue_terms",
    "required_speed",
    "score_vms",
    "select_vm",
    "speed_from_terms",
]

BASE_SCORES = (
    10000,
    1000,
    100,
    10,
)  # (i) in use, same level; (ii) in use, faster; (iii) idle VM, host on; (iv) host off
SPEED_TOL = 1e-12


def queue_terms(
    now: float,
    work: float,
    deadline: float,
    head: np.ndarray,
    run_deadline: np.ndarray,
    qwork: np.ndarray,
    qdead: np.ndarray,
    qcum: np.ndarray | None = None,
    scratch: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The parts of lines 10–12 that do not change while one job's tasks are placed elsewhere.

    For rows of VMs (``head`` = estimated remaining work of the running task, 0 when
    idle; ``qwork``/``qdead`` the waiting tasks, padded with work 0 and deadline
    +inf; ``qcum`` = ``np.cumsum(qwork, axis=1)``, which the simulator keeps up to
    date instead of recomputing) returns ``(position, ahead, worst, s_run)``: the
    queue position of a new task (work ``work``, deadline ``deadline``), the work
    ahead of it, the largest ``W_k / (d_k − now)`` over the waiting tasks with it
    inserted, and the running task's own need. ``inf`` marks a deadline already passed.

    The matrices are read column by column (``.T``): the simulator stores them transposed, one
    queue slot per row, so every step below is a pass over contiguous memory and the per-VM
    maximum an element-wise maximum of rows. ``scratch``, two float arrays of the transposed
    shape, holds the intermediate matrices (fresh temporaries of this size cost more than the
    arithmetic: each is a new memory mapping). Element for element the operations are those of
    the formulas above, and a maximum does not round, so the layout does not change a result.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        run_slack = run_deadline - now
        s_run = np.where(head > 0, np.where(run_slack > 0, head / run_slack, np.inf), 0.0)
    n, w = qwork.shape
    if w == 0:
        zeros = np.zeros(head.size)
        return np.zeros(head.size, dtype=np.int64), head.astype(float), zeros, s_run
    if qcum is None:
        qcum = np.cumsum(qwork, axis=1)
    dead_t, cum_t = qdead.T, qcum.T  # (slot, VM)
    cum, den = scratch if scratch is not None else (np.empty((w, n)), np.empty((w, n)))
    after = dead_t > deadline  # a suffix of each queue: queues are deadline-ordered
    # the first slot after the new task = the number of slots before it (a prefix; the padding is after)
    position = w - np.add.reduce(after, axis=0, dtype=np.int64)
    np.add(cum_t, head, out=cum)  # W_k with the running task: head + prefix sum
    # Work ahead of the new task: the running task and the queue prefix, W at position − 1.
    at = cum[np.maximum(position - 1, 0), np.arange(n)]
    ahead = np.where(position > 0, at, head)
    np.add(cum, work, out=cum, where=after)  # the new task is ahead of every later slot
    np.subtract(dead_t, now, out=den)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(cum, den, out=cum)
    worst = cum.max(axis=0)
    # A passed deadline (slack ≤ 0) makes the queue infeasible; the earliest deadline is slot 0.
    worst[den[0] <= 0] = np.inf
    return position, ahead, worst, s_run


def speed_from_terms(
    now: float, work: float, deadline: float, busy: np.ndarray, ahead: np.ndarray, worst: np.ndarray, s_run: np.ndarray
) -> np.ndarray:
    """Lines 12 and 23: the speed (fraction of f_max) each VM needs to take the task."""
    horizon = deadline - now
    if horizon <= 0:
        return np.full(busy.size, np.inf)
    s_busy = np.maximum(np.maximum(s_run, (ahead + work) / horizon), worst)
    return np.where(busy, s_busy, work / horizon)


def required_speed(
    now: float,
    work: float,
    deadline: float,
    busy: np.ndarray,
    head: np.ndarray,
    run_deadline: np.ndarray,
    qwork: np.ndarray,
    qdead: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Speed each VM needs to take the task, and its queue position (see :func:`queue_terms`).

    At speed s = f/f_max the k-th task of the queue ends at ``now + W_k / s``, so
    the queue needs ``s ≥ max_k W_k / (d_k − now)`` (running task included).
    """
    position, ahead, worst, s_run = queue_terms(now, work, deadline, head, run_deadline, qwork, qdead)
    return speed_from_terms(now, work, deadline, busy, ahead, worst, s_run), position


def feasible_levels(s_star: np.ndarray, vm_type: np.ndarray, speeds: list[np.ndarray]) -> np.ndarray:
    """Index of the lowest working level with speed ≥ s_star (Alg. 1 lines 12 and 23), −1 if none."""
    need = s_star * (1.0 - SPEED_TOL)
    if len(speeds) == 1:
        idx = np.searchsorted(speeds[0], need, side="left")
        return np.where(idx < speeds[0].size, idx, -1)
    out = np.empty(s_star.size, dtype=np.int64)
    for i, sp in enumerate(speeds):
        sel = vm_type == i
        idx = np.searchsorted(sp, need[sel], side="left")
        out[sel] = np.where(idx < sp.size, idx, -1)
    return out


def score_vms(
    level: np.ndarray,
    busy: np.ndarray,
    current_level: np.ndarray,
    host_on: np.ndarray,
    energy_rank: np.ndarray,
    cloud_aware: bool = True,
) -> np.ndarray:
    """Alg. 1 lines 13–30 for every VM: the four-branch score (−1 = cannot meet the deadlines)."""
    feasible = level >= 0
    in_use = np.where(level > current_level, BASE_SCORES[1], BASE_SCORES[0]) - level - energy_rank
    if cloud_aware:
        idle = np.where(host_on, BASE_SCORES[2], BASE_SCORES[3]) - energy_rank
    else:
        idle = BASE_SCORES[2] - energy_rank
    return np.where(feasible, np.where(busy, in_use, idle), -1)


def select_vm(scores: np.ndarray) -> int:
    """Lines 34–39 and 41: the first VM with the highest positive score, or −1 (job rejected)."""
    best = int(np.argmax(scores))
    return best if scores[best] > 0 else -1
