/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_JITTER_H
#define IBEX_JITTER_H

/**
 * @file
 * RFC 3550 interarrival jitter with RFC 3393/5481 IPDV, and PDV quantiles
 * from a delay histogram. Units are the caller's.
 *
 * Concurrency: one writer, the lcore that owns the object; per-packet
 * functions never lock, allocate or divide. Any other thread may read
 * while the writer runs: every field a reader uses is a word written with
 * the single-writer idiom of ibex_counter.h (IBEX_CNT_*, release where
 * noted) and read whole. A reader may see one packet's update applied to
 * some words and not yet to others; the reader functions say how they
 * cope. Reset and init are for the writer (or while it is stopped).
 *
 * docs/measurement.md gives every formula and source.
 */

#include <stdint.h>

#include "ibex_counter.h"
#include "ibex_hist.h"

/**
 * Jitter of one flow, fed in arrival order. Transit time is
 * T(i) = rx(i) - tx(i) as a signed number (the two clocks need not agree:
 * only differences are used), D(i-1,i) = T(i) - T(i-1) is the IPDV of
 * RFC 3393/5481 between consecutive arrivals, and
 * J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16 (RFC 3550 6.4.1), kept as
 * 16 x J in an integer the way RFC 3550 A.8 does.
 */
struct ibex_jitter {
	uint64_t count;       /**< packets seen */
	uint64_t j16;         /**< RFC 3550 J scaled by 16 */
	int64_t ipdv_min;     /**< most negative IPDV; 0 before 2 packets */
	int64_t ipdv_max;     /**< most positive IPDV; 0 before 2 packets */
	int64_t prev_transit; /**< writer only: T of the previous packet */
};

/** Start a flow's jitter from nothing. Writer only. */
void ibex_jitter_init(struct ibex_jitter *j);

/**
 * Account one packet sent at @p tx and received at @p rx (any unit; the
 * difference is taken modulo 2^64 and read as signed).
 * @return the IPDV D(i-1,i) of this packet, 0 for the first packet.
 *
 * RFC 3550 A.8: jitter += d - ((jitter + 8) >> 4), with jitter = 16 x J.
 * The rounding keeps J within half a time unit of the exact recursion.
 */
static inline int64_t
ibex_jitter_update(struct ibex_jitter *j, uint64_t tx, uint64_t rx)
{
	int64_t transit = (int64_t)(rx - tx);
	uint64_t n = j->count;
	int64_t d;
	uint64_t ad;

	IBEX_CNT_SET(j->count, n + 1);
	if (ibex_unlikely(n == 0)) {
		j->prev_transit = transit;
		return 0;
	}
	/* Subtract as unsigned: wraps instead of overflowing. */
	d = (int64_t)((uint64_t)transit - (uint64_t)j->prev_transit);
	j->prev_transit = transit;
	ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
	IBEX_CNT_SET(j->j16, j->j16 + ad - ((j->j16 + 8) >> 4));
	if (n == 1 || d < j->ipdv_min)
		IBEX_CNT_SET(j->ipdv_min, d);
	if (n == 1 || d > j->ipdv_max)
		IBEX_CNT_SET(j->ipdv_max, d);
	return d;
}

/** RFC 3550 interarrival jitter J, in the timestamps' unit. */
double ibex_jitter_rfc3550(const struct ibex_jitter *j);

/**
 * RFC 5481 PDV at quantile @p q from a histogram of one-way delays
 * rx - tx of the same flow: quantile(delay, q) - min(delay).
 *
 * PDV(i) = D(i) - D_min needs D_min, known only at the end; subtracting a
 * constant keeps the order of samples, so the q-quantile of PDV is the
 * q-quantile of D minus D_min. The error is the histogram's: below 1/128
 * of the delay itself (not of the PDV). 0 when empty.
 */
uint64_t ibex_pdv_quantile(const struct ibex_hist *delay, double q);

#endif /* IBEX_JITTER_H */
