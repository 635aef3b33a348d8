/* Which CPU executes the activation of a wake-up: ttwu_queue_wakelist() /
 * ttwu_queue_cond() of kernel/sched/core.c with TTWU_QUEUE on (mainline's default; not a
 * feature bit here). The waker either activates the task on the target's run queue itself
 * (ttwu_do_activate() under the target's lock) or queues it on the target's wakelist and
 * sends an IPI: the target then activates it (sched_ttwu_pending()). */
#ifndef TOPOSCHED_TTWU_H
#define TOPOSCHED_TTWU_H

#include <stdbool.h>

struct ts_sched;
struct ts_task;

/* ttwu_queue_cond(p, cpu) for a wake-up issued on this_cpu, lock-free: false when p may
 * not run on cpu (the wakelist is not used then); true when cpu does not share this_cpu's
 * LLC (!cpus_share_cache(): remote data is not touched), false when cpu is this_cpu, true
 * when cpu's run queue is empty (offload the activation to the idle CPU; p, not yet
 * enqueued, is not counted; from v6.0: s->kernel.wakelist_idle), else false.
 * cpu_active() and the stop/sched_ext classes never stop it in toposched's hosts. */
bool ts_ttwu_queue_cond(struct ts_sched *s, const struct ts_task *p, int this_cpu, int cpu);

/* The CPU that executes the activation: cpu when ts_ttwu_queue_cond(), else this_cpu. */
int ts_ttwu_activate_cpu(struct ts_sched *s, const struct ts_task *p, int this_cpu, int cpu);

#endif
