/* The simulator's built-in workloads: each benchmark the kernel threads ran, written as data
 * (struct ts_workload of toposched/sim.h). docs/workloads.md describes every one: what it
 * models, its task classes and phases, the parameters, the metric, what `load` counts, the
 * sources and what the model leaves out.
 *
 * Each workload names the benchmark's own source (repository, file, commit) and the harness
 * that runs it (mmtests, schedtests). A value those do not give is marked "estimate:" with
 * its reasoning. No value here was chosen or adjusted by looking at a benchmark's result:
 * published per-op totals (tbench
 * 9.5-16.6 us per op, netperf ~12.5 us per transaction on Kunpeng) are results of the whole
 * system and are used nowhere below.
 *
 * What the engine adds by itself (docs/model.md) and the RUN phases therefore leave out:
 * context switches, cache refill after a migration or an eviction, the cross-CPU transfer
 * of message payload (per KiB), wake-up signalling and idle-exit latency, idle-scan probes.
 * RUN phases model only the CPU work the benchmark's own code path does: syscall entry and
 * exit, protocol/pipe bookkeeping, user-space work.
 *
 * Conventions the descriptions rely on:
 * - A SEND with bytes == 0 draws its size from request_mix when the sending class is the
 *   workload's first class (the requester) and from reply_mix otherwise (tbench only).
 * - `per_instance` channel offsets are the task's index within its class (receiver j of a
 *   hackbench group reads channel j).
 * - Every program balances its channels for any common iteration count, so that
 *   ts_sim_config.iterations (which overrides every class's count) never strands a task;
 *   tests/test_workloads.c checks it by a symbolic walk.
 * - RUN times are TS_DIST_FIXED: they are mean costs of fixed code paths and no published
 *   distribution exists; variability comes from message sizes and the engine. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "toposched/sim.h"

#include "syscall_costs.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- per-operation CPU costs shared by several workloads (all estimates) ----------------
 *
 * SYSCALL_PIPE_NS (syscall_costs.h): one read(2) or write(2) of a small message on a pipe.
 * SYSCALL_UNIX_NS: the same on an AF_UNIX stream socket: unix_stream_sendmsg allocates an skb
 *   per write (alloc_skb, skb_copy_datagram_from_iter, queue under the receiver's lock),
 *   unix_stream_read_generic dequeues, copies and frees it. estimate: twice the pipe path
 *   for the per-message skb allocation and free, 0.8 us.
 * SYSCALL_FUTEX_NS: one FUTEX_WAKE or FUTEX_WAIT syscall plus the user-space atomic around
 *   it, excluding the wake-up itself. estimate: 0.3 us (a syscall plus a futex hash-bucket
 *   lock).
 * TCP_SEND_NS: send(2) of a small segment on loopback TCP with TCP_NODELAY. On loopback the
 *   sender's CPU runs the whole transmit path and, in the softirq at local_bh_enable, the
 *   whole receive path (tcp_sendmsg -> __tcp_transmit_skb -> ip_queue_xmit -> loopback_xmit
 *   -> netif_rx -> net_rx_action -> ip_rcv -> tcp_v4_rcv -> tcp_rcv_established -> queue and
 *   sk_data_ready): two protocol-stack passes plus skb allocation. estimate: 3 us.
 * TCP_RECV_NS: recv(2) of a queued segment: lock_sock, tcp_recvmsg, skb free,
 *   tcp_cleanup_rbuf (the ACK rides on the next data segment in a request/response
 *   exchange). estimate: 1 us.
 * UDP: we found no published basis for a different per-message cost (netperf's
 *   doc/netperf.texi names only the recvfrom/sendto asymmetry), so UDP_RR uses the TCP figures; see
 * netperf below. */
/* SYSCALL_ENTRY_NS: of a pipe syscall, the part outside pipe->mutex (entry, exit, fdget):
 *   the midpoint of the 0.1-0.2 us above. estimate.
 * PIPE_LOCKED_NS: what hackbench's pipe_write() and pipe_read() do holding pipe->mutex (the
 *   100-B copy into or out of the last page, the pipe_buffer bookkeeping). calibrated: the
 *   one pipe-cost parameter the SIS_PROP-era point allows, fitted to hackbench-process-pipes
 *   at 1 group, Amean 0.3023 s (2-socket Broadwell, 10,000 loops; Mel Gorman's SIS_OVERLOAD
 *   RFC, linux-kernel, 20 Mar 2020): one group is serialised on the mutex, so its time is
 *   the hold time. 275 ns gave 0.3021 s (seed 1, 3 iterations, 1,000 loops x 10; 250, the
 *   estimate it replaces, 0.2790 s); with the wake-up's window (sim_wake()) 0.3066 s, and
 *   270 ns gives 0.3025 s. */
#define SYSCALL_ENTRY_NS 150
#define PIPE_LOCKED_NS	 270
#define SYSCALL_UNIX_NS	 800
#define SYSCALL_FUTEX_NS 300
#define TCP_SEND_NS	 3000
#define TCP_RECV_NS	 1000
/* TCP_CONNECT_NS: connect(2) on loopback at the start: the caller's CPU runs the whole
 *   three-way handshake (SYN, SYN-ACK and ACK, each one transmit and, in the softirq, one
 *   receive pass: what TCP_SEND_NS is for one data segment). estimate: 3 x TCP_SEND_NS. */
#define TCP_CONNECT_NS (3 * TCP_SEND_NS)

/* Footprint of a task that loops on syscalls with small messages (netperf, tbench, hackbench,
 * pipe, schbench's message thread): the touched part of its kernel stack, task_struct,
 * file/socket/pipe structures, user stack and loop code; the payload is charged separately
 * by the engine. estimate: 16 KiB. */
#define SYSCALL_LOOP_FOOTPRINT_KIB 16

/* Phase constructors. */
/* clang-format off */
#define RUN(t) { .kind = TS_PH_RUN, .ns = (t), .dist = TS_DIST_FIXED }
#define SLEEP(t) { .kind = TS_PH_SLEEP, .ns = (t), .dist = TS_DIST_FIXED }
#define MARK() { .kind = TS_PH_MARK }
#define SEND(c, b, s) { .kind = TS_PH_SEND, .ch = { .chan = (c) }, .bytes = (b), .sync = (s) }
#define SEND_COUNTED(c, b, s)                                                                  \
	{ .kind = TS_PH_SEND, .ch = { .chan = (c) }, .bytes = (b), .sync = (s), .count_bytes = true }
