/* The task programs: a class's phases (RUN, SEND, RECV, SLEEP, TIMER, MARK, TOUCH, the
 * synchronisation phases of engine_sync.c, the start-up's CONNECT and BARRIER, rt-app's FORK
 * and START_DELAY) executed while the task is its CPU's current task, until it needs CPU time,
 * blocks or exits; a parent's forks come first (engine_start.c). */
#include <stddef.h>

#include "engine.h"

static uint64_t draw_ns(struct sim *m, const struct ts_phase *ph)
{
	switch (ph->dist) {
	case TS_DIST_EXPONENTIAL:
		return sim_ns_of(ts_rng_exp(&m->rng, (double)ph->ns));
	case TS_DIST_UNIFORM:
		return ph->ns / 2 + ts_rng_below(&m->rng, ph->ns + 1);
	case TS_DIST_FIXED:
	default:
		return ph->ns;
	}
}

static uint32_t draw_size(struct sim *m, const struct ts_size_mix *mix)
{
	uint64_t total = 0;
	for (int i = 0; i < mix->n; i++)
		total += mix->weight[i];
	uint64_t r = ts_rng_below(&m->rng, total);
	for (int i = 0; i < mix->n; i++) {
		if (r < mix->weight[i])
			return mix->bytes[i];
		r -= mix->weight[i];
	}
	return mix->bytes[mix->n - 1];
}

static struct sim_channel *chan_of(struct sim *m, const struct sim_task *t,
				   const struct ts_chan_ref *ref)
{
	int i = ref->chan + (ref->per_instance ? t->idx : 0) +
		(ref->iter_mod ? (int)(t->iter % (uint64_t)ref->iter_mod) : 0);
	return &m->chan[t->inst * m->w->channels_per_instance + i];
}

/* Runs the program of cpu's current task from now until it needs CPU time (a segment is
 * posted), blocks or exits. No lock held. */
