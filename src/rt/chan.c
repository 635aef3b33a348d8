/* Bounded channels. A ring buffer of `capacity` elements plus two wait queues; an element
 * goes straight from a sender to a waiting receiver (and the other way for a rendezvous
 * channel), so a woken task finds its operation done and never retries. */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ts_chan {
	rt_spinlock_t lock;
	size_t cap, elem, head, count;
	bool closed;
	struct rt_waitq senders, receivers;
	unsigned char *buf;
};

struct ts_chan *ts_chan_create(size_t capacity, size_t elem_size)
{
	if (elem_size == 0 || (capacity && elem_size > SIZE_MAX / capacity)) {
		errno = EINVAL;
		return NULL;
	}
	struct ts_chan *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cap = capacity;
	c->elem = elem_size;
	if (capacity && !(c->buf = malloc(capacity * elem_size))) {
		free(c);
		return NULL;
	}
	/* Faulted in now, not on the first lap of messages: a first touch is a page fault
	 * in the middle of a send (~12 us on our VM, whose page tables the hypervisor
	 * shadows; docs/runtime.md), and ts_chan_create() is where a program expects to
	 * pay for the capacity it asked for. A write per page through a volatile pointer:
	 * the compiler turns malloc() + memset(0) into calloc(), and glibc's calloc()
	 * leaves fresh heap pages untouched. */
	volatile unsigned char *touch = c->buf;
	for (size_t off = 0; off < capacity * elem_size; off += rt_page_size())
		touch[off] = 0;
	rt_spin_lock_init(&c->lock);
	return c;
}

void ts_chan_destroy(struct ts_chan *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c);
}

/* The i-th element from the head (i < cap). A compare, not `% cap`: a 64-bit division
 * is tens of cycles, and a message took three of them. */
static size_t ring_index(const struct ts_chan *c, size_t i)
{
	size_t k = c->head + i;
	return k >= c->cap ? k - c->cap : k;
}

static void *slot(struct ts_chan *c, size_t i)
{
	return c->buf + ring_index(c, i) * c->elem;
}

/* An element's copy: an int- or word-sized one (a pointer, an integer) in a move, without
 * memcpy()'s call through the PLT. */
static inline void elem_copy(const struct ts_chan *c, void *dst, const void *src)
{
	if (c->elem == sizeof(uint64_t))
		memcpy(dst, src, sizeof(uint64_t));
	else if (c->elem == sizeof(uint32_t))
		memcpy(dst, src, sizeof(uint32_t));
	else
		memcpy(dst, src, c->elem);
}

/* With c->lock held. 1: done, 0: would block, <0: error. *wake gets a task to wake. */
static inline __attribute__((always_inline)) int send_locked(struct ts_chan *c, const void *e,
							     struct rt_task **wake)
{
	if (c->closed)
		return rt_error(-EPIPE, "ts_chan_send: the channel is closed");
	struct rt_waiter *r = rt_waitq_pop(&c->receivers);
	if (r) { /* a receiver waits: the buffer is empty */
		elem_copy(c, r->buf, e);
		r->status = 0;
		*wake = r->task;
		rt_waiter_done(r);
		return 1;
	}
	if (c->count < c->cap) {
		elem_copy(c, slot(c, c->count++), e);
		return 1;
	}
	return 0;
}

static inline __attribute__((always_inline)) int recv_locked(struct ts_chan *c, void *e,
							     struct rt_task **wake)
{
	if (c->count) {
		elem_copy(c, e, slot(c, 0));
		c->head = ring_index(c, 1);
		c->count--;
		struct rt_waiter *s = rt_waitq_pop(&c->senders);
		if (s) { /* the buffer was full: the first blocked sender's element moves in */
			elem_copy(c, slot(c, c->count++), s->buf);
			s->status = 0;
			*wake = s->task;
			rt_waiter_done(s);
		}
		return 1;
	}
	struct rt_waiter *s = rt_waitq_pop(&c->senders);
	if (s) { /* rendezvous */
		elem_copy(c, e, s->buf);
		s->status = 0;
		*wake = s->task;
		rt_waiter_done(s);
		return 1;
	}
	if (c->closed)
		return rt_error(-EPIPE, "ts_chan_recv: the channel is closed and empty");
	return 0;
}

