/* SEND and RECV on a pipe (ts_phase.pipe) as fs/pipe.c of v5.6 runs pipe_write() and
 * pipe_read() (the rules since 0ddad21d3e99 "pipe: use exclusive waits when reading or
 * writing", v5.5, until "pipe_read: don't wake up the writer if the pipe is still full",
 * Oleg Nesterov, 2025):
 *  - each call holds pipe->mutex (pipe_mutex.c) for the phase's `ns`;
 *  - the data sits in page slots (pipe->max_usage = capacity / 4 KiB, 16 by default); a
 *    write into a non-empty pipe first tries to merge into the last page
 *    (PIPE_BUF_FLAG_CAN_MERGE, offset + chars <= PAGE_SIZE), else it needs a free slot: 40
 *    writes of 100 B share one page, and a read frees a slot only with its page's last
 *    bytes;
 *  - a writer wakes the reader (one, exclusive, sync) after its unlock when the pipe was
 *    empty as it took the lock; a reader wakes one writer after its unlock when the pipe
 *    was full as it took the lock, even if it is still full (the woken writer then finds
 *    pipe_writable() false in wait_event_interruptible_exclusive() and sleeps again); a
 *    writer that had waited wakes the next writer when it leaves the pipe not full
 *    (wake_next_writer); a writer merges only before its first wait. */
#include <stddef.h>

#include "engine.h"

static struct sim_task *waiter_of(struct sim_wait_link *l)
{
	return (struct sim_task *)((char *)l - offsetof(struct sim_task, wait));
}

static bool pipe_full(const struct sim *m, const struct sim_channel *ch)
{
	return ch->slots >= m->w->channel_capacity / SIM_PIPE_PAGE;
}

/* One task of q woken from cpu by t (wake_up_interruptible_sync_poll(): WF_SYNC). */
static double wake_one(struct sim *m, int cpu, struct sim_task *t, struct sim_waitq *q)
{
	struct sim_wait_link *l = sim_waitq_pop(q);
	return l ? sim_wake(m, waiter_of(l), cpu, t, TS_WF_SYNC) : 0;
}

/* __pipe_lock(): -1 once t holds the mutex, else the step (a spin is a segment). */
static int pipe_lock(struct sim *m, int cpu, struct sim_task *t, struct sim_channel *ch)
{
	switch (sim_mx_lock(m, cpu, t, ch->mutex)) {
	case SIM_MX_SPINNING:
		sim_start_segment(m, cpu);
		return STEP_SEGMENT;
	case SIM_MX_SLEEPING:
		return STEP_BLOCK;
	case SIM_MX_ACQUIRED:
	default:
		t->mx_stage = 1;
		return -1;
	}
}

/* __pipe_unlock(); the CPU time of the wake-up it makes goes to t. */
static void pipe_unlock(struct sim *m, int cpu, struct sim_task *t)
{
	sim_task_add_work(t, sim_mx_unlock(m, cpu, t)); /* a wake-up */
	t->mx_stage = 0;
}

/* The call returns to user space: a wake-up that preempts t on its own CPU (a WF_SYNC
 * wakee on the waker's CPU) takes effect here (exit_to_usermode_loop()), before t's next
 * system call. With CPU time of the wake-ups still to run, the engine's resched at the
 * end of the handler does it; with none, t would otherwise enter its next call (and, at
 * pipe->mutex, hold the preemption until that call's unlock). */
static int syscall_exit(struct sim *m, int cpu, const struct sim_task *t)
{
	if (m->cpu[cpu].need_resched && t->work == 0)
		return STEP_YIELD;
	return -1;
}

