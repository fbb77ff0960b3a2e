"""LPT-green, a task placement for cloudsched's ep_jobs family (paper 000).

Longest Processing Time first (Graham 1969) on the model of Section 3: tasks in decreasing load, each on
the server whose constraints would finish earliest with it (max over the constraints k of the server of
S_k/B_k, eq. 16's OptRA time, the task's equivalent load L_ij of eq. 15 added), ties to the more
efficient server (larger λ_ij); then REC (Alg. 2) brings the energy within E_MAX. OptRA gives the shares.
"""

import numpy as np

from schedulers.ep_jobs.policy import task_placement
from schedulers.ep_jobs.tapra import rec


@task_placement("LPT: largest task first on the server whose constraints finish earliest, then REC")
def lpt_green(job):
    plat = job.platform
    con, w, ptr = plat.nnz_con, plat.nnz_w, plat.AT.indptr  # A_kj / B_k, grouped by server j
    server = np.zeros(job.n_tasks, dtype=np.intp)
    r = np.zeros(plat.B.size)  # S_k / B_k of the tasks placed so far
    for i in np.argsort(-job.loads, kind="stable"):
        finish = np.maximum.reduceat(r[con] + w * job.leq[i, plat.nnz_server], ptr[:-1])
        j = int(np.lexsort((-job.lam[i], finish))[0])
        server[i] = j
        r[con[ptr[j] : ptr[j + 1]]] += job.leq[i, j] * w[ptr[j] : ptr[j + 1]]
    return rec(job, server)[0]
