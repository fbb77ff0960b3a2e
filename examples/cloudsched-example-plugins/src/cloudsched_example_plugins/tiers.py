"""MEASY that restarts a job instead of migrating it when a restart wastes less: a tier choice for cloudsched's
backfill family (KEASY, REASY and MEASY differ only in this choice).

When Steps 1–2 of paper 001's Alg. 1 pick a background job for the foreground tier while the fg VMs of its own
processors are busy, KEASY kills it and restarts it from scratch (the work done is lost) and MEASY migrates it
(Section 2.3.2: ``migration_cost_s`` seconds of extra work). This choice takes the cheaper move per job: a job that
has done less work than a migration costs restarts, the others migrate. Its estimated runtime in the foreground
is then the smaller of the two (the estimate, or estimate − done + cost), which EASY's backfill test reads.
"""

from schedulers.backfill.policy import KILL, MIGRATE, tier_choice


@tier_choice("MEASY, but kill and restart a job that has done less work than a migration costs")
def thrifty(now, job, size, estimate, done, cost):
    return MIGRATE if done > cost else KILL
