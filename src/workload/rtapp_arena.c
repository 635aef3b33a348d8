#include "rtapp_arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct block {
	struct block *next;
	alignas(max_align_t) unsigned char data[];
};

struct ts_rtapp_arena {
	struct block *head;
};

struct ts_rtapp_arena *rtapp_arena_new(void)
{
	return calloc(1, sizeof(struct ts_rtapp_arena));
}

void *rtapp_alloc(struct ts_rtapp_arena *a, size_t n)
{
	struct block *b = calloc(1, sizeof(*b) + (n ? n : 1));
	if (!b)
		return NULL;
	b->next = a->head;
	a->head = b;
	return b->data;
}

char *rtapp_strdup(struct ts_rtapp_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = rtapp_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void rtapp_arena_free(struct ts_rtapp_arena *a)
{
	if (!a)
		return;
	for (struct block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}