#define RECV(c) { .kind = TS_PH_RECV, .ch = { .chan = (c) } }
#define RECV_OWN(c) { .kind = TS_PH_RECV, .ch = { .chan = (c), .per_instance = true } }
#define CONNECT() { .kind = TS_PH_CONNECT }
#define BARRIER() { .kind = TS_PH_BARRIER }
/* clang-format on */

/* ---- tbench (sahlberg/dbench a8e1c0f: sockio.c, tbench_srv.c, dbench.c, child.c) -------
 *
 * tbench N: N dbench client processes, each with one TCP connection to its own forked
 * tbench_srv child (N fixed pairs), TCP_NODELAY, loopback; each client replays client.txt
 * with no think time; every op is one synchronous exchange: the client writes the request,
 * blocks reading the reply header and body (recv MSG_WAITALL), the server reads header and
 * body and writes back the requested number of bytes. One request in flight per pair.
 * Metric: aggregate MB/s (1e6 B) of ReadX reply and WriteX request payload over all clients.
 *
 * Channels per pair: 0 = request (client -> server), 1 = reply (server -> client).
 * Wake-ups are WF_SYNC: TCP's sk_data_ready is sock_def_readable, which uses
 * wake_up_interruptible_sync_poll (in the thread on "sched/fair: no sync wakeup from
 * interrupt context", Message-Id <20220711224704.1672831-1-libo.chen@oracle.com>, K Prateek
 * Nayak's tbench runs show removing the sync affinity halving 1-8 client throughput).
 *
 * Op mix (derived from Debian's dbench 4.0-2.1 /usr/share/dbench/client.txt by the size
 * rules of sockio.c): per op its share (weight, in 0.1 % units), average request and reply
 * bytes. Rename's request is not broken out in that analysis ("Flush, Rename, Lock/Unlock
 * ... ~41-210"); estimate: 210 B, the top of that
 * range, since by the size rules (47 + 2*len(old) + 2*len(new)) Rename is the only one of the
 * three with file names and Flush/LockX have fixed 41/51 B requests. ReadX replies and
 * WriteX requests use the loadfile's averages (11,912 and 25,779 B); of the rest of the
 * distribution only the median (4 KiB) and maximum (60/64 KiB) are kept.
 * Weighted means: request 2,302 B, reply 3,299 B (the whole loadfile: 2.3 KB / 3.3 KB).
 *
 * Both SENDs count their bytes: WriteX payload rides in requests and ReadX payload in
 * replies, and request and reply sizes are drawn independently from the two mixes, so no
 * single SEND carries all the payload. The counted bytes are therefore every request and
 * reply byte, 5,601 B per op on average against 5,419 B of ReadX/WriteX payload (the
 * whole loadfile: ~5,430): the model's MB/s reads 3.4 % above what tbench would print for the
 * same op rate, a constant factor that cancels in comparisons of configurations.
 *
 * CPU work per op (estimates, see the constants above):
 *   client: parse the next loadfile line and build the request (estimate: 1 us of user
 *     space: dbench tokenises one text line per op), send (TCP_SEND_NS); after the reply
 *     two recv calls, header and body (2 x TCP_RECV_NS).
 *   server: two recv calls (header, body), negligible user work (estimate: 0.2 us: it only
 *     reads the wanted reply length from the header), send of the reply (TCP_SEND_NS).
 * MARK: one per op (dbench's op count), raw count only; the metric is bytes.
 *
 * Start (dbench.c create_procs(), sockio.c nb_setup(), tbench_srv.c listener()): tbench_srv
 * waits in accept() before the run; tbench's main process (the launcher) forks the N clients
 * one after another; each client connects (open_socket_out), does one 8-byte exchange with
 * its server (do_packets(8, 8)) and waits at the semaphore barrier (semop, wait for zero);
 * the listener accepts each connection and forks that client's server from its own CPU;
 * the launcher looks at the barrier after its last fork and then every 100 ms
 * (usleep(100*1000)) and releases every client at once when all wait. */
#define TBENCH_CLIENT_PARSE_NS 1000
#define TBENCH_SERVER_WORK_NS  200
#define TBENCH_SETUP_BYTES     8
#define TBENCH_BARRIER_POLL_NS (100ULL * 1000 * 1000)
/* The warm-up after the release (docs/workloads.md, "The release transient"): the barrier
 * wakes every client at one instant, while fork balancing had put some clients on the CPU
 * of an earlier one asleep at the barrier; with as many tasks as CPUs (16 clients on
 * Kunpeng 920 node 0) under SIS_CLUSTER the displaced tasks chase each other through
 * recent_used_cpu until each has a CPU of its own. Measured, 40 seeds: 10, 5, 2 and 0 runs
 * still migrating at 100, 150, 200 and 250 ms after the release. The published runs last
 * 120 s, so the window opens at the first of those steps that none outlasted. */
#define TBENCH_WARMUP_NS (250ULL * 1000 * 1000)

static const uint32_t tbench_req_bytes[] = {
	59,    /* ReadX */
	153,   /* NTCreateX */
	135,   /* QUERY_PATH_INFORMATION */
	47,    /* Close */
	25779, /* WriteX */
	114,   /* FIND_FIRST */
	123,   /* Unlink */
	59,    /* QUERY_FS_INFORMATION */
	59,    /* QUERY_FILE_INFORMATION */
	71,    /* SET_FILE_INFORMATION */
	41,    /* Flush */
	210,   /* Rename (estimate, see above) */
	51,    /* LockX/UnlockX */
};
static const uint32_t tbench_reply_bytes[] = {
	11912, /* ReadX */
	87,    /* NTCreateX */
	71,    /* QUERY_PATH_INFORMATION */
	39,    /* Close */
	55,    /* WriteX */
	517,   /* FIND_FIRST */
	39,    /* Unlink */
	71,    /* QUERY_FS_INFORMATION */
	71,    /* QUERY_FILE_INFORMATION */
	47,    /* SET_FILE_INFORMATION */
	39,    /* Flush */
	39,    /* Rename */
	39,    /* LockX/UnlockX */
};
/* shares in 0.1 % (client.txt: 27.1, 17.3, 15.7, 12.7, 8.6, 6.1, 3.5, 2.9, 2.8, 1.4, 1.2, 0.7,
 * 0.1 %; they sum to 100.1 % by rounding) */
static const uint32_t tbench_op_weight[] = {271, 173, 157, 127, 86, 61, 35, 29, 28, 14, 12, 7, 1};

