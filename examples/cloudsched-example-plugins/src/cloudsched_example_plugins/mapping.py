"""Data-local CLS, a cloud choice for cloudsched's federated family (paper 004).

CLS (Alg. 2) sends each task to the cloud with the earliest estimated finish τ (eq. 5), even when it
finishes only a little earlier than at home, where the application's dataset already is; the transfer
M_s/S_c then loads the network and the other clouds' queues for a small gain. Data-local CLS keeps a task
on its home cloud unless another cloud finishes it at least ``SLACK`` (10 %) of its home span earlier.
"""

import numpy as np

from schedulers.federated.policy import cloud_choice

SLACK = 0.10


@cloud_choice("CLS, but the home cloud unless another finishes ≥ 10 % of the home span earlier")
def data_local(task):
    best = int(np.argmin(task.tau))
    home = task.home
    if not task.fits()[home] or best == home:
        return best
    span = task.tau[home] - task.erat[home]  # S_l/b + ETM at home
    return home if task.tau[home] - task.tau[best] < SLACK * span else best