enum sim_step sim_step_task(struct sim *m, int cpu, struct sim_task *t)
{
	if (__builtin_expect(t->role != SIM_ROLE_TASK, 0))
		return t->role == SIM_ROLE_LAUNCHER   ? sim_step_launcher(m, cpu, t)
		       : t->role == SIM_ROLE_LISTENER ? sim_step_listener(m, cpu, t)
						      : sim_step_kworker(m, cpu, t);
	for (long n = 0;; n++) {
		if (t->work > 0) {
			sim_start_segment(m, cpu);
			return STEP_SEGMENT;
		}
		/* A parent forks its children before its own program; a fork phase's child
		 * (its cost paid) comes before the exit its last phase may have set. */
		if (__builtin_expect(t->next_child < t->nr_children || t->forking >= 0, 0) &&
		    sim_step_fork(m, cpu, t))
			continue;
		if (t->exiting)
			return STEP_EXIT;
		if (n > TS_SIM_MAX_INSTANT_PHASES) {
			sim_fail(
				m, -ELOOP,
				"sim: workload '%s' class '%s' runs its program without ever using "
				"time "
				"or blocking",
				m->w->name, t->cls->name ? t->cls->name : "?");
			return STEP_EXIT;
		}
		if (__builtin_expect(!t->pro && !t->loop_started, 0)) {
			t->loop_started = true; /* the reference of its timers */
			t->loop_start = m->now;
		}
		const struct ts_phase *ph = &t->prog[t->pc];
		switch (ph->kind) {
		case TS_PH_TOUCH:
			if (sim_touch_step(m, cpu, t, ph))
				sim_advance(t);
			break;
		case TS_PH_RUN:
			sim_add_work(m, t, (double)draw_ns(m, ph), TS_WORK_PROGRAM);
			sim_advance(t);
			break;
		case TS_PH_MARK:
			if (sim_measuring(m))
				m->marks++;
			sim_advance(t);
			break;
		case TS_PH_SLEEP:
			sim_advance(t);
			sim_post(m, m->now + draw_ns(m, ph), EV_TIMER, cpu, t, 0);
			return STEP_BLOCK;
		case TS_PH_TIMER: {
			uint64_t *next = &t->timer_next[ph->timer];
			uint8_t bit = (uint8_t)(1u << ph->timer);
			if (!(t->timers_armed & bit)) {
				t->timers_armed |= bit;
				*next = t->loop_start;
			}
			*next += ph->ns;
			sim_advance(t);
			if (m->now < *next) {
				sim_post(m, *next, EV_TIMER, cpu, t, 0);
				return STEP_BLOCK;
			}
			if (!ph->timer_absolute) /* missed: the next period starts now */
				*next = m->now;
			break;
		}
		case TS_PH_SEND: {
			struct sim_channel *ch = chan_of(m, t, &ph->ch);
			if (ph->pipe) {
				int st = sim_pipe_write(m, cpu, t, ph, ch);
				if (st >= 0)
					return (enum sim_step)st;
				break;
			}
			if (!t->send_bytes) {
				t->send_bytes = ph->bytes;
				if (!t->send_bytes)
					t->send_bytes =
						draw_size(m, t->cls_index == 0 ? &m->w->request_mix
									       : &m->w->reply_mix);
				if (!t->send_bytes)
					t->send_bytes = UINT32_MAX; /* a drawn 0: "drawn" marker */
			}
			uint32_t bytes = t->send_bytes == UINT32_MAX ? 0 : t->send_bytes;
			if (!sim_chan_fits(ch, bytes, m->w->channel_capacity)) {
				sim_waitq_push(&ch->senders, &t->wait);
				return STEP_BLOCK;
			}
			if (sim_chan_push(ch,
					  (struct sim_msg){.bytes = bytes, .sender_cpu = cpu})) {
				sim_fail(m, -ENOMEM, "sim: out of memory for messages");
				return STEP_EXIT;
			}
			t->send_bytes = 0;
			m->msgs_sent++;
			if (ph->count_bytes && sim_measuring(m))
				m->bytes += bytes;
			sim_advance(t);
			struct sim_wait_link *l = sim_waitq_pop(&ch->receivers);
			if (l) {
				struct sim_task *r =
					(struct sim_task *)((char *)l -
							    offsetof(struct sim_task, wait));
				sim_task_add_work(
					t, sim_wake(m, r, cpu, t, ph->sync ? TS_WF_SYNC : 0));
			}
			break;
		}
		case TS_PH_CONNECT:
			sim_advance(t);
			sim_task_add_work(t, sim_connect(m, cpu, t)); /* a wake-up */
			break;
		case TS_PH_BARRIER:
			if (m->started) { /* released (or arrived after the release) */
				sim_advance(t);
				break;
			}
			if (!t->arrived) {
				t->arrived = true;
				double cost = sim_at_barrier(m, cpu, t);
				if (cost > 0) { /* it pays the wake-up first, then waits */
					sim_task_add_work(t, cost); /* a wake-up */
					break;
				}
			}
			m->barrier[m->nr_waiting++] = t;
			return STEP_BLOCK;
		case TS_PH_FORK:
			sim_fork_phase(m, t, ph);
			break;
		case TS_PH_START_DELAY:
			if (!sim_start_delay(m, cpu, t, ph))
				return STEP_BLOCK;
			break;
		default: {
			SIM_CHECK(sim_sync_phase(ph->kind), "phase kind %d", (int)ph->kind);
			int st = sim_sync_step(m, cpu, t, ph);
			if (st >= 0)
				return (enum sim_step)st;
			break;
		}
		case TS_PH_RECV: {
			struct sim_channel *ch = chan_of(m, t, &ph->ch);
			if (ph->pipe) {
				int st = sim_pipe_read(m, cpu, t, ph, ch);
				if (st >= 0)
					return (enum sim_step)st;
				break;
			}
			struct sim_msg msg;
			if (!sim_chan_pop(ch, &msg)) {
				sim_waitq_push(&ch->receivers, &t->wait);
				return STEP_BLOCK;
			}
			m->msgs_recv++;
			sim_add_work(
				m, t,
				sim_cost_of(m, m->bulk, ts_cost_bulk_between, msg.sender_cpu, cpu) *
					msg.bytes / 1024.0,
				TS_WORK_PAYLOAD);
			*sim_cache_kib(m, cpu) += msg.bytes / 1024.0; /* the payload enters */
			sim_advance(t);
			struct sim_wait_link *l = sim_waitq_pop(&ch->senders);
			if (l) {
				struct sim_task *s =
					(struct sim_task *)((char *)l -
							    offsetof(struct sim_task, wait));
				sim_task_add_work(t, sim_wake(m, s, cpu, t, 0));
			}
			break;
		}
		}
		if (m->stop && m->error)
			return STEP_EXIT;
	}
}
