"""FFD-snug, a PM choice for cloudsched's vm_reservations family (paper 003's MinTEC).

Energy is α·T + β·L (eq. 11) and L does not depend on the placement, so a placement saves energy only by
shortening the PMs' total power-on time T. First fit (FFD) takes the first PM with room, even one that is
off during the request and would be switched on for it. FFD-snug takes, among the PMs with room, the one
whose power-on time grows least (already on over most of the interval), ties to the fullest (best fit),
and opens a new PM only when none has room.
"""

import numpy as np

from schedulers.vm_reservations.policy import NEW, pm_choice


@pm_choice("FFD order, the PM whose power-on time grows least (ties: best fit)", order="ffd")
def ffd_snug(fit):
    ok = fit.fits()
    if not ok.any():
        return NEW
    added = np.where(ok, fit.added_on_time(), np.inf)
    least = added == added.min()
    return int(np.where(least, fit.peak, -1).argmax())  # the fullest of them; argmax: the first opened
