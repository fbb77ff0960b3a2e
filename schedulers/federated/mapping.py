"""Local mapping of a cloud's tasks onto its servers: energy-aware (Algs. 4-5, "EL") or striping.

``free`` is the cloud's per-server remaining workload capacity ``C(s)`` (eq. 1), changed
in place; every function returns, per task, the servers used and the VMs on each.
A task's VMs may span servers. Section 5.1.3: the marginal workload of a task is
``wl_m = wl mod C(S)`` (eq. 4); the ``wl − wl_m`` part fills whole idle servers and the
marginal parts are packed together so that few servers are active.

Readings where the paper is silent or loose:

* Alg. 5 line 10 (and Alg. 4 line 14): when a server's remaining capacity equals the
  marginal workload exactly, the marginal goes there and the task is done (the
  pseudo-code falls through to line 13 without an "else"; scheduling it twice is not
  meant).
* When there are not enough idle servers for the whole-server part (the paper assumes
  there are), the rest is packed onto the servers with the most remaining capacity; so
  is a marginal part that no single server can hold.
* Alg. 4 (AR) takes ``s_a`` over all servers as written (line 17), Alg. 5 (best effort)
  over the active servers ``S_g`` first and an idle server otherwise (lines 13-15).
* Preemption happens before Alg. 4 runs: the simulator suspends whole best-effort
  tasks until the cloud has enough free VMs (Alg. 4 line 7), then maps the AR task.
* With EL off the cloud "stripes": each VM goes to the server with the most remaining
  capacity (water filling), the spreading default of OpenNebula-style schedulers.
  Servers are indexed, and ties always go to the lowest index.
"""

from __future__ import annotations

import numpy as np

__all__ = ["energy_aware", "striping"]

Alloc = dict[int, list[tuple[int, int]]]  # task -> [(server, vms)]


def _pack(free: np.ndarray, w: int, out: list[tuple[int, int]]) -> None:
    """Put ``w`` VMs on the servers with the most remaining capacity (fewest servers)."""
    if w <= 0:
        return
    order = np.argsort(-free, kind="stable")
    cum = np.cumsum(free[order])
    k = int(np.searchsorted(cum, w)) + 1
    for s in order[:k]:
        take = int(min(free[s], w))
        if take <= 0:
            continue
        free[s] -= take
        out.append((int(s), take))
        w -= take
    if w > 0:
        raise ValueError("not enough free VMs in the cloud")


def striping(free: np.ndarray, capacity: int, tasks: list[tuple[int, int]]) -> Alloc:
    """EL off: spread each task's VMs one by one onto the server with the most free capacity."""
    out: Alloc = {}
    for t, w in tasks:
        counts = np.bincount(free, minlength=capacity + 1)
        levels = np.arange(capacity + 1)
        # taken(L) = Σ_servers max(free − L, 0); find the lowest level L with taken(L) ≤ w
        above = (np.maximum(levels[None, :] - levels[:, None], 0) * counts[None, :]).sum(axis=1)
        level = int(np.flatnonzero(above <= w)[0])
        alloc = np.maximum(free - level, 0)
        rest = w - int(alloc.sum())
        if rest > 0:  # one more VM from the first servers sitting exactly at ``level``
            at_level = np.flatnonzero(free - alloc == level)[:rest]
            if at_level.size < rest:
                raise ValueError("not enough free VMs in the cloud")
            alloc[at_level] += 1
        servers = np.flatnonzero(alloc)
        free -= alloc
        out[t] = [(int(s), int(alloc[s])) for s in servers]
    return out


def energy_aware(free: np.ndarray, capacity: int, tasks: list[tuple[int, int]], ar: bool) -> Alloc:
    """Alg. 4 (``ar=True``) or Alg. 5: whole servers first, then pack the marginal workloads."""
    out: Alloc = {t: [] for t, _ in tasks}
    marginal: dict[int, int] = {}
    for t, w in tasks:  # lines 1-4 (Alg. 4 lines 1-9)
        whole, m = divmod(w, capacity)
        if whole:
            idle = np.flatnonzero(free == capacity)[:whole]
            free[idle] = 0
            out[t].extend([(s, capacity) for s in idle.tolist()])
            _pack(free, (whole - idle.size) * capacity, out[t])
        if m:
            marginal[t] = m
    l_d = sorted(marginal, key=lambda t: (-marginal[t], t))
    l_a = sorted(marginal, key=lambda t: (marginal[t], t))
    left = set(marginal)
    for ta in l_d:  # the while loop
        if ta not in left:
            continue
        m = marginal[ta]
        left.discard(ta)
        exact = np.flatnonzero(free == m)
        if exact.size:
            s = int(exact[0])
            free[s] = 0
            out[ta].append((s, m))
            continue
        if ar:
            sa = int(np.argmax(free))
        else:
            active = (free > 0) & (free < capacity)
            sa = int(np.argmax(np.where(active, free, -1))) if active.any() else -1
            if sa < 0 or free[sa] < m:
                idle = np.flatnonzero(free == capacity)
                sa = int(idle[0]) if idle.size else sa
        if sa < 0 or free[sa] < m:
            _pack(free, m, out[ta])
            continue
        free[sa] -= m
        out[ta].append((sa, m))
        for tk in l_a:  # fill the gap with the smallest marginals
            if tk not in left:
                continue
            if free[sa] > 0 and free[sa] >= marginal[tk]:
                free[sa] -= marginal[tk]
                out[tk].append((sa, marginal[tk]))
                left.discard(tk)
            else:
                break
    return out
