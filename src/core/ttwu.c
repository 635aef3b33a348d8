/* ttwu_queue_cond() (ttwu.h), kernel/sched/core.c v6.x, and before v6.0. */
#include "toposched/ttwu.h"

#include "toposched/sched.h"

bool ts_ttwu_queue_cond(struct ts_sched *s, const struct ts_task *p, int this_cpu, int cpu)
{
	/* Ensure the task will still be allowed to run on the CPU. */
	if (!ts_task_allowed(p, cpu))
		return false;
	/* If the CPU does not share cache, queue the task on the remote rq's wakelist to
	 * avoid accessing remote data. */
	if (!ts_cpus_share_cache(s->dom, this_cpu, cpu))
		return true;
	if (cpu == this_cpu)
		return false;
	/* An idle wakee CPU: the wakelist offloads the activation to it, as the current
	 * CPU is likely busy. nr_running is checked to avoid stacking tasks. From v6.0
	 * (f3dd3f674555); before, the waker activated the task itself. */
	return s->kernel.wakelist_idle && ts_rq_nr_running(s, cpu) == 0;
}

int ts_ttwu_activate_cpu(struct ts_sched *s, const struct ts_task *p, int this_cpu, int cpu)
{
	return ts_ttwu_queue_cond(s, p, this_cpu, cpu) ? cpu : this_cpu;
}