_Static_assert(sizeof(tbench_req_bytes) == sizeof(tbench_op_weight), "tbench mix");
_Static_assert(sizeof(tbench_reply_bytes) == sizeof(tbench_op_weight), "tbench mix");

static const struct ts_phase tbench_client_setup[] = {
	RUN(TCP_CONNECT_NS),
	CONNECT(),
	RUN(TCP_SEND_NS),
	SEND(0, TBENCH_SETUP_BYTES, true),
	RECV(1),
	RUN(2 * TCP_RECV_NS),
	BARRIER(),
};
static const struct ts_phase tbench_server_setup[] = {
	RECV(0),
	RUN(2 * TCP_RECV_NS + TBENCH_SERVER_WORK_NS + TCP_SEND_NS),
	SEND(1, TBENCH_SETUP_BYTES, true),
};
static const struct ts_phase tbench_client_phases[] = {
	RUN(TBENCH_CLIENT_PARSE_NS + TCP_SEND_NS),
	SEND_COUNTED(0, 0, true), /* request, size from request_mix */
	RECV(1),
	RUN(2 * TCP_RECV_NS),
	MARK(),
};
static const struct ts_phase tbench_server_phases[] = {
	RECV(0), RUN(2 * TCP_RECV_NS + TBENCH_SERVER_WORK_NS + TCP_SEND_NS),
	SEND_COUNTED(1, 0, true), /* reply, size from reply_mix */
};
static const struct ts_task_class tbench_classes[] = {
	{.name = "client",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = tbench_client_phases,
	 .nr_phases = NELEM(tbench_client_phases),
	 .prologue = tbench_client_setup,
	 .nr_prologue = NELEM(tbench_client_setup)},
	{.name = "server",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = tbench_server_phases,
	 .nr_phases = NELEM(tbench_server_phases),
	 .prologue = tbench_server_setup,
	 .nr_prologue = NELEM(tbench_server_setup),
	 .spawn = TS_SPAWN_ACCEPT,
	 .spawn_from = 0},
};

/* Socket buffers: with one message in flight the limit never binds; estimate: 4 MiB, the
 * default tcp_wmem maximum that autotuning grows to, above the largest message (64 KiB). */
#define TCP_BUFFER_BYTES (4u << 20)

/* ---- netperf TCP_RR / UDP_RR (HewlettPackard/netperf afc51ff, doc/netperf.texi) ---------
 *
 * N concurrent `netperf -t TCP_RR` (or UDP_RR) each with its forked netserver child: N pairs.
 * One transaction = the client sends a request, the server answers, the client waits for
 * the answer; default 1-byte request and 1-byte response (-r 1,1), one transaction
 * outstanding, no think time. Metric: transactions/s per pair (mmtests treats each pair as
 * one sample, so patch-thread tables quote the per-pair mean).
 *
 * Channels per pair: 0 = request, 1 = response. Wake-ups WF_SYNC (sock_def_readable for
 * TCP and UDP alike). CPU work: a send and a recv per message per side (TCP_SEND_NS,
 * TCP_RECV_NS); MARK after the client has the response.
 *
 * TCP_RR and UDP_RR share these phases and differ only in name: we found no published
 * figure for the per-message cost of the UDP path against the TCP path (the UDP send/receive
 * path is lighter, with no ACK or congestion state, but by how much is not measured),
 * and inventing a ratio would decide the comparison the model is meant to answer. What the
 * patch threads compare is the scheduler's placement of the same 1:1 ping-pong under both.
 *
 * Start: netserver waits in accept() before the run (netserver.c accept_connections()); the
 * harness's shell (the launcher) starts the N netperf processes one after another; each
 * connects (prologue: TCP_CONNECT_NS, CONNECT) and goes straight into its transactions;
 * netserver forks a child per accepted connection (spawn_child_process()), the pair's
 * server, from its own CPU. netperf's separate data connection, accepted by that child,
 * forks nothing and is folded into the one connect. */
static const struct ts_phase netperf_connect[] = {RUN(TCP_CONNECT_NS), CONNECT()};
static const struct ts_phase netperf_client_phases[] = {
	RUN(TCP_SEND_NS), SEND(0, 1, true), RECV(1), RUN(TCP_RECV_NS), MARK(),
};
static const struct ts_phase netperf_server_phases[] = {
	RECV(0),
	RUN(TCP_RECV_NS + TCP_SEND_NS),
	SEND(1, 1, true),
};
static const struct ts_task_class netperf_classes[] = {
	{.name = "netperf",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = netperf_client_phases,
	 .nr_phases = NELEM(netperf_client_phases),
	 .prologue = netperf_connect,
	 .nr_prologue = NELEM(netperf_connect)},
	{.name = "netserver",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = netperf_server_phases,
	 .nr_phases = NELEM(netperf_server_phases),
	 .spawn = TS_SPAWN_ACCEPT,
	 .spawn_from = 0},
};

/* ---- hackbench (rt-tests src/hackbench/hackbench.c; tools/perf/bench/sched-messaging.c) --
 *
 * hackbench -g G [-p] -l L (and perf bench sched messaging, a port with the same defaults):
 * each group has num_fds = 20 receivers and 20 senders; one fd pair per receiver, the 20
 * senders share the write ends; sender: for i in loops: for j in 20 receivers: write(fd[j],
 * 100 B); receiver: reads 20 x loops messages of 100 B. Default loops = 100 (-l; mmtests
 * runs perf bench sched messaging -l 100), size 100 B (-s). No traffic crosses groups.
 * Writers wake readers with sync wake-ups (pipe_write and unix sockets alike), so SENDs carry
 * WF_SYNC even though the sender keeps writing; the kernel gives the hint all the same.
 * A full buffer blocks the writer. Metric: time from the start until every task finished.
 *
 * Channels per group: j = receiver j's pipe (or socket), 0..19. One iteration = one pass of
 * the sender's outer loop (20 writes, one to each receiver) or 20 reads by a receiver, so
 * `iterations` = hackbench's loops and both classes run the same count (each receiver gets
 * loops messages from each of 20 senders). CPU work: one write or read syscall per message.
 *
 * Process (-P, default) vs thread (-T) mode makes no difference in this model: the engine
 * charges the same context switch either way (the kernel skips switch_mm between threads of
 * one process, which the model does not separate). Both variants start every task within
 * the first tick (the engine's start jitter), like hackbench's "wake" fd releasing its
 * thundering herd.
 *
 * hackbench: pipes (-p), the variant the kernel threads report as hackbench-process-pipes.
 *   Capacity: the default pipe buffer, 16 pages = 64 KiB (PIPE_DEF_BUFFERS,
 *   include/linux/pipe_fs_i.h: 40 messages of 100 B per page; 100-B writes merge into the
 *   last page). Its writes and reads are `pipe` phases: pipe->mutex, the page slots and the
 *   wake-up rules of fs/pipe.c in v5.6 (engine_pipe.c; docs/workloads.md).
 * hackbench-socket: AF_UNIX socketpair, hackbench's own default. The limit is the
 *   socket's send-buffer accounting. estimate from the kernel's
 *   defaults: sk_sndbuf = net.core.wmem_default = 212,992 B, charged per skb at its
 *   truesize; a 100-B write is one skb of ~768 B truesize (100 B rounded into a kmalloc-512
 *   data area, less skb_shared_info, plus the sk_buff and shared info overhead), and
 *   sock_alloc_send_pskb blocks once the charge reaches sk_sndbuf: ceil(212992 / 768) = 278
 *   messages queued per receiver socket, expressed in payload bytes as 278 x 100 = 27,800. */
