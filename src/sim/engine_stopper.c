/* The CPU stopper's part in load balancing: an active balance (sched_balance_rq() found an
 * even spread of tasks it could not reach because what would have to move is running)
 * wakes the busiest CPU's stopper with stop_one_cpu_nowait(); the stopper preempts the
 * running task and active_load_balance_cpu_stop() pushes one task to the balancing CPU. */
#include "engine.h"

/* ts_host_ops.stop_one_cpu, from the balancing CPU (the event being handled): the
 * stopper's wake-up reaches cpu as a resched IPI does, c2c later (+ idle_exit when it
 * idles). The core queues one push per CPU at a time (rq->active_balance). */
void sim_host_stop_one_cpu(void *host, int cpu)
{
	struct sim *m = host;
	double d = sim_cost_of(m, m->c2c, ts_cost_between, m->cur_cpu, cpu);
	uint64_t delay = sim_ns_of(d) + (m->cpu[cpu].curr ? 0 : m->idle_exit_ns);
	sim_post(m, m->now + delay, EV_STOP_PUSH, cpu, NULL, 0);
}

/* EV_STOP_PUSH: the stopper runs on cpu. Its task leaves the CPU (the work done so far is
 * kept); the core pushes one task to the balancing CPU (which the core reschedules); cpu
 * then picks again, so the task that stayed pays ctx_switch for the stopper's switch back,
 * and the one pushed pays its first run on the other CPU (ctx_switch, refill). */
void sim_on_stop_push(struct sim *m, int cpu)
{
	SIM_CHECK(m->nr_locked == 0, "the stop work called with an rq lock held");
	sim_stop_segment(m, cpu);
	ts_active_load_balance_cpu_stop(m->s, cpu);
	if (sim_detach_taken(m, cpu))
		sim_do_resched(m, cpu);
	else if (m->cpu[cpu].curr && !m->cpu[cpu].seg_active)
		sim_cpu_run(m, cpu);
}
