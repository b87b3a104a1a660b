/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN curve bench: for a table of backlogs, 10^6 decisions each, printing
 * backlog, configured p, measured p and the error; then the TSC cycles of
 * one decision below Kmin (median of several runs). Output is a gnuplot
 * data file: comment lines start with '#'. Built by ecn_curve.sh.
 *
 * Usage: ecn_curve [rate_bps]   (default 25e9: HPCC's 100/400 kB, 0.2)
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "ibex_ecn.h"

#define DRAWS 1000000u
#define RUNS 9
#define LOOP (1u << 24)
#define QMASK 1023u

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The real-valued curve, independent of the fixed point. */
static double
curve(const struct ibex_ecn_cfg *c, uint32_t q)
{
	if (q <= c->kmin)
		return 0.0;
	if (q > c->kmax)
		return 1.0;
	return c->pmax * (double)(q - c->kmin) / (double)(c->kmax - c->kmin);
}

static void
table(const struct ibex_ecn_cfg *c, const struct ibex_ecn_params *p)
{
	uint32_t qs[64];
	unsigned int n = 0, i, k;
	uint32_t step = (c->kmax - c->kmin) / 12, q;

	for (q = 0; q < c->kmin; q += 4 * step)
		qs[n++] = q;
	qs[n++] = c->kmin - 1;
	qs[n++] = c->kmin;
	qs[n++] = c->kmin + 1;
	for (q = c->kmin + step; q < c->kmax; q += step)
		qs[n++] = q;
	qs[n++] = c->kmax - 1;
	qs[n++] = c->kmax;
	qs[n++] = c->kmax + 1;
	qs[n++] = c->kmax + 4 * step;

	printf("# kmin %" PRIu32 " B, kmax %" PRIu32 " B, pmax %.3f, "
	       "%u decisions a backlog\n", c->kmin, c->kmax, c->pmax, DRAWS);
	printf("# %10s %12s %12s %12s\n", "backlog_B", "p_config",
	       "p_measured", "error");
	for (i = 0; i < n; i++) {
		struct ibex_ecn_vars v;
		struct ibex_ecn_stats s;
		struct ibex_ecn_rng rng;
		double want, got;

		ibex_ecn_vars_init(&v);
		memset(&s, 0, sizeof(s));
		ibex_ecn_rng_seed(&rng, 0x1bec0000u + i);
		for (k = 0; k < DRAWS; k++)
			ibex_ecn_decide(p, &v, &s, &rng, qs[i], 0, 2);
		want = curve(c, qs[i]);
		got = (double)s.marked / DRAWS;
		printf("%12" PRIu32 " %12.6f %12.6f %+12.6f\n", qs[i], want,
		       got, got - want);
	}
}

/*
 * Median TSC ticks a decision over LOOP decisions with backlogs from
 * @p qs, minus nothing: the loop's own load and add are included.
 */
static double
cycles(const struct ibex_ecn_params *p, const uint32_t *qs, int decide)
{
	uint64_t runs[RUNS];
	unsigned int r, k;
	uint64_t sum = 0;

	for (r = 0; r < RUNS; r++) {
		struct ibex_ecn_vars v;
		struct ibex_ecn_stats s;
		struct ibex_ecn_rng rng;
		uint64_t t0, t1;

		ibex_ecn_vars_init(&v);
		memset(&s, 0, sizeof(s));
		ibex_ecn_rng_seed(&rng, r);
		t0 = __rdtsc();
		if (decide) {
			for (k = 0; k < LOOP; k++)
				sum += ibex_ecn_decide(p, &v, &s, &rng,
						       qs[k & QMASK], k,
						       k & 3);
		} else {
			for (k = 0; k < LOOP; k++) {
				sum += qs[k & QMASK] > p->kmax;
				__asm__ volatile("" : "+r"(sum));
			}
		}
		t1 = __rdtsc();
		runs[r] = t1 - t0;
		sum += s.marked;
	}
	qsort(runs, RUNS, sizeof(runs[0]), cmp_u64);
	if (sum == UINT64_MAX)
		printf("#\n");
	return (double)runs[RUNS / 2] / LOOP;
}

static void
timing(const struct ibex_ecn_params *p)
{
	static uint32_t below[QMASK + 1], mid[QMASK + 1];
	unsigned int i;

	for (i = 0; i <= QMASK; i++) {
		below[i] = (uint32_t)((uint64_t)p->kmin * i / (QMASK + 1));
		mid[i] = p->kmin + 1 + (uint32_t)((uint64_t)(p->kmax -
						p->kmin - 1) * i / (QMASK + 1));
	}
	printf("# TSC ticks a decision, median of %d runs of %u:\n", RUNS,
	       LOOP);
	printf("#   empty loop (load + compare + add)  %.2f\n",
	       cycles(p, below, 0));
	printf("#   below Kmin                          %.2f\n",
	       cycles(p, below, 1));
	printf("#   between Kmin and Kmax (draw)        %.2f\n",
	       cycles(p, mid, 1));
}

int
main(int argc, char **argv)
{
	uint64_t rate = argc > 1 ? strtoull(argv[1], NULL, 0) :
		UINT64_C(25000000000);
	struct ibex_ecn_params p;
	struct ibex_ecn_cfg c;
	const char *err = NULL;

	ibex_ecn_cfg_default(&c, rate);
	if (ibex_ecn_params_set(&p, &c, &err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	table(&c, &p);
	timing(&p);
	return 0;
}
