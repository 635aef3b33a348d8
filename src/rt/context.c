/* Context switching between a worker's loop and its tasks, with the sanitizers told about
 * every stack switch: ASan through __sanitizer_{start,finish}_switch_fiber (else it takes
 * the task stacks for wild writes and its fake stacks leak), TSan through fibers (each
 * task is a fiber; a switch synchronises the two contexts, which is the happens-before a
 * task that moves between worker threads needs). The register switch itself is
 * ts_rt_ctx_switch (context_switch.S) on x86-64/AArch64, else ucontext (TS_RT_CTX_UCONTEXT,
 * chosen at build time). */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

#if defined(TS_RT_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(TS_RT_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#if !defined(TS_RT_CTX_UCONTEXT)
void ts_rt_ctx_switch(void **save_sp, void *load_sp);
void ts_rt_ctx_start(void);
#endif

void rt_ctx_init_thread(struct rt_ctx *c)
{
	memset(c, 0, sizeof(*c));
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstack(&a, &c->stack_lo, &c->stack_size);
		pthread_attr_destroy(&a);
	}
#if defined(TS_RT_TSAN)
	c->tsan_fiber = __tsan_get_current_fiber();
#endif
}

#if defined(TS_RT_CTX_UCONTEXT)
static void uc_trampoline(unsigned int fhi, unsigned int flo, unsigned int ahi, unsigned int alo)
{
	void (*entry)(void *) = (void (*)(void *))(((uintptr_t)fhi << 32) | flo);
	void *arg = (void *)(((uintptr_t)ahi << 32) | alo);
	entry(arg);
	abort();
}
#endif

void rt_ctx_init_task(struct rt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg,
		      void *fiber)
{
	memset(c, 0, sizeof(*c));
	c->stack_lo = lo;
	c->stack_size = size;
#if defined(TS_RT_CTX_UCONTEXT)
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = lo;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = NULL;
	uintptr_t f = (uintptr_t)entry, a = (uintptr_t)arg;
	makecontext(&c->uc, (void (*)(void))uc_trampoline, 4, (unsigned int)(f >> 32),
		    (unsigned int)f, (unsigned int)(a >> 32), (unsigned int)a);
#else
	uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
	uintptr_t x = top - 16; /* where the stack pointer is when ts_rt_ctx_start runs */
	uint64_t *sp;
#if defined(__x86_64__)
	/* [fpu ctl][r15][r14][r13][r12][rbx][rbp][ret] below x */
	sp = (uint64_t *)(x - 8 * 8);
	uint32_t mxcsr = 0x1F80;
	uint16_t fpcw = 0x037F;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fpcw));
	memset(sp, 0, 8 * 8);
	memcpy(&sp[0], &mxcsr, 4);
	memcpy((char *)&sp[0] + 4, &fpcw, 2);
	sp[4] = (uint64_t)(uintptr_t)arg;   /* r12 */
	sp[3] = (uint64_t)(uintptr_t)entry; /* r13 */
	sp[7] = (uint64_t)(uintptr_t)ts_rt_ctx_start;
#elif defined(__aarch64__)
	sp = (uint64_t *)(x - 176);
	memset(sp, 0, 176);
	uint64_t fpcr;
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	sp[0] = (uint64_t)(uintptr_t)arg;	       /* x19 */
	sp[1] = (uint64_t)(uintptr_t)entry;	       /* x20 */
	sp[11] = (uint64_t)(uintptr_t)ts_rt_ctx_start; /* x30 */
	sp[20] = fpcr;
#else
#error "no assembly context switch for this target: build with TS_RT_CTX_UCONTEXT"
#endif
	c->sp = sp;
#endif
#if defined(TS_RT_TSAN)
	c->tsan_fiber = fiber ? fiber : __tsan_create_fiber(0);
#else
	(void)fiber;
#endif
}

#if defined(TS_RT_ASAN) || defined(TS_RT_TSAN)
void *rt_ctx_keep_fiber(struct rt_ctx *c)
{
	(void)c;
#if defined(TS_RT_TSAN)
	void *f = c->tsan_fiber;
	c->tsan_fiber = NULL;
	return f;
#else
	return NULL;
#endif
}

void rt_ctx_fiber_free(void *fiber)
{
	(void)fiber;
#if defined(TS_RT_TSAN)
	if (fiber)
		__tsan_destroy_fiber(fiber);
#endif
}

void rt_ctx_destroy(struct rt_ctx *c)
{
	(void)c;
#if defined(TS_RT_TSAN)
	if (c->tsan_fiber)
		__tsan_destroy_fiber(c->tsan_fiber);
	c->tsan_fiber = NULL;
#endif
#if defined(TS_RT_ASAN)
	/* The frames a task left when it exited stay poisoned: clear them before the
	 * stack's pages can come back from mmap for another task. */
	if (c->stack_lo)
		ASAN_UNPOISON_MEMORY_REGION(c->stack_lo, c->stack_size);
#endif
}
#endif

static inline void raw_switch(struct rt_ctx *from, struct rt_ctx *to)
{
#if defined(TS_RT_TSAN)
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
#if defined(TS_RT_CTX_UCONTEXT)
	swapcontext(&from->uc, &to->uc);
#else
	ts_rt_ctx_switch(&from->sp, to->sp);
#endif
}

void rt_ctx_switch(struct rt_ctx *from, struct rt_ctx *to)
{
#if defined(TS_RT_ASAN)
	__sanitizer_start_switch_fiber(&from->asan_fake, to->stack_lo, to->stack_size);
#endif
	raw_switch(from, to);
#if defined(TS_RT_ASAN)
	__sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

void rt_ctx_switch_final(struct rt_ctx *from, struct rt_ctx *to)
{
#if defined(TS_RT_ASAN)
	__sanitizer_start_switch_fiber(NULL, to->stack_lo, to->stack_size);
#endif
	raw_switch(from, to);
	abort(); /* a finished task is never resumed */
}

#if defined(TS_RT_ASAN) || defined(TS_RT_TSAN)
void rt_ctx_entered(void)
{
#if defined(TS_RT_ASAN)
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}
#endif