int sim_pipe_write(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph,
		   struct sim_channel *ch)
{
	uint16_t *last = &ch->slot_bytes[(ch->slot_tail + ch->slots + SIM_PIPE_MAX_SLOTS - 1) %
					 SIM_PIPE_MAX_SLOTS];
	if (t->mx_stage == 0) {
		/* woken on pipe->wr_wait: pipe_writable() is checked without the lock (not
		 * again once it is at the mutex) */
		if (t->pipe_waited && t->mx_state == SIM_MX_NONE && pipe_full(m, ch)) {
			sim_waitq_push(&ch->senders, &t->wait);
			return STEP_BLOCK;
		}
		return pipe_lock(m, cpu, t, ch);
	}
	if (t->mx_stage == 1) {
		bool was_empty = ch->count == 0;
		t->pipe_merge = !t->pipe_waited && !was_empty && *last + ph->bytes <= SIM_PIPE_PAGE;
		if (!t->pipe_merge && pipe_full(m, ch)) { /* unlock, then wait for a free slot */
			pipe_unlock(m, cpu, t);
			t->pipe_waited = true;
			sim_waitq_push(&ch->senders, &t->wait);
			return STEP_BLOCK;
		}
		t->pipe_was = was_empty;
		/* the write itself, holding the lock */
		sim_add_work(m, t, (double)ph->ns, TS_WORK_PROGRAM);
		t->mx_stage = 2;
		return -1;
	}
	if (t->pipe_merge) {
		*last = (uint16_t)(*last + ph->bytes);
	} else {
		ch->slot_bytes[(ch->slot_tail + ch->slots) % SIM_PIPE_MAX_SLOTS] =
			(uint16_t)ph->bytes;
		ch->slots++;
	}
	if (sim_chan_push(ch, (struct sim_msg){.bytes = ph->bytes, .sender_cpu = cpu})) {
		sim_fail(m, -ENOMEM, "sim: out of memory for messages");
		return STEP_EXIT;
	}
	m->msgs_sent++;
	if (ph->count_bytes && sim_measuring(m))
		m->bytes += ph->bytes;
	bool wake_next_writer = t->pipe_waited && !pipe_full(m, ch);
	t->pipe_waited = false;
	sim_advance(t);
	pipe_unlock(m, cpu, t);
	if (t->pipe_was)
		sim_task_add_work(t, wake_one(m, cpu, t, &ch->receivers));
	if (wake_next_writer)
		sim_task_add_work(t, wake_one(m, cpu, t, &ch->senders));
	return syscall_exit(m, cpu, t);
}

int sim_pipe_read(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph,
		  struct sim_channel *ch)
{
	if (t->mx_stage == 0)
		return pipe_lock(m, cpu, t, ch);
	if (t->mx_stage == 1) {
		bool was_full = pipe_full(m, ch);
		struct sim_msg msg;
		if (!sim_chan_pop(ch, &msg)) { /* unlock, then wait for a write */
			pipe_unlock(m, cpu, t);
			sim_waitq_push(&ch->receivers, &t->wait);
			return STEP_BLOCK;
		}
		uint16_t *first = &ch->slot_bytes[ch->slot_tail];
		*first = (uint16_t)(*first - msg.bytes);
		if (*first == 0) { /* the page's last bytes: its slot is free */
			ch->slot_tail = (uint8_t)((ch->slot_tail + 1) % SIM_PIPE_MAX_SLOTS);
			ch->slots--;
		}
		m->msgs_recv++;
		sim_add_work(m, t,
			     sim_cost_of(m, m->bulk, ts_cost_bulk_between, msg.sender_cpu, cpu) *
				     msg.bytes / 1024.0,
			     TS_WORK_PAYLOAD);
		*sim_cache_kib(m, cpu) += msg.bytes / 1024.0; /* the payload enters */
		/* the read, holding the lock */
		sim_add_work(m, t, (double)ph->ns, TS_WORK_PROGRAM);
		t->pipe_was = was_full;
		t->mx_stage = 2;
		return -1;
	}
	sim_advance(t);
	pipe_unlock(m, cpu, t);
	if (t->pipe_was) /* even if the pipe is still full */
		sim_task_add_work(t, wake_one(m, cpu, t, &ch->senders));
	return syscall_exit(m, cpu, t);
}
