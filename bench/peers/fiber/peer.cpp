// The six benchmarks of `toposched bench` written for Boost.Fiber, so that the runtime is
// measured against a C++ user-level thread library side by side (toposched bench --peers
// builds and runs this).
//
// Usage: peer-fiber BENCH LOOPS GROUPS TASKS PROCS
// Prints one line "BENCH FIGURE" in the unit toposched bench uses for BENCH (pipe: us per
// round trip; hackbench: s in total; spawn, spawn-join: ns per task; yield: ns per
// switch), or "wake P50 P99" in ns. pipe, hackbench, spawn and spawn-join run on PROCS
// threads sharing fibers with the shared_work scheduler (idle threads suspend); yield runs
// two fibers on one thread (round_robin); wake has one thread per side (a fiber cannot be
// pinned otherwise).
#include <boost/fiber/all.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace fibers = boost::fibers;
using clk = std::chrono::steady_clock;

static constexpr int hb_fds = 20, hb_data = 100, spawn_batch = 256;
// Boost.Fiber's buffered_channel wants a power of two; a 64 KiB pipe holds 655 messages.
static constexpr std::size_t hb_chan_cap = 1024;

static double ns_since(clk::time_point t0)
{
	return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(clk::now() - t0)
		.count();
}

// Fibers on 64 KiB stacks from malloc: Boost's default (fixedsize_stack, 128 KiB) is
// above glibc's mmap threshold, and an mmap + page faults per fiber would make spawn a
// measure of the kernel. (pooled_fixedsize_stack is faster but not thread-safe.)
template <typename F> static fibers::fiber make_fiber(F fn)
{
	return fibers::fiber(std::allocator_arg, fibers::fixedsize_stack(64 * 1024), fn);
}

// Runs fn on a fiber of this thread while procs - 1 more threads join the shared_work
// pool (idle threads suspend; work_stealing with suspension hangs in Boost 1.74 here);
// returns when fn has returned.
template <typename F> static void on_pool(int procs, F fn)
{
	fibers::use_scheduling_algorithm<fibers::algo::shared_work>(true);
	bool done = false;
	fibers::mutex m;
	fibers::condition_variable cv;
	std::vector<std::thread> helpers;
	for (int i = 1; i < procs; i++)
		helpers.emplace_back([&] {
			fibers::use_scheduling_algorithm<fibers::algo::shared_work>(true);
			std::unique_lock<fibers::mutex> lk(m);
			cv.wait(lk, [&] { return done; });
		});
	fibers::fiber(fn).join();
	{
		std::unique_lock<fibers::mutex> lk(m);
		done = true;
	}
	cv.notify_all();
	for (auto &t : helpers)
		t.join();
}

static double pipe(long loops)
{
	long warm = std::min(loops / 10, 1000L);
	fibers::buffered_channel<long> ping(2), pong(2);
	fibers::fiber echo([&] {
		long v;
		for (long i = 0; i < warm + loops; i++) {
			ping.pop(v);
			pong.push(v);
		}
	});
	clk::time_point t0;
	for (long i = 0; i < warm + loops; i++) {
		if (i == warm)
			t0 = clk::now();
		long v;
		ping.push(i);
		pong.pop(v);
		if (v != i) {
			std::fputs("peer-fiber: pipe: wrong reply\n", stderr);
			std::exit(1);
		}
	}
	double us = ns_since(t0) / (double)loops / 1e3;
	echo.join();
	return us;
}

static double hackbench(long groups, long loops)
{
	using msg = std::array<char, hb_data>;
	std::vector<std::unique_ptr<fibers::buffered_channel<msg>>> chans;
	for (long i = 0; i < groups * hb_fds; i++)
		chans.emplace_back(new fibers::buffered_channel<msg>(hb_chan_cap));
	fibers::barrier ready((std::size_t)(groups * 2 * hb_fds + 1));
	std::vector<fibers::fiber> fs;
	for (long g = 0; g < groups; g++)
		for (int j = 0; j < hb_fds; j++) {
			fs.push_back(make_fiber([&, c = chans[(std::size_t)(g * hb_fds + j)].get()] {
				msg d;
				ready.wait();
				for (long i = 0; i < loops * hb_fds; i++)
					c->pop(d);
			}));
			fs.push_back(make_fiber([&, g] {
				msg d{};
				ready.wait();
				for (long l = 0; l < loops; l++)
					for (int k = 0; k < hb_fds; k++)
						chans[(std::size_t)(g * hb_fds + k)]->push(d);
			}));
		}
	ready.wait();
	clk::time_point t0 = clk::now();
	for (auto &f : fs)
		f.join();
	return ns_since(t0) / 1e9;
}

