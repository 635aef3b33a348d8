/* A simulated message channel (a pipe or socket between the tasks of one workload
 * instance): a FIFO of messages bounded by a byte capacity, and two FIFO wait queues, of
 * receivers blocked on an empty channel and of senders blocked on a full one. The engine
 * decides who is woken; this file only keeps the order. */
#ifndef TOPOSCHED_SIM_CHANNEL_H
#define TOPOSCHED_SIM_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_msg {
	uint32_t bytes;
	int sender_cpu; /* where the payload is cache-hot (bulk transfer cost on receive) */
};

/* Intrusive link, embedded in the engine's task. */
struct sim_wait_link {
	struct sim_wait_link *next;
};

struct sim_waitq {
	struct sim_wait_link *head, *tail;
};

struct sim_pipe_mutex;

struct sim_channel {
	struct sim_msg *ring; /* allocated on the first push, doubled when full */
	uint32_t ring_cap, head, count;
	uint64_t bytes_queued;
	struct sim_waitq receivers, senders;
	struct sim_pipe_mutex *mutex; /* pipe->mutex of workloads whose phases lock it, or NULL */
	/* a pipe's pages (engine_pipe.c): slot_bytes[] a ring of SIM_PIPE_MAX_SLOTS */
	uint8_t slot_tail, slots;
	uint16_t slot_bytes[16];
};

#define SIM_PIPE_MAX_SLOTS 16 /* PIPE_DEF_BUFFERS, include/linux/pipe_fs_i.h */
#define SIM_PIPE_PAGE	   4096u

/* A message of `bytes` fits when the channel is unbounded (capacity 0), empty (a message
 * larger than the whole buffer still goes through an empty pipe, in pieces in reality;
 * here in one), or has room for all of it. */
static inline bool sim_chan_fits(const struct sim_channel *ch, uint32_t bytes, uint32_t capacity)
{
	return capacity == 0 || ch->count == 0 || ch->bytes_queued + bytes <= capacity;
}

/* 0 or -ENOMEM. */
int sim_chan_push(struct sim_channel *ch, struct sim_msg m);
/* false when empty. */
bool sim_chan_pop(struct sim_channel *ch, struct sim_msg *m);
void sim_chan_free(struct sim_channel *ch);

static inline void sim_waitq_push(struct sim_waitq *q, struct sim_wait_link *l)
{
	l->next = NULL;
	if (q->tail)
		q->tail->next = l;
	else
		q->head = l;
	q->tail = l;
}

static inline struct sim_wait_link *sim_waitq_pop(struct sim_waitq *q)
{
	struct sim_wait_link *l = q->head;
	if (l) {
		q->head = l->next;
		if (!q->head)
			q->tail = NULL;
		l->next = NULL;
	}
	return l;
}

#endif
