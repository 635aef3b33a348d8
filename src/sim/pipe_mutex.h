/* A pipe's pipe->mutex (fs/pipe.c) as kernel/locking/mutex.c of v5.6 runs it: a sleeping
 * lock whose contenders first spin while the owner runs (mutex_optimistic_spin(), in the
 * order of the OSQ), and otherwise sleep on the wait list until an unlock wakes the first
 * waiter through try_to_wake_up(); a woken first waiter that loses the lock again sets
 * MUTEX_FLAG_HANDOFF, and the next unlock hands the lock to it directly. The engine's part
 * (which task is where) is in pipe_mutex.c; the tasks hold these only inside a SEND or
 * RECV phase marked `locked`. */
#ifndef TOPOSCHED_SIM_PIPE_MUTEX_H
#define TOPOSCHED_SIM_PIPE_MUTEX_H

#include <stdbool.h>

#include "channel.h"

struct sim_task;

struct sim_pipe_mutex {
	struct sim_task *owner;	   /* NULL: free */
	struct sim_waitq waiters;  /* the wait list, first waiter at the head (via task->wait) */
	struct sim_task *spinners; /* the OSQ: optimistic spinners in arrival order */
	bool handoff;		   /* MUTEX_FLAG_HANDOFF: the next unlock hands it to the head */
	int release_cpu;	   /* where its last unlock ran (-1: never held) */
};

/* What a task does about a mutex (sim_task.mx_state). */
enum sim_mx_state {
	SIM_MX_NONE,
	SIM_MX_HELD,
	SIM_MX_SPIN,   /* spinning on its CPU while the owner runs */
	SIM_MX_ASLEEP, /* blocked on the wait list */
	SIM_MX_WOKEN,  /* on the wait list, woken by an unlock, not yet retried */
};

enum sim_mx_lock { SIM_MX_ACQUIRED, SIM_MX_SPINNING, SIM_MX_SLEEPING };

#endif