/* Run to completion: the metric is the time to finish, so the run ends when the last task
 * has done its loops, as hackbench's does; `toposched sim`'s --duration caps a time-to-finish
 * run and its 100 ms default would cut it short from 79 groups on. The cap is the engine's
 * own minute (TS_SIM_TIME_CAP_NS), as for the autonuma programs. */
#define HB_CAP_NS (60ULL * 1000000000ULL)
/* The group counts mmtests' hackbench-process-pipes ran on the 80-CPU Broadwell of Mel
 * Gorman's SIS_OVERLOAD RFC mail (Mar 2020), which reports each of them: the default loads. */
#define HB_MMTESTS_GROUPS	 "1,4,7,12,21,30,48,79,110,141,172,203,234,265,296"
#define HB_FDS			 20
#define HB_MSG_BYTES		 100
#define HB_LOOPS		 100
#define PIPE_BUFFER_BYTES	 65536u
#define UNIX_SOCKET_BUFFER_BYTES (278u * HB_MSG_BYTES)

#define HB_WRITE(cost, j) RUN(cost), SEND(j, HB_MSG_BYTES, true)
#define HB_WRITE_ALL(cost)                                                                         \
	HB_WRITE(cost, 0), HB_WRITE(cost, 1), HB_WRITE(cost, 2), HB_WRITE(cost, 3),                \
		HB_WRITE(cost, 4), HB_WRITE(cost, 5), HB_WRITE(cost, 6), HB_WRITE(cost, 7),        \
		HB_WRITE(cost, 8), HB_WRITE(cost, 9), HB_WRITE(cost, 10), HB_WRITE(cost, 11),      \
		HB_WRITE(cost, 12), HB_WRITE(cost, 13), HB_WRITE(cost, 14), HB_WRITE(cost, 15),    \
		HB_WRITE(cost, 16), HB_WRITE(cost, 17), HB_WRITE(cost, 18), HB_WRITE(cost, 19)
#define HB_READ(cost) RECV_OWN(0), RUN(cost)
/* hackbench -p: each write and read takes the pipe's pipe->mutex for PIPE_LOCKED_NS */
#define HB_PIPE_WRITE(j)                                                                           \
	RUN(SYSCALL_ENTRY_NS),                                                                     \
	{                                                                                          \
		.kind = TS_PH_SEND, .ch = {.chan = (j)}, .bytes = HB_MSG_BYTES, .sync = true,      \
		.pipe = true, .ns = PIPE_LOCKED_NS                                                 \
	}
#define HB_PIPE_WRITE_ALL                                                                          \
	HB_PIPE_WRITE(0), HB_PIPE_WRITE(1), HB_PIPE_WRITE(2), HB_PIPE_WRITE(3), HB_PIPE_WRITE(4),  \
		HB_PIPE_WRITE(5), HB_PIPE_WRITE(6), HB_PIPE_WRITE(7), HB_PIPE_WRITE(8),            \
		HB_PIPE_WRITE(9), HB_PIPE_WRITE(10), HB_PIPE_WRITE(11), HB_PIPE_WRITE(12),         \
		HB_PIPE_WRITE(13), HB_PIPE_WRITE(14), HB_PIPE_WRITE(15), HB_PIPE_WRITE(16),        \
		HB_PIPE_WRITE(17), HB_PIPE_WRITE(18), HB_PIPE_WRITE(19)
#define HB_PIPE_READ                                                                               \
	{.kind = TS_PH_RECV,                                                                       \
	 .ch = {.chan = 0, .per_instance = true},                                                  \
	 .pipe = true,                                                                             \
	 .ns = PIPE_LOCKED_NS},                                                                    \
		RUN(SYSCALL_ENTRY_NS)
#define HB_PIPE_READ_ALL                                                                           \
	HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ,        \
		HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ,              \
		HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ,              \
		HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ, HB_PIPE_READ
#define HB_READ_ALL(cost)                                                                          \
	HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost),  \
		HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost),         \
		HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost),         \
		HB_READ(cost), HB_READ(cost), HB_READ(cost), HB_READ(cost)

static const struct ts_phase hb_wait_start[] = {BARRIER()};
static const struct ts_phase hb_pipe_sender_phases[] = {HB_PIPE_WRITE_ALL};
static const struct ts_phase hb_pipe_receiver_phases[] = {HB_PIPE_READ_ALL};
static const struct ts_phase hb_sock_sender_phases[] = {HB_WRITE_ALL(SYSCALL_UNIX_NS)};
static const struct ts_phase hb_sock_receiver_phases[] = {HB_READ_ALL(SYSCALL_UNIX_NS)};

_Static_assert(sizeof(hb_pipe_sender_phases) / sizeof(struct ts_phase) == 2 * HB_FDS, "hb");
_Static_assert(sizeof(hb_pipe_receiver_phases) / sizeof(struct ts_phase) == 2 * HB_FDS, "hb");