// spawn: detached fibers counting down a count under a fiber mutex, awaited once per batch
// (Go's sync.WaitGroup; Boost.Fiber has no wait group). spawn-join: each fiber joined.
static double spawn(long tasks, bool join)
{
	std::vector<fibers::fiber> fs;
	fs.reserve(spawn_batch);
	fibers::mutex m;
	fibers::condition_variable zero;
	long left = 0;
	clk::time_point t0 = clk::now();
	for (long n = 0; n < tasks;) {
		long b = std::min(tasks - n, (long)spawn_batch);
		if (join) {
			for (long i = 0; i < b; i++)
				fs.push_back(make_fiber([] {}));
			for (auto &f : fs)
				f.join();
			fs.clear();
		} else {
			{
				std::unique_lock<fibers::mutex> lk(m);
				left += b;
			}
			for (long i = 0; i < b; i++)
				make_fiber([&] {
					std::unique_lock<fibers::mutex> lk(m);
					if (--left == 0)
						zero.notify_one();
				}).detach();
			std::unique_lock<fibers::mutex> lk(m);
			zero.wait(lk, [&] { return left == 0; });
		}
		n += b;
	}
	return ns_since(t0) / (double)tasks;
}

static double yield(long loops)
{
	fibers::barrier ready(2);
	clk::time_point t0[2], t1[2];
	auto body = [&](int k) {
		ready.wait();
		t0[k] = clk::now();
		for (long i = 0; i < loops; i++)
			boost::this_fiber::yield();
		t1[k] = clk::now();
	};
	fibers::fiber a(body, 0), b(body, 1);
	a.join();
	b.join();
	auto first = std::min(t0[0], t0[1]), last = std::max(t1[0], t1[1]);
	return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(last - first).count() /
	       (double)(2 * loops);
}

static void wake(long loops, double *p50, double *p99)
{
	long warm = std::min(loops / 10, 100L);
	fibers::unbuffered_channel<clk::time_point> req;
	fibers::unbuffered_channel<int> ack;
	std::vector<double> lat((std::size_t)loops);
	std::thread waiter([&] {
		fibers::fiber([&] {
			clk::time_point t;
			for (long i = 0; i < warm + loops; i++) {
				req.pop(t);
				double d = ns_since(t);
				if (i >= warm)
					lat[(std::size_t)(i - warm)] = d;
				ack.push(1);
			}
		}).join();
	});
	fibers::fiber([&] {
		int a;
		for (long i = 0; i < warm + loops; i++) {
			boost::this_fiber::sleep_for(std::chrono::microseconds(50));
			req.push(clk::now());
			ack.pop(a);
		}
	}).join();
	waiter.join();
	std::sort(lat.begin(), lat.end());
	*p50 = lat[(std::size_t)(loops * 50 / 100)];
	*p99 = lat[(std::size_t)(loops * 99 / 100)];
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		std::fputs("usage: peer-fiber BENCH LOOPS GROUPS TASKS PROCS\n", stderr);
		return 2;
	}
	long n[4];
	for (int i = 0; i < 4; i++) {
		char *end;
		n[i] = std::strtol(argv[2 + i], &end, 10);
		if (*end || n[i] < 1) {
			std::fprintf(stderr, "peer-fiber: argument %d: not a positive number: '%s'\n",
				     2 + i, argv[2 + i]);
			return 2;
		}
	}
	long loops = n[0], groups = n[1], tasks = n[2];
	int procs = (int)n[3];
	std::string b = argv[1];
	double fig = 0, p99 = 0;
	if (b == "pipe")
		on_pool(procs, [&] { fig = pipe(loops); });
	else if (b == "hackbench")
		on_pool(procs, [&] { fig = hackbench(groups, loops); });
	else if (b == "spawn" || b == "spawn-join")
		on_pool(procs, [&] { fig = spawn(tasks, b == "spawn-join"); });
	else if (b == "yield")
		fig = yield(loops);
	else if (b == "wake")
		wake(loops, &fig, &p99);
	else {
		std::fprintf(stderr, "peer-fiber: unknown benchmark '%s'\n", b.c_str());
		return 2;
	}
	if (b == "wake")
		std::printf("wake %g %g\n", fig, p99);
	else
		std::printf("%s %g\n", b.c_str(), fig);
	return 0;
}
