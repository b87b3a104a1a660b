/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregation slot adds (lib/agg ibex_agg_sum.c): elements a second
 * for int32 and fp32, the vector path ibex takes on this CPU against the
 * scalar loop, on chunks of a packet's size (256 and 2048 elements, in
 * L1 as a slot's are); then whole contributions through ibex_agg_rx()
 * at a root of 8 children (parse, checks, the copy or add, the fp32 sum
 * in child order at the last one), the price of reproducible fp32.
 *
 *   agg_add [SECONDS]     (default 0.5 a figure)
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibex_agg.h"
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

#define RX_CHILDREN 8

/* Contributions a second through a root's ibex_agg_rx(): uses of one
 * slot (set 0) of @p n elements of @p dtype, 8 children each. */
static double
rx_rate(uint8_t dtype, uint16_t n, double secs)
{
	static uint8_t pkt[RX_CHILDREN][IBEX_AGG_HDR_LEN + 4 * 2048];
	struct ibex_agg_pool_conf pc = { 64 << 20, 1, 0, 1 };
	struct ibex_agg_job_conf jc = { 1, 1, RX_CHILDREN, 2048, 0, true };
	static uint8_t vals[4 * 2048];
	struct ibex_agg_pool *p;
	struct ibex_agg_out out;
	struct ibex_agg_hdr h;
	uint64_t done = 0, k;
	uint32_t seq = 0, len = 0;
	double t0, t;
	char err[128];
	int c;

	p = ibex_agg_pool_create(&pc, err, sizeof(err));
	if (p == NULL || ibex_agg_job_add(p, &jc, err, sizeof(err)) != 0) {
		fprintf(stderr, "agg_add: %s\n", err);
		exit(1);
	}
	for (k = 0; k < sizeof(vals); k++)
		vals[k] = (uint8_t)(k * 7 % 61);
	t0 = now_s();
	do {
		for (k = 0; k < 1024; k++, seq += 2) {
			for (c = 0; c < RX_CHILDREN; c++) {
				/* only the sequence changes a use: patched in
				 * place, as a host library would */
				if (k == 0 && done == 0) {
					h = (struct ibex_agg_hdr){
						IBEX_AGG_CONTRIB, dtype, n, 1,
						0, 0, (uint16_t)c, 0, 0 };
					len = (uint32_t)ibex_agg_build(pkt[c],
						sizeof(pkt[c]), &h, vals);
				}
				pkt[c][16] = (uint8_t)(seq >> 24);
				pkt[c][17] = (uint8_t)(seq >> 16);
				pkt[c][18] = (uint8_t)(seq >> 8);
				pkt[c][19] = (uint8_t)seq;
				ibex_agg_rx(p, pkt[c], len, 0, &out);
			}
		}
		done += 1024 * RX_CHILDREN;
		t = now_s() - t0;
	} while (t < secs);
	if (ibex_agg_stats(p)->contributions != done) {
		fprintf(stderr, "agg_add: %llu of %llu contributions summed\n",
			(unsigned long long)ibex_agg_stats(p)->contributions,
			(unsigned long long)done);
		exit(1);
	}
	ibex_agg_pool_free(p);
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
	printf("\nibex_agg_rx() at a root of %d children, one slot:\n",
	       RX_CHILDREN);
	printf("%-6s %6s %16s %14s\n", "type", "elems", "contributions/s",
	       "Gel/s");
	for (i = 0; i < 2; i++) {
		v = rx_rate(IBEX_AGG_INT32, (uint16_t)sizes[i], secs);
		printf("%-6s %6u %16.3g %14.2f\n", "int32", sizes[i], v,
		       v * sizes[i] / 1e9);
		v = rx_rate(IBEX_AGG_FP32, (uint16_t)sizes[i], secs);
		printf("%-6s %6u %16.3g %14.2f\n", "fp32", sizes[i], v,
		       v * sizes[i] / 1e9);
	}
	return 0;
}
