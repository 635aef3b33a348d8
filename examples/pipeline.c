/* pipeline: a parallel pipeline of tasks on libtoposched's public API.
 *
 *   generator --numbers--> [ K squarers, in parallel ] --squares--> summer
 *
 * The generator sends 1..N and closes its channel; K squarer tasks share that channel,
 * each receiving numbers until it is closed and drained, and send the squares on; a wait
 * group counts the squarers still running, and a small closer task closes the squares
 * channel once the count reaches zero, which ends the summer. The result is checked
 * against 1^2 + ... + N^2.
 *
 *   build: part of the CMake build (examples/), or against the installed library:
 *   cc pipeline.c $(pkg-config --cflags --libs toposched) (scripts/check-install).
 *   run: ./pipeline [N] [K]
 *   exit status 0 and "sum correct" when the sum matched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toposched/toposched.h"

struct pipeline {
	long n;
	struct ts_chan *numbers, *squares;
	struct ts_waitgroup *squarers; /* squarer tasks still running */
	uint64_t sum;		       /* the summer's result */
	long items;		       /* ... and how many squares it received */
};

static void *generator(void *arg)
{
	struct pipeline *p = arg;
	for (long i = 1; i <= p->n; i++)
		if (ts_chan_send(p->numbers, &i) != 0)
			break;
	ts_chan_close(p->numbers); /* no more numbers: receivers drain, then get -EPIPE */
	return NULL;
}

static void *squarer(void *arg)
{
	struct pipeline *p = arg;
	long x;
	while (ts_chan_recv(p->numbers, &x) == 0) { /* until closed and drained */
		uint64_t sq = (uint64_t)x * (uint64_t)x;
		if (ts_chan_send(p->squares, &sq) != 0)
			break;
	}
	ts_wg_done(p->squarers);
	return NULL;
}

/* Closes the squares channel once every squarer has finished sending. */
static void *closer(void *arg)
{
	struct pipeline *p = arg;
	ts_wg_wait(p->squarers);
	ts_chan_close(p->squares);
	return NULL;
}

static void *summer(void *arg)
{
	struct pipeline *p = arg;
	uint64_t sq;
	while (ts_chan_recv(p->squares, &sq) == 0) {
		p->sum += sq;
		p->items++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int k = argc > 2 ? atoi(argv[2]) : 4;
	if (n < 1 || n > 1000000000L || k < 1 || k > 1000) {
		fprintf(stderr, "usage: pipeline [N 1..1e9] [K squarers 1..1000]\n");
		return 2;
	}
	/* Headers of one version, a shared library of another: refuse rather than misbehave. */
	if (strcmp(ts_version(), TOPOSCHED_VERSION_STRING) != 0) {
		fprintf(stderr, "pipeline: built with libtoposched %s, running with %s\n",
			TOPOSCHED_VERSION_STRING, ts_version());
		return 1;
	}
	if (ts_rt_start(NULL) != 0) {
		fprintf(stderr, "pipeline: %s\n", ts_rt_last_error());
		return 1;
	}

	struct pipeline p = {.n = n};
	/* Bounded channels: a fast stage blocks when the next one falls behind. */
	p.numbers = ts_chan_create(64, sizeof(long));
	p.squares = ts_chan_create(64, sizeof(uint64_t));
	p.squarers = ts_wg_create();
	ts_task_handle *h = calloc((size_t)k + 3, sizeof(*h));
	if (!p.numbers || !p.squares || !p.squarers || !h) {
		fprintf(stderr, "pipeline: out of memory\n");
		return 1;
	}
	ts_wg_add(p.squarers, k); /* before any squarer can finish */

	int nr = 0;
	h[nr++] = ts_spawn(summer, &p, NULL);
	h[nr++] = ts_spawn(closer, &p, NULL);
	for (int i = 0; i < k; i++)
		h[nr++] = ts_spawn(squarer, &p, NULL);
	h[nr++] = ts_spawn(generator, &p, NULL);
	for (int i = 0; i < nr; i++)
		if (!h[i].id) {
			/* A failed spawn would leave the others waiting for ever. */
			fprintf(stderr, "pipeline: spawn: %s\n", ts_rt_last_error());
			return 1;
		}
	for (int i = 0; i < nr; i++)
		ts_join(h[i], NULL);

	ts_chan_destroy(p.numbers);
	ts_chan_destroy(p.squares);
	ts_wg_destroy(p.squarers);
	free(h);
	if (ts_rt_stop() != 0) {
		fprintf(stderr, "pipeline: %s\n", ts_rt_last_error());
		return 1;
	}

	/* The expected sum 1^2 + ... + n^2 (= n(n+1)(2n+1)/6), computed the same way, modulo
	 * 2^64, as the summer did. */
	uint64_t want = 0;
	for (uint64_t i = 1; i <= (uint64_t)n; i++)
		want += i * i;
	printf("pipeline: %ld numbers through %d squarers: %ld squares, sum %llu (want %llu)\n", n,
	       k, p.items, (unsigned long long)p.sum, (unsigned long long)want);
	if (p.items != n || p.sum != want) {
		printf("pipeline: FAILED\n");
		return 1;
	}
	printf("pipeline: sum correct\n");
	return 0;
}