static const struct ts_task_class hb_pipe_classes[] = {
	{.name = "sender",
	 .count = HB_FDS,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = hb_pipe_sender_phases,
	 .nr_phases = NELEM(hb_pipe_sender_phases),
	 .iterations = HB_LOOPS,
	 .prologue = hb_wait_start,
	 .nr_prologue = NELEM(hb_wait_start)},
	{.name = "receiver",
	 .count = HB_FDS,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = hb_pipe_receiver_phases,
	 .nr_phases = NELEM(hb_pipe_receiver_phases),
	 .iterations = HB_LOOPS,
	 .prologue = hb_wait_start,
	 .nr_prologue = NELEM(hb_wait_start)},
};
static const struct ts_task_class hb_sock_classes[] = {
	{.name = "sender",
	 .count = HB_FDS,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = hb_sock_sender_phases,
	 .nr_phases = NELEM(hb_sock_sender_phases),
	 .iterations = HB_LOOPS,
	 .prologue = hb_wait_start,
	 .nr_prologue = NELEM(hb_wait_start)},
	{.name = "receiver",
	 .count = HB_FDS,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = hb_sock_receiver_phases,
	 .nr_phases = NELEM(hb_sock_receiver_phases),
	 .iterations = HB_LOOPS,
	 .prologue = hb_wait_start,
	 .nr_prologue = NELEM(hb_wait_start)},
};

/* ---- schbench (masoncl/schbench, the 2023 design, as of 24e32b8) ---------------------
 *
 * schbench -m M -t T: M message threads, each with T workers. Worker loop (masoncl/schbench
 * worker.c msg_and_wait, worker_thread): mark its futex blocked, push itself on its message
 * thread's list, FUTEX_WAKE the message thread, FUTEX_WAIT; once woken: usleep(sleep_usec)
 * (-s, default 100 us) and `operations` (-n, default 5) naive matrix multiplies over a
 * private footprint (-F, default 256 KB) under a per-CPU lock; then loop. The message thread
 * (message.c run_msg_thread) loops: wake every queued worker, FUTEX_WAIT for the next post.
 * Metric: p99 wake-up latency of the workers, us.
 *
 * load = message threads, with 16 workers each: the sweep of Intel's schedtests
 * (yu-chen-surf/schedtests benchmarks/schbench.sh: `schbench -m $job -t 16`, jobs = message
 * threads). schbench's own default
 * T = ceil(ncpus / M) depends on the machine, which a static description cannot know.
 *
 * Channels per message thread: 0 = its post list (workers -> message thread, one cache line:
 * the worker's futex word and list entry), 1 = the wake channel all its workers wait on. A worker
 * that posts blocks on channel 1 right after, so the message thread's k-th wake goes to the k-th
 * queued worker when blocked receivers are woken in the order they blocked; draining
 * several queued posts in a row is schbench's batch. The message thread's program handles
 * one post per worker (16 x RECV, RUN, SEND) so that any common iteration count balances.
 * Caveat: the engine lets a running receiver take a message before the receiver it woke
 * runs (pipe semantics), so a worker that posts just then proceeds on the token meant for
 * the woken one, which blocks again; schbench's futexes address each worker, so there the
 * poster would wait. Tokens are conserved; only who waits shifts.
 * FUTEX_WAKE is not a sync wake-up: no WF_SYNC.
 *
 * Work per request: matrix_size = sqrt(256 KiB / 3 / sizeof(unsigned long)) = 104
 * (schbench.c main), so 5 x 104^3 = 5.62 M inner-loop iterations. estimate: 1.5 ns each: the
 * accumulator m3[i][j] is stored and reloaded every iteration (the three matrices may alias,
 * so the compiler cannot keep it in a register), a store-to-load forward of ~4-5 cycles at
 * 2.6-3 GHz, the loads of m1/m2 overlapping it from L2; 5,624,320 x 1.5 ns = 8.44 ms.
 * Footprint: the three matrices, 3 x 104^2 x 8 B = 253.5 KiB -> 254 KiB (-F 256 KB, as the
 * integer sqrt rounds it). Posting and waking cost one futex syscall each (SYSCALL_FUTEX_NS).
 * MARK: one per request (RPS, raw count only).
 *
 * Start: main (the launcher) creates the message threads; each creates its own workers
 * (message.c message_thread(): pthread_create per worker) before its loop. */
#define SCHB_WORKERS	   16
#define SCHB_SLEEP_NS	   100000
#define SCHB_MATRIX	   104
#define SCHB_OPERATIONS	   5
#define SCHB_INNER_ITER_PS 1500 /* picoseconds per inner-loop iteration (estimate above) */
#define SCHB_WORK_NS                                                                               \
	((uint64_t)SCHB_OPERATIONS * SCHB_MATRIX * SCHB_MATRIX * SCHB_MATRIX *                     \
	 SCHB_INNER_ITER_PS / 1000)
#define SCHB_FOOTPRINT_KIB 254
#define SCHB_POST_BYTES	   64
/* The post list and wake futexes hold at most one post per worker. */
#define SCHB_CHANNEL_BYTES (SCHB_WORKERS * SCHB_POST_BYTES)

_Static_assert(SCHB_WORK_NS == 8436480, "5 x 104^3 x 1.5 ns");

#define SCHB_WAKE_ONE RECV(0), RUN(SYSCALL_FUTEX_NS), SEND(1, SCHB_POST_BYTES, false)
static const struct ts_phase schbench_msg_phases[] = {
	SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE,
	SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE,
	SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE, SCHB_WAKE_ONE,
};
_Static_assert(sizeof(schbench_msg_phases) / sizeof(struct ts_phase) == 3 * SCHB_WORKERS,
	       "one wake per worker per iteration");
static const struct ts_phase schbench_worker_phases[] = {
	RUN(SYSCALL_FUTEX_NS), /* xlist_add + fpost(message thread) */
	SEND(0, SCHB_POST_BYTES, false),
	RECV(1),	      /* fwait(own futex): the measured wake-up */
	SLEEP(SCHB_SLEEP_NS), /* usleep(sleep_usec) */
	RUN(SCHB_WORK_NS),    /* do_work: 5 matrix multiplies */
	MARK(),
};
static const struct ts_task_class schbench_classes[] = {
	{.name = "message",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = schbench_msg_phases,
	 .nr_phases = NELEM(schbench_msg_phases)},
	{.name = "worker",
	 .count = SCHB_WORKERS,
	 .footprint_kib = SCHB_FOOTPRINT_KIB,
	 .phases = schbench_worker_phases,
	 .nr_phases = NELEM(schbench_worker_phases),
	 .measure_wakeup = true,
	 .spawn = TS_SPAWN_PARENT,
	 .spawn_from = 0},
};

