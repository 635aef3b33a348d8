/* echo_server: a request/response server between tasks, on libtoposched's public API.
 *
 * One server task answers requests sent by several client tasks: each request carries a
 * line of text and the channel on which the client waits for the answer (a per-client
 * reply channel, as a socket would be). The server echoes the text back upper-cased.
 * Every client checks every reply; when all clients are done the main thread closes the
 * request channel, which makes the server's receive fail with -EPIPE: its signal to exit.
 *
 *   build: part of the CMake build (examples/), or against the installed library:
 *   cc echo_server.c $(pkg-config --cflags --libs toposched) (scripts/check-install).
 *   run: ./echo_server [clients] [requests]
 *   exit status 0 and "all replies correct" when every reply matched. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toposched/toposched.h"

#define LINE 32

struct request {
	char text[LINE];
	struct ts_chan *reply; /* where the answer goes (elements: struct reply) */
};

struct reply {
	char text[LINE];
};

struct client {
	int id, requests;
	struct ts_chan *server; /* the server's request channel (shared by all clients) */
	int wrong;		/* replies that did not match */
};

/* The server: receive, answer, until the request channel is closed and drained. */
static void *server_main(void *arg)
{
	struct ts_chan *requests = arg;
	struct request req;
	long served = 0;
	while (ts_chan_recv(requests, &req) == 0) {
		struct reply rep;
		for (int i = 0; i < LINE; i++)
			rep.text[i] = (char)toupper((unsigned char)req.text[i]);
		/* The client waits for this reply; a full channel would block the server. */
		if (ts_chan_send(req.reply, &rep) != 0)
			break;
		served++;
	}
	return (void *)served;
}

/* A client: send a request, wait for its reply, check it; `requests` times. */
static void *client_main(void *arg)
{
	struct client *c = arg;
	struct ts_chan *mine = ts_chan_create(1, sizeof(struct reply));
	if (!mine) {
		c->wrong = c->requests;
		return NULL;
	}
	for (int i = 0; i < c->requests; i++) {
		struct request req = {.reply = mine};
		snprintf(req.text, sizeof(req.text), "hello %d from client %d", i, c->id);
		/* _sync: this task blocks on the reply right away, so the server it wakes may
		 * take over this worker (WF_SYNC, as the kernel's pipe and socket writes do). */
		struct reply rep;
		if (ts_chan_send_sync(c->server, &req) != 0 || ts_chan_recv(mine, &rep) != 0) {
			c->wrong++;
			continue;
		}
		char want[LINE];
		for (int k = 0; k < LINE; k++)
			want[k] = (char)toupper((unsigned char)req.text[k]);
		if (memcmp(want, rep.text, LINE) != 0)
			c->wrong++;
	}
	ts_chan_destroy(mine);
	return NULL;
}

int main(int argc, char **argv)
{
	int nr_clients = argc > 1 ? atoi(argv[1]) : 4;
	int requests = argc > 2 ? atoi(argv[2]) : 1000;
	if (nr_clients < 1 || nr_clients > 1000 || requests < 1) {
		fprintf(stderr, "usage: echo_server [clients 1..1000] [requests >= 1]\n");
		return 2;
	}

	/* Workers on every CPU this process may use, the host's topology, default features. */
	if (ts_rt_start(NULL) != 0) {
		fprintf(stderr, "echo_server: %s\n", ts_rt_last_error());
		return 1;
	}
	struct ts_chan *requests_chan = ts_chan_create(16, sizeof(struct request));
	struct client *clients = calloc((size_t)nr_clients, sizeof(*clients));
	ts_task_handle *h = calloc((size_t)nr_clients, sizeof(*h));
	if (!requests_chan || !clients || !h) {
		fprintf(stderr, "echo_server: out of memory\n");
		return 1;
	}

	struct ts_task_attr sattr = TS_TASK_ATTR_INIT;
	sattr.name = "server";
	ts_task_handle server = ts_spawn(server_main, requests_chan, &sattr);
	for (int i = 0; i < nr_clients; i++) {
		clients[i] =
			(struct client){.id = i, .requests = requests, .server = requests_chan};
		h[i] = ts_spawn(client_main, &clients[i], NULL);
	}
	if (!server.id) {
		fprintf(stderr, "echo_server: spawn: %s\n", ts_rt_last_error());
		return 1;
	}

	/* The main thread is a plain thread: it may join tasks and close channels. */
	int wrong = 0;
	for (int i = 0; i < nr_clients; i++) {
		if (!h[i].id || ts_join(h[i], NULL) != 0) {
			wrong += requests;
			continue;
		}
		wrong += clients[i].wrong;
	}
	ts_chan_close(requests_chan); /* the server's recv now ends with -EPIPE */
	void *served;
	ts_join(server, &served);
	ts_chan_destroy(requests_chan);
	free(clients);
	free(h);
	if (ts_rt_stop() != 0) {
		fprintf(stderr, "echo_server: %s\n", ts_rt_last_error());
		return 1;
	}

	printf("echo_server: %d clients x %d requests: %ld served, %d wrong\n", nr_clients,
	       requests, (long)served, wrong);
	if (wrong || (long)served != (long)nr_clients * requests) {
		printf("echo_server: FAILED\n");
		return 1;
	}
	printf("echo_server: all replies correct\n");
	return 0;
}
