/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of the ECN decision per frame as the data path pays it at dequeue
 * (lib/dp/ibex_dp.c, egress_arbitrate -> lane_ecn): the lane's "marking
 * on" bit and the frame's "is IP" bit from the queue entry, then
 * ibex_ecn_decide() on the lane's backlog with the frame's codepoint. The
 * lane is below Kmin, the case every uncongested queued frame takes.
 *
 * Loops, each over N queue entries (backlog, meta) cycled from a table of
 * 1024 so the loads hit L1 as the lane's own entries would:
 *   base    read the entry, add its backlog to a sum (the loop alone);
 *   decide  the same plus the data path's test and ibex_ecn_decide();
 *   off     marking off for the lane: the test alone.
 * Ticks from rte_rdtsc() (TSC, not core cycles); median of RUNS runs.
 * Cut-through frames are not in any loop: they never reach the decision.
 *
 * Usage: ecn_cost [frames_per_run]   (default 2^24)
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

#include "ibex_ecn.h"

#define RUNS 9
#define TABLE 1024
#define QM_IP 0x4       /* as lib/dp: the frame is IPv4/IPv6 */

struct ent {
	uint32_t qlen;
	uint8_t meta;
};

static struct ent tab[TABLE];

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One lane's state, laid out as the worker's struct ibex_egress keeps it. */
static struct ibex_ecn_params params;
static struct ibex_ecn_vars vars;
static struct ibex_ecn_stats stats;
static struct ibex_ecn_rng rng;

static __attribute__((noinline)) uint64_t
loop_base(uint64_t n)
{
	uint64_t sum = 0, i;

	for (i = 0; i < n; i++) {
		const struct ent *e = &tab[i & (TABLE - 1)];

		sum += e->qlen + e->meta;
		__asm__ volatile("" : "+r"(sum));
	}
	return sum;
}

static __attribute__((noinline)) uint64_t
loop_decide(uint64_t n, uint16_t ecn_on, unsigned int vl)
{
	uint64_t sum = 0, i;

	for (i = 0; i < n; i++) {
		const struct ent *e = &tab[i & (TABLE - 1)];

		sum += e->qlen + e->meta;
		if ((ecn_on >> vl & 1) && (e->meta & QM_IP))
			sum += ibex_ecn_decide(&params, &vars, &stats, &rng,
					       e->qlen, 0, e->meta & 3);
		__asm__ volatile("" : "+r"(sum));
	}
	return sum;
}

int
main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : UINT64_C(1) << 24;
	struct ibex_ecn_cfg cfg;
	double t[3][RUNS];
	const char *err = NULL;
	volatile uint64_t sink = 0;
	unsigned int i, r, k;

	ibex_ecn_cfg_default(&cfg, UINT64_C(25000000000));
	if (ibex_ecn_params_set(&params, &cfg, &err) < 0) {
		fprintf(stderr, "ecn_cost: %s\n", err);
		return 1;
	}
	ibex_ecn_vars_init(&vars);
	ibex_ecn_rng_seed(&rng, 1);
	/* Backlogs below Kmin (100000 bytes at 25G), codepoints of all
	 * kinds, a few non-IP frames, as a busy but uncongested lane. */
	srand(7);
	for (i = 0; i < TABLE; i++) {
		tab[i].qlen = (uint32_t)(rand() % (int)cfg.kmin);
		tab[i].meta = (uint8_t)((rand() & 3) | (i % 16 ? QM_IP : 0));
	}
	for (r = 0; r < RUNS; r++) {
		uint64_t t0, t1;

		t0 = rte_rdtsc_precise();
		sink += loop_base(n);
		t1 = rte_rdtsc_precise();
		t[0][r] = (double)(t1 - t0) / (double)n;
		t0 = rte_rdtsc_precise();
		sink += loop_decide(n, 1, 0);
		t1 = rte_rdtsc_precise();
		t[1][r] = (double)(t1 - t0) / (double)n;
		t0 = rte_rdtsc_precise();
		sink += loop_decide(n, 0, 0);
		t1 = rte_rdtsc_precise();
		t[2][r] = (double)(t1 - t0) / (double)n;
	}
	for (k = 0; k < 3; k++)
		qsort(t[k], RUNS, sizeof(double), cmp_d);
	printf("# TSC ticks per frame, median of %d runs of %" PRIu64
	       " frames (min .. max)\n", RUNS, n);
	printf("base   %.2f  (%.2f .. %.2f)\n", t[0][RUNS / 2], t[0][0],
	       t[0][RUNS - 1]);
	printf("decide %.2f  (%.2f .. %.2f)\n", t[1][RUNS / 2], t[1][0],
	       t[1][RUNS - 1]);
	printf("off    %.2f  (%.2f .. %.2f)\n", t[2][RUNS / 2], t[2][0],
	       t[2][RUNS - 1]);
	printf("decision below Kmin: %.2f ticks per frame over the loop\n",
	       t[1][RUNS / 2] - t[0][RUNS / 2]);
	/* Every IP frame was decided on; none chosen below Kmin. */
	if (stats.marked != 0 || stats.not_ect_selected != 0) {
		fprintf(stderr, "ecn_cost: a frame below Kmin was chosen\n");
		return 1;
	}
	return sink == 1 ? 2 : 0;
}