/* ---- pipe: perf bench sched pipe (tools/perf/bench/sched-pipe.c) / UnixBench context1 ---
 * (kdlucas/byte-unixbench UnixBench/src/context1.c)
 *
 * Two tasks, two pipes: task A reads then writes, task B writes then reads; one int (4 B)
 * each way (context1: an 8-B unsigned long, same pattern). perf runs -l loops (default
 * 1,000,000) and prints usecs/op = the round-trip time; the model runs for the duration and
 * reports duration / round trips, the same ratio. Pipe writes wake the reader with WF_SYNC
 * and the writer then blocks reading: the sync hint's own case.
 *
 * Channels per pair: 0 = B -> A, 1 = A -> B. CPU work: a read and a write syscall each side
 * per round trip (SYSCALL_PIPE_NS). MARK: one per round trip, by B. load = pairs running at
 * once (UnixBench's N-copy pass); the metric is duration / all MARKs (see docs).
 *
 * Start: the driver (the launcher) forks the N copies; each copy forks its partner
 * (context1.c: fork(), the parent writes first: class b; the child reads first: class a,
 * spawned by b). */
#define PIPE_MSG_BYTES 4

static const struct ts_phase pipe_a_phases[] = {
	RECV(0),
	RUN(2 * SYSCALL_PIPE_NS), /* finish the read, write back */
	SEND(1, PIPE_MSG_BYTES, true),
};
static const struct ts_phase pipe_b_phases[] = {
	RUN(SYSCALL_PIPE_NS), SEND(0, PIPE_MSG_BYTES, true), RECV(1), RUN(SYSCALL_PIPE_NS), MARK(),
};
static const struct ts_task_class pipe_classes[] = {
	{.name = "a",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = pipe_a_phases,
	 .nr_phases = NELEM(pipe_a_phases),
	 .spawn = TS_SPAWN_PARENT,
	 .spawn_from = 1},
	{.name = "b",
	 .count = 1,
	 .footprint_kib = SYSCALL_LOOP_FOOTPRINT_KIB,
	 .phases = pipe_b_phases,
	 .nr_phases = NELEM(pipe_b_phases)},
};

/* ---- autonuma-benchmark: numa01, numa01-thread-alloc, numa02, numa02-smt ----------------
 *
 * Andrea Arcangeli's programs (pholasek/autonuma-benchmark numa01.c, numa02.c, preproc.awk,
 * Makefile), as mmtests' autonumabench runs them; the metric is the elapsed time (the
 * system time — NUMA balancing's own costs — is in the NUMA counters).
 *
 *   numa01: fork() -> 2 processes; each mallocs SIZE = 3 GiB, THREADS = NCPUS/2 threads
 *     (preproc.awk: (max CPU id + 1) / 2) each bzero()ing the whole buffer once and then
 *     50 more times (nr = 50). Plain numa01 is built without NO_BIND_FORCE_SAME_NODE (the
 *     Makefile builds that separately), so the first bzero places pages by first touch.
 *   numa01-thread-alloc (numa01_THREAD_ALLOC): the same, but after the first whole-buffer
 *     bzero each thread zeroes only its own SIZE/THREADS slice, nr = 1000 times.
 *   numa02: one process, SIZE = 1 GiB, THREADS = NCPUS, each thread zeroes its own
 *     SIZE/THREADS slice TOTALSIZE/SIZE = 800 times; the main thread bzero()s the buffer
 *     node block by node block before creating the threads (BINDMAP; bind() is empty
 *     without HARD_BIND), so every page starts on the main thread's node.
 *   numa02-smt (numa02_SMT): THREADS = NCPUS/2.
 *
 * bzero of a large buffer streams stores: 64 lines per 4 KiB page, each a DRAM access
 * (read-for-ownership, or a streaming store), with the cost model's 10 misses in flight
 * (cost_model.c, MISSES_IN_FLIGHT): BZERO_ACCESSES_PER_PAGE = 64 / 10 = 6.4 latency-bound
 * accesses per page, and no other CPU work worth counting (the store instructions issue
 * under the misses): ns = 0. A local pass over 3 GiB then takes 786,432 x 6.4 x mem.local
 * = 0.59 s on kunpeng920 (117 ns), i.e. 5.3 GB/s per thread; the single-thread STREAM
 * copy on a Kunpeng 920-4826 is 8.7 GB/s local, 4.1 remote (plantegg blog, 2021). The model has no
 * bandwidth limit per node (see docs/workloads.md).
 *
 * load = processes: numa01's 2 (default_loads), numa02's 1. Under --bind hard the
 * classes' home rules reproduce the _HARD_BIND builds: numa01's process 1 on the first
 * half of the nodes, process 2 on the second (FIRST_HALF/SECOND_HALF, NODEMASK1/2);
 * numa02's thread i on node i / (THREADS / NNODES) with its slice prefaulted there. */
#define BZERO_ACCESSES_PER_PAGE	  6.4
#define NUMA01_BYTES		  (3ULL << 30)
#define NUMA02_BYTES		  (1ULL << 30)
#define NUMA01_LOOPS		  50
#define NUMA01_THREAD_ALLOC_LOOPS 1000
#define NUMA02_LOOPS		  800 /* TOTALSIZE / SIZE = 800 GiB / 1 GiB */

#define TOUCH(sl)                                                                                  \
	{                                                                                          \
		.kind = TS_PH_TOUCH, .region = 0, .slice = (sl),                                   \
		.accesses = BZERO_ACCESSES_PER_PAGE                                                \
	}

static const struct ts_phase bzero_all[] = {TOUCH(TS_SLICE_ALL)};
static const struct ts_phase bzero_own[] = {TOUCH(TS_SLICE_OWN)};

static const struct ts_region numa01_regions[] = {
	{.name = "buffer", .bytes = NUMA01_BYTES, .policy = TS_MEM_LOCAL},
};
static const struct ts_region numa02_regions[] = {
	{.name = "buffer",
	 .bytes = NUMA02_BYTES,
	 .policy = TS_MEM_LOCAL,
	 .prefault = TS_PREFAULT_PARENT},
};

static const struct ts_task_class numa01_classes[] = {
	{.name = "thread",
	 .count = 2,
	 .count_rule = TS_COUNT_CPUS,
	 .prologue = bzero_all,
	 .nr_prologue = 1,
	 .phases = bzero_all,
	 .nr_phases = 1,
	 .iterations = NUMA01_LOOPS,
	 .home = TS_HOME_INSTANCE},
};
static const struct ts_task_class numa01_thread_alloc_classes[] = {
	{.name = "thread",
	 .count = 2,
	 .count_rule = TS_COUNT_CPUS,
	 .prologue = bzero_all,
	 .nr_prologue = 1,
	 .phases = bzero_own,
	 .nr_phases = 1,
	 .iterations = NUMA01_THREAD_ALLOC_LOOPS,
	 .home = TS_HOME_INSTANCE},
};
static const struct ts_task_class numa02_classes[] = {
	{.name = "thread",
	 .count = 1,
	 .count_rule = TS_COUNT_CPUS,
	 .phases = bzero_own,
	 .nr_phases = 1,
	 .iterations = NUMA02_LOOPS,
	 .home = TS_HOME_TASK},
};
static const struct ts_task_class numa02_smt_classes[] = {
	{.name = "thread",
	 .count = 2,
	 .count_rule = TS_COUNT_CPUS,
	 .phases = bzero_own,
	 .nr_phases = 1,
	 .iterations = NUMA02_LOOPS,
	 .home = TS_HOME_TASK},
};

