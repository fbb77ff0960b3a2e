"""Race to idle, a VM and frequency choice for cloudsched's dvfs_bot family (paper 002).

Alg. 1 runs every VM at the lowest frequency that meets its deadlines. With the paper's host power model
a host draws most of its power just by being on (SPECpower tables: idle ≈ half of peak), so finishing
sooner and suspending the host can cost less energy than running slowly: "race to idle". This choice
keeps Alg. 1's VM (lines 34–39) and runs the task at that VM's top frequency.
"""

import numpy as np

from schedulers.dvfs_bot.policy import REJECT, vm_choice


@vm_choice("Alg. 1's VM at its top frequency (race to idle)")
def race_to_idle(task):
    v = int(np.argmax(task.score))
    if task.score[v] <= 0:
        return REJECT  # Alg. 1 lines 41-43: no VM can meet the deadline
    return v, int(task.top[v])
