// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark for the idle accounting's work per idle transition
 * (kernel/accounting/wult_mstate.h), replicated in user space because no module
 * loads on this host. A transition is one cpu_idle probe call: an entry
 * (users test, bounds check, entry count, rdtsc, two stores) or an exit
 * (users test, rdtsc, subtraction, two stores); an idle period is two.
 * Against baselines in the same run: the users test alone (a CPU without
 * an accounting event), a bare rdtsc and a bare lfence;rdtsc (what
 * rdtsc_ordered() would have cost). The kernel's
 * version differs in addressing (%gs-relative per-CPU data) only;
 * host_mstate.sh counts its real instructions.
 * Goal (issue 15): <= 30 ns per transition. A miss prints GOAL MISSED;
 * the exit status stays 0. WULT_BENCH_N: idle periods (default 20M).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GOAL_NS		30.0
#define NSTATES		10
#define REPS		5

struct mstate {
	unsigned int users;
	bool in_idle;
	uint8_t state;
	uint64_t enter_tsc;
	uint64_t cycles[NSTATES];
	uint64_t entries[NSTATES];
};

/* The kernel's rdtsc(), which the accounting uses. */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The kernel's rdtsc_ordered() on CPUs with LFENCE_RDTSC, for comparison. */
static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))

static __attribute__((noinline)) void hook(struct mstate *ms, unsigned int state)
{
	if (__builtin_expect(!READ_ONCE(ms->users), 1))
		return;
	if (state != ~0U) {
		if (state >= NSTATES)
			return;
		WRITE_ONCE(ms->state, state);
		WRITE_ONCE(ms->entries[state], ms->entries[state] + 1);
		WRITE_ONCE(ms->enter_tsc, rdtsc());
		WRITE_ONCE(ms->in_idle, true);
	} else {
		uint64_t d = rdtsc() - ms->enter_tsc;

		if (!ms->in_idle)
			return;
		WRITE_ONCE(ms->in_idle, false);
		__asm__ __volatile__("" ::: "memory");
		WRITE_ONCE(ms->cycles[ms->state], ms->cycles[ms->state] + d);
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of REPS: ns per transition (half an entry + exit pair). */
static double run(struct mstate *ms, unsigned int users, uint64_t n)
{
	double best = 1e30, t0, ns;
	uint64_t i;
	int r;

	ms->users = users;
	for (r = 0; r < REPS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			hook(ms, (unsigned int)(i & 3));
			hook(ms, ~0U);
		}
		ns = (now_ns() - t0) / (double)n / 2;
		best = ns < best ? ns : best;
	}
	return best;
}

/* Best of REPS: ns per TSC read, ordered (lfence;rdtsc) or not. */
static double run_tsc(uint64_t n, bool ordered)
{
	double best = 1e30, t0, ns;
	uint64_t i, sum = 0;
	int r;

	for (r = 0; r < REPS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sum += ordered ? rdtsc_ordered() : rdtsc();
		ns = (now_ns() - t0) / (double)n;
		best = ns < best ? ns : best;
	}
	return sum ? best : best;
}

int main(void)
{
	const char *env = getenv("WULT_BENCH_N");
	uint64_t n = env ? strtoull(env, NULL, 10) : 20000000;
	struct mstate *ms = calloc(1, sizeof(*ms));
	double off, on, tsc, otsc;

	if (!ms || !n)
		return 1;
	off = run(ms, 0, n);
	on = run(ms, 1, n);
	tsc = run_tsc(n, false);
	otsc = run_tsc(n, true);
	printf("  idle accounting per transition (user-space replica, %" PRIu64 " transitions, best of %d):\n",
	       2 * n, REPS);
	printf("  no accounting event (baseline) %7.2f ns\n", off);
	printf("  one rdtsc alone                %7.2f ns\n", tsc);
	printf("  one lfence;rdtsc alone         %7.2f ns\n", otsc);
	printf("  accounting on                  %7.2f ns  (%.1f x baseline, %.2f x one TSC read)\n",
	       on, on / off, on / tsc);
	printf("  goal accounting on <= %.0f ns per transition: %s\n", GOAL_NS,
	       on <= GOAL_NS ? "met" : "GOAL MISSED");
	if (ms->entries[1] != 5 * n / 4 || !ms->cycles[1])
		printf("  (replica miscounted: %" PRIu64 " entries)\n", ms->entries[1]);
	free(ms);
	return 0;
}