/* ---- SPECjbb2005, multi-JVM (mmtests configs/config-jvm-specjbb2005-multi) --------------
 *
 * mmtests' multi-JVM configuration: one JVM per NUMA node, a "warehouse" is a thread
 * running in-heap order-entry transactions with no I/O; the points sweep the warehouses
 * per JVM (1 .. NCPUS/nodes); the metric is bops (business operations per second) at each
 * point. The JVMs are not bound here (mmtests' "bound" variant corresponds to --bind hard:
 * JVM i on node i): NUMA balancing has to bring each JVM's threads and heap together.
 *
 * The benchmark is licensed and its source is not public (what is said of it beyond
 * mmtests' configuration is general knowledge, unverified); every figure below is an
 * estimate:
 *   heap: the warehouses' data, 1 GiB per JVM, each warehouse thread working on its own
 *     slice (a warehouse's district/customer/stock/order objects), plus 64 MiB of shared
 *     tables (the Item table and JVM-wide structures) every thread reads; both placed by
 *     first touch (no -XX:+AlwaysPreTouch), so a JVM's memory lands where its threads
 *     first ran.
 *   a transaction: 10 us of CPU work besides memory stalls (SPECjbb2005's per-thread
 *     rates of some 10^4-10^5 bops/s on servers of the 2010s), touching 16
 *     pages of its warehouse slice (the CPU work runs between them: 625 ns per page) and
 *     4 of the shared tables with 4 dependent (pointer-chasing, not overlapped) misses
 *     per page: 80 latency-bound accesses, ~9 us at 117 ns. One MARK per transaction;
 *     no GC pauses, no locks. The warehouse thread's cache footprint besides the heap
 *     (stack, TLABs, JIT code): 256 KiB, an estimate.
 * load = warehouses per JVM (TS_COUNT_LOAD); instances = nodes (TS_INSTANCES_NODES). */
#define JBB_HEAP_BYTES	    (1ULL << 30)
#define JBB_SHARED_BYTES    (64ULL << 20)
#define JBB_TXN_NS	    10000
#define JBB_OWN_PAGES	    16
#define JBB_SHARED_PAGES    4
#define JBB_MISSES_PER_PAGE 4.0

static const struct ts_region specjbb_regions[] = {
	{.name = "warehouses", .bytes = JBB_HEAP_BYTES, .policy = TS_MEM_LOCAL},
	{.name = "shared", .bytes = JBB_SHARED_BYTES, .policy = TS_MEM_LOCAL},
};
/* The transaction's CPU work is spread over its warehouse's pages (10 us / 16 pages): the
 * code runs between the misses, and one segment instead of two keeps the event count
 * down. */
static const struct ts_phase specjbb_phases[] = {
	{.kind = TS_PH_TOUCH,
	 .region = 0,
	 .slice = TS_SLICE_OWN,
	 .pages = JBB_OWN_PAGES,
	 .ns = JBB_TXN_NS / JBB_OWN_PAGES,
	 .accesses = JBB_MISSES_PER_PAGE},
	{.kind = TS_PH_TOUCH,
	 .region = 1,
	 .slice = TS_SLICE_ALL,
	 .pages = JBB_SHARED_PAGES,
	 .accesses = JBB_MISSES_PER_PAGE},
	MARK(),
};
static const struct ts_task_class specjbb_classes[] = {
	{.name = "warehouse",
	 .count_rule = TS_COUNT_LOAD,
	 .footprint_kib = 256,
	 .phases = specjbb_phases,
	 .nr_phases = NELEM(specjbb_phases),
	 .home = TS_HOME_INSTANCE},
};

#define SEC 1000000000ULL
/* The autonuma programs run to the end; `toposched sim`'s duration caps a time-to-finish
 * run, and its 100 ms default would cut them short: the engine's own cap, a minute. */
#define AUTONUMA_CAP_NS (60 * SEC)

/* ---- the list ---------------------------------------------------------------------------- */

