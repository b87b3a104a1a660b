/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregation slot adds (lib/agg ibex_agg_sum.c): elements a second
 * for int32 and fp32, the vector path ibex takes on this CPU against the
 * scalar loop, on chunks of a packet's size (256 and 2048 elements, in
 * L1 as a slot's are).
 *
 *   agg_add [SECONDS]     (default 0.5 a figure)
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibex_agg_sum.h"

typedef void (*add_fn)(void *acc, const void *src, uint32_t n);

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
i32_vec(void *a, const void *s, uint32_t n)
{
	ibex_agg_add_i32(a, s, n);
}

static void
i32_scalar(void *a, const void *s, uint32_t n)
{
	ibex_agg_add_i32_scalar(a, s, n);
}

static void
f32_vec(void *a, const void *s, uint32_t n)
{
	ibex_agg_add_f32(a, s, n);
}

static void
f32_scalar(void *a, const void *s, uint32_t n)
{
	ibex_agg_add_f32_scalar(a, s, n);
}

/* Elements a second of @p f on chunks of @p n, for about @p secs. The
 * source is the packet's payload: 2 bytes off a 4-byte boundary, as
 * after a 22-byte header behind a 42-byte Ethernet/IPv4/UDP one in an
 * mbuf whose data starts 2 bytes in. */
static double
rate(add_fn f, uint32_t n, double secs)
{
	static float acc[2048] __attribute__((aligned(64)));
	static uint8_t src[4 * 2048 + 64] __attribute__((aligned(64)));
	uint64_t done = 0, k;
	double t0 = now_s(), t;

	memset(acc, 0, sizeof(acc));
	for (k = 0; k < sizeof(src); k++)
		src[k] = (uint8_t)(k * 7 % 61);   /* small floats, no NaN */
	do {
		for (k = 0; k < 4096; k++)
			f(acc, src + 2, n);
		done += 4096 * (uint64_t)n;
		t = now_s() - t0;
	} while (t < secs);
	/* keep the sums alive */
	if (acc[0] == 12345.0f)
		printf(" ");
	return (double)done / t;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 256, 2048 };
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	double v, s;
	unsigned int i;

	if (secs <= 0)
		secs = 0.5;
	printf("agg_add: vector path %s, %.2f s a figure\n",
	       ibex_agg_add_path(), secs);
	printf("%-6s %6s %14s %14s %8s\n", "type", "elems", "vector Gel/s",
	       "scalar Gel/s", "speedup");
	for (i = 0; i < 2; i++) {
		v = rate(i32_vec, sizes[i], secs);
		s = rate(i32_scalar, sizes[i], secs);
		printf("%-6s %6u %14.2f %14.2f %7.1fx\n", "int32", sizes[i],
		       v / 1e9, s / 1e9, v / s);
		v = rate(f32_vec, sizes[i], secs);
		s = rate(f32_scalar, sizes[i], secs);
		printf("%-6s %6u %14.2f %14.2f %7.1fx\n", "fp32", sizes[i],
		       v / 1e9, s / 1e9, v / s);
	}
	return 0;
}