/* Inline: each entry point keeps only its own branches. */
static inline __attribute__((always_inline)) int chan_op(struct ts_chan *c, void *e, bool send,
							 bool block, int wake_flags)
{
	if (!c)
		return rt_error(-EINVAL, "ts_chan: NULL channel");
	struct rt_task *self = rt_current();
	if (block && !self)
		return rt_error(-EPERM,
				"ts_chan_%s: blocking call outside a task (use ts_chan_try_%s)",
				send ? "send" : "recv", send ? "send" : "recv");
	struct rt_task *wake = NULL;
	rt_spin_lock(&c->lock);
	int rc = send ? send_locked(c, e, &wake) : recv_locked(c, e, &wake);
	if (rc == 0 && !block) {
		rt_spin_unlock(&c->lock);
		return rt_error(-EAGAIN, "ts_chan_try_%s: the channel is %s",
				send ? "send" : "recv", send ? "full" : "empty");
	}
	if (rc == 0) {
		struct rt_waiter w = {.task = self, .buf = e};
		rt_waitq_push(send ? &c->senders : &c->receivers, &w);
		rt_wait_done_unlock(&c->lock, &w);
		rc = w.status;
		return rc < 0 ? rt_error(rc, "ts_chan_%s: the channel was closed",
					 send ? "send" : "recv")
			      : 0;
	}
	rt_spin_unlock(&c->lock);
	if (wake)
		rt_wake_by(self, wake, wake_flags);
	if (self && rt_g.preempt) /* a safe point: no lock held */
		ts_cond_resched();
	return rc < 0 ? rc : 0;
}

int ts_chan_send(struct ts_chan *c, const void *elem)
{
	return chan_op(c, (void *)elem, true, true, 0);
}
int ts_chan_send_sync(struct ts_chan *c, const void *elem)
{
	return chan_op(c, (void *)elem, true, true, TS_WF_SYNC);
}
int ts_chan_send_handoff(struct ts_chan *c, const void *elem)
{
	return chan_op(c, (void *)elem, true, true, TS_WF_SYNC | TS_WF_CURRENT_CPU);
}
int ts_chan_recv(struct ts_chan *c, void *elem)
{
	return chan_op(c, elem, false, true, 0);
}
int ts_chan_recv_handoff(struct ts_chan *c, void *elem)
{
	return chan_op(c, elem, false, true, TS_WF_SYNC | TS_WF_CURRENT_CPU);
}
int ts_chan_try_send(struct ts_chan *c, const void *elem)
{
	return chan_op(c, (void *)elem, true, false, 0);
}
int ts_chan_try_recv(struct ts_chan *c, void *elem)
{
	return chan_op(c, elem, false, false, 0);
}

int ts_chan_close(struct ts_chan *c)
{
	if (!c)
		return rt_error(-EINVAL, "ts_chan_close: NULL channel");
	struct rt_task *chain = NULL;
	rt_spin_lock(&c->lock);
	if (c->closed) {
		rt_spin_unlock(&c->lock);
		return rt_error(-EPIPE, "ts_chan_close: the channel is already closed");
	}
	c->closed = true;
	struct rt_waiter *w;
	while ((w = rt_waitq_pop(&c->senders))) {
		w->status = -EPIPE;
		rt_chain_add(&chain, w->task);
		rt_waiter_done(w);
	}
	while ((w = rt_waitq_pop(&c->receivers))) {
		w->status = -EPIPE;
		rt_chain_add(&chain, w->task);
		rt_waiter_done(w);
	}
	rt_spin_unlock(&c->lock);
	rt_chain_wake(chain, 0);
	return 0;
}
