/* Task stacks: mmap'ed, with a PROT_NONE guard page below the usable range, so that an
 * overflow faults instead of writing over a neighbour. */
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

int rt_stack_alloc(struct rt_stack *st, size_t size)
{
	size_t page = rt_page_size();
	if (size < 4 * page)
		size = 4 * page;
	size = (size + page - 1) & ~(page - 1);
	size_t total = size + page;
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
	st->size = size;
	return 0;
}

void rt_stack_free(struct rt_stack *st)
{
	if (st->map)
		munmap(st->map, st->map_size);
	st->map = st->lo = NULL;
	st->map_size = st->size = 0;
}
