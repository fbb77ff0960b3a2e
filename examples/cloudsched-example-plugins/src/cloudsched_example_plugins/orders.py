"""EASY with the largest expansion factor first (LXF), a queue order for cloudsched's backfill family.

The expansion factor of a waiting job is (wait + estimate) / estimate: how many times its estimated
runtime its response time would be if it started now. Serving the largest first favours short jobs that
have waited (like SJF) without starving long ones, whose factor grows while they wait (Chiang et al.,
"Minimizing slowdown in backfilling", 2002; Tang et al. 2009 list it beside WFP3 and UNICEF).
"""

from schedulers.backfill.policy import queue_order


@queue_order("EASY, queue by largest expansion factor (wait + estimate) / estimate first", dynamic=True)
def largest_xfactor(now, jobs):
    wait = now - jobs.submit
    return -(wait + jobs.estimate) / jobs.estimate  # smallest key first: the largest factor leads
