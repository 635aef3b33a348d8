/* Per-syscall CPU costs that both the workload programs (workloads.c) and the cost model
 * (cost_model.c, which derives Kunpeng 920's ctx_switch from lmbench lat_pipe) use. */
#ifndef TOPOSCHED_SIM_SYSCALL_COSTS_H
#define TOPOSCHED_SIM_SYSCALL_COSTS_H

/* SYSCALL_PIPE_NS: one read(2) or write(2) of a small message on a pipe, excluding the
 *   wake-up and the copy of the payload to another CPU (both the engine's): syscall entry
 *   and exit (~0.1-0.2 us with today's mitigations), fdget, pipe->mutex, appending to or
 *   consuming from a pipe_buffer page. estimate: 0.4 us on a 2-3 GHz server core. */
#define SYSCALL_PIPE_NS 400

#endif