static const struct ts_workload workloads[] = {
	{
		.name = "tbench",
		.description = "tbench (dbench's network benchmark): N client/server pairs over "
			       "loopback TCP, op-mix sized requests (MB/s)",
		.classes = tbench_classes,
		.nr_classes = NELEM(tbench_classes),
		.channels_per_instance = 2,
		.channel_capacity = TCP_BUFFER_BYTES,
		.request_mix = {tbench_req_bytes, tbench_op_weight, NELEM(tbench_op_weight)},
		.reply_mix = {tbench_reply_bytes, tbench_op_weight, NELEM(tbench_op_weight)},
		.metric = TS_METRIC_THROUGHPUT_MBS,
		.metric_name = "throughput",
		.unit = "MB/s",
		.load_name = "clients",
		.barrier_poll_ns = TBENCH_BARRIER_POLL_NS,
		.default_warmup_ns = TBENCH_WARMUP_NS,
	},
	{
		.name = "netperf-tcp-rr",
		.description = "netperf TCP_RR: N pairs, 1-byte request/response ping-pong over "
			       "loopback (trans/s per pair)",
		.classes = netperf_classes,
		.nr_classes = NELEM(netperf_classes),
		.channels_per_instance = 2,
		.channel_capacity = TCP_BUFFER_BYTES,
		.metric = TS_METRIC_TPS_PER_INSTANCE,
		.metric_name = "tps",
		.unit = "trans/s",
		.load_name = "pairs",
	},
	{
		.name = "netperf-udp-rr",
		.description = "netperf UDP_RR: N pairs, 1-byte request/response ping-pong over "
			       "loopback (trans/s per pair)",
		.classes = netperf_classes,
		.nr_classes = NELEM(netperf_classes),
		.channels_per_instance = 2,
		.channel_capacity = TCP_BUFFER_BYTES,
		.metric = TS_METRIC_TPS_PER_INSTANCE,
		.metric_name = "tps",
		.unit = "trans/s",
		.load_name = "pairs",
	},
	{
		.name = "hackbench",
		.description = "hackbench -p: N groups of 20 senders x 20 receivers, 100-byte "
			       "messages over 64 KiB pipes (s)",
		.classes = hb_pipe_classes,
		.nr_classes = NELEM(hb_pipe_classes),
		.channels_per_instance = HB_FDS,
		.channel_capacity = PIPE_BUFFER_BYTES,
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "groups",
		.default_iterations = HB_LOOPS,
		.default_loads = HB_MMTESTS_GROUPS,
		.default_duration_ns = HB_CAP_NS,
	},
	{
		.name = "hackbench-socket",
		.description =
			"hackbench (sockets): N groups of 20 senders x 20 receivers, 100-byte "
			"messages over AF_UNIX socketpairs (s)",
		.classes = hb_sock_classes,
		.nr_classes = NELEM(hb_sock_classes),
		.channels_per_instance = HB_FDS,
		.channel_capacity = UNIX_SOCKET_BUFFER_BYTES,
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "groups",
		.default_iterations = HB_LOOPS,
		.default_loads = HB_MMTESTS_GROUPS,
		.default_duration_ns = HB_CAP_NS,
	},
	{
		.name = "schbench",
		.description = "schbench: N message threads each waking 16 workers that sleep "
			       "100 us and multiply matrices (p99 wake-up us)",
		.classes = schbench_classes,
		.nr_classes = NELEM(schbench_classes),
		.channels_per_instance = 2,
		.channel_capacity = SCHB_CHANNEL_BYTES,
		.metric = TS_METRIC_WAKEUP_P99_US,
		.metric_name = "p99_wakeup",
		.unit = "us",
		.load_name = "message_threads",
	},
	{
		.name = "pipe",
		.description = "perf bench sched pipe / UnixBench context1: two tasks ping-pong "
			       "4 bytes over two pipes (us per round trip)",
		.classes = pipe_classes,
		.nr_classes = NELEM(pipe_classes),
		.channels_per_instance = 2,
		.channel_capacity = PIPE_BUFFER_BYTES,
		.metric = TS_METRIC_US_PER_MARK,
		.metric_name = "round_trip",
		.unit = "us",
		.load_name = "pairs",
	},
	{
		.name = "numa01",
		.description = "autonuma numa01: 2 processes x NCPUS/2 threads, each bzero()ing "
			       "its process's whole 3 GiB 1 + 50 times (s)",
		.classes = numa01_classes,
		.nr_classes = NELEM(numa01_classes),
		.regions = numa01_regions,
		.nr_regions = NELEM(numa01_regions),
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "processes",
		.default_loads = "2",
		.default_duration_ns = AUTONUMA_CAP_NS,
	},
	{
		.name = "numa01-thread-alloc",
		.description = "autonuma numa01_THREAD_ALLOC: as numa01, then each thread zeroes "
			       "its own 3 GiB/THREADS slice 1000 times (s)",
		.classes = numa01_thread_alloc_classes,
		.nr_classes = NELEM(numa01_thread_alloc_classes),
		.regions = numa01_regions,
		.nr_regions = NELEM(numa01_regions),
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "processes",
		.default_loads = "2",
		.default_duration_ns = AUTONUMA_CAP_NS,
	},
	{
		.name = "numa02",
		.description = "autonuma numa02: 1 process x NCPUS threads, each zeroing its "
			       "1 GiB/NCPUS slice 800 times; pages start on one node (s)",
		.classes = numa02_classes,
		.nr_classes = NELEM(numa02_classes),
		.regions = numa02_regions,
		.nr_regions = NELEM(numa02_regions),
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "processes",
		.default_loads = "1",
		.default_duration_ns = AUTONUMA_CAP_NS,
	},
	{
		.name = "numa02-smt",
		.description = "autonuma numa02_SMT: numa02 with NCPUS/2 threads (s)",
		.classes = numa02_smt_classes,
		.nr_classes = NELEM(numa02_smt_classes),
		.regions = numa02_regions,
		.nr_regions = NELEM(numa02_regions),
		.metric = TS_METRIC_TIME_S,
		.metric_name = "time",
		.unit = "s",
		.load_name = "processes",
		.default_loads = "1",
		.default_duration_ns = AUTONUMA_CAP_NS,
	},
	{
		.name = "specjbb",
		.description = "SPECjbb2005 multi-JVM: one JVM per node, N warehouse threads "
			       "each, in-heap transactions (bops)",
		.classes = specjbb_classes,
		.nr_classes = NELEM(specjbb_classes),
		.regions = specjbb_regions,
		.nr_regions = NELEM(specjbb_regions),
		.instances = TS_INSTANCES_NODES,
		.metric = TS_METRIC_OPS_PER_S,
		.metric_name = "bops",
		.unit = "ops/s",
		.load_name = "warehouses",
		.default_loads = "4",
		.default_duration_ns = 1 * SEC,
		.default_warmup_ns = 2 * SEC,
	},
};

const struct ts_workload *ts_workload_list(int *count)
{
	if (count)
		*count = NELEM(workloads);
	return workloads;
}

const struct ts_workload *ts_workload_find(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < NELEM(workloads); i++)
		if (strcmp(workloads[i].name, name) == 0)
			return &workloads[i];
	return NULL;
}

int ts_class_count(const struct ts_task_class *c, int nr_cpus, int load)
{
	switch (c->count_rule) {
	case TS_COUNT_FIXED:
		return c->count;
	case TS_COUNT_CPUS:
		if (c->count <= 0)
			return -1;
		return nr_cpus / c->count > 0 ? nr_cpus / c->count : 1;
	case TS_COUNT_LOAD:
		return load;
	}
	return -1;
}

int ts_workload_instances(const struct ts_workload *w, int nr_nodes, int load)
{
	return w->instances == TS_INSTANCES_NODES ? nr_nodes : load;
}

int64_t ts_workload_nr_tasks(const struct ts_workload *w, int nr_cpus, int nr_nodes, int load)
{
	int64_t per = 0;
	for (int i = 0; i < w->nr_classes; i++) {
		int n = ts_class_count(&w->classes[i], nr_cpus, load);
		if (n < 0)
			return 0;
		per += n;
	}
	int64_t inst = ts_workload_instances(w, nr_nodes, load);
	if (inst < 0)
		return 0;
	if (per && inst > INT64_MAX / per)
		return INT64_MAX;
	return per * inst;
}
