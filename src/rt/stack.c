/* Task stacks: mmap'ed, with a PROT_NONE guard page below the usable range, so that an
 * overflow faults instead of writing over a neighbour. The highest bytes of the mapping
 * can be kept out of the stack for its owner's struct (task.c), which then shares the
 * page the stack's first frame is written on: one page faulted in per new task instead
 * of that page and a share of a heap page (a first touch costs 10-15 us in a guest). */
#include "rt_internal.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_STACK
#define MAP_STACK 0
#endif

size_t rt_page_size(void)
{
	static size_t page;
	size_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);
	if (!p) {
		long v = sysconf(_SC_PAGESIZE);
		p = v > 0 ? (size_t)v : 4096;
		__atomic_store_n(&page, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* The stack's bytes, the kept ones included: whole pages, at least 4 of stack. */
static size_t stack_bytes(size_t size, size_t top)
{
	size_t page = rt_page_size();
	if (size < 4 * page)
		size = 4 * page;
	return (size + RT_STACK_TOP(top) + page - 1) & ~(page - 1);
}

size_t rt_stack_map_size(size_t size, size_t top)
{
	return rt_page_size() + stack_bytes(size, top);
}

int rt_stack_alloc(struct rt_stack *st, size_t size, size_t top)
{
	size_t page = rt_page_size(), bytes = stack_bytes(size, top);
	size_t total = page + bytes;
	void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		       -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	if (mprotect(m, page, PROT_NONE)) {
		int e = errno;
		munmap(m, total);
		return -e;
	}
	st->map = m;
	st->map_size = total;
	st->lo = (char *)m + page;
	st->size = bytes - RT_STACK_TOP(top); /* the kept bytes start at lo + size */
	st->fiber = NULL;
	st->fiber_uses = 0;
	return 0;
}

void rt_stack_free(struct rt_stack *st)
{
	if (st->map)
		munmap(st->map, st->map_size);
	st->map = st->lo = NULL;
	st->map_size = st->size = 0;
}
