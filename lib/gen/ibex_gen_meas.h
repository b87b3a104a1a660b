/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_MEAS_H
#define IBEX_GEN_MEAS_H

/**
 * @file
 * What the generator's receivers measure: latency histograms (the whole
 * run's, and one per message size of a sweep), jitter and sequence per
 * flow, ECN marks and the CNPs they call for. One writer (the generator
 * lcore); ibex_gen_meas_rx() runs per frame.
 *
 * Latency per message size: a frame's delay goes into one histogram, the
 * active one (lat_cur). Without sizes that is lat, the whole run's. A
 * sweep attaches one histogram per size (ibex_gen_meas_sizes()), makes
 * each size's the active one before its first iteration
 * (ibex_gen_meas_size_select()), empties it when its warm-up ends
 * (ibex_gen_meas_size_restart()) and, once the last frame is in, makes lat
 * the sum of them all (ibex_gen_meas_sizes_fold()): per frame nothing
 * changes but the pointer the sample goes through, and the sizes' counts
 * add up to the whole run's by construction.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_hist.h"
#include "ibex_jitter.h"
#include "ibex_seq.h"
#include "ibex_gen_frame.h"
#include "ibex_gen_limits.h"

/** Interval between CNPs of one flow (DCQCN's N = 50 us), in ns. */
#define IBEX_GEN_CNP_INTERVAL_NS 50000

/** What the receivers measured (one writer: the generator lcore). */
struct ibex_gen_meas {
	struct ibex_hist lat;   /**< one-way delay, ticks: the whole run */
	struct ibex_hist *lat_cur;  /**< where a frame's delay goes: lat, or
					 the running size's histogram */
	struct ibex_hist *lat_size; /**< one per message size (sweeps), the
					 caller's memory; NULL: none */
	unsigned int nsizes;    /**< histograms in lat_size */
	uint64_t rx_frames;
	uint64_t rx_bytes;      /**< frame bytes */
	uint64_t rx_payload;    /**< application bytes */
	uint64_t ce;            /**< frames with ECN CE */
	uint64_t ect;           /**< frames with ECT(0)/ECT(1) */
	uint64_t foreign;       /**< frames not for a rank of the port */
	uint64_t no_trailer;    /**< frames without a probe trailer */
	uint64_t fc_frames;     /**< PFC and credit frames received */
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t tx_payload;
	uint64_t cnps;          /**< CNPs generated (CE seen, rate limited) */
	/* What a NIC's reorder buffer would need: the most frames of one QP
	 * that arrived ahead of a late one (it holds them until the late
	 * one comes), and their bytes (that many frames of the late one's
	 * size). */
	uint32_t reorder_depth;
	uint64_t reorder_bytes;
	/* UEC packet trimming seen from the receivers: trimmed frames (a
	 * NACK each: their sender retransmits them), the retransmissions
	 * sent and received, NACKs the sender's queue could not take, and
	 * the recovery time, NACK to the retransmission's arrival, ticks. */
	uint64_t trimmed_rx;
	uint64_t retx_tx;
	uint64_t retx_rx;
	uint64_t nack_lost;
	uint64_t retx_pending;  /**< NACKs and timeouts queued, not yet
				     answered (gauge) */
	struct ibex_hist recovery;
	/* Loss recovery by timeout (--rto): frames sent again because they
	 * had not arrived an RTO after they were sent, those copies
	 * received, NACKs of a frame already queued or arrived (ignored),
	 * copies of a frame that had arrived (duplicates: not counted
	 * again), and frames held because the port's window of frames in
	 * flight was full. */
	uint64_t rto_tx;
	uint64_t rto_rx;
	uint64_t nack_dup;
	uint64_t dup_rx;
	uint64_t window_full;
	/* Per sub-flow (a rank pair's queue pair, ibex_gen_subflow(): qp x
	 * the run's pairs + the pair's slot): a QP has its own PSNs, so
	 * order is kept and checked per QP. [nsub] each, allocated by
	 * ibex_gen_meas_init() for the pairs the run uses. */
	uint32_t nsub;
	struct ibex_jitter *jit;
	struct ibex_seq *seq;
	uint64_t *last_cnp;
	uint32_t *tx_seq;
	uint32_t *tx_psn;
};

/** Bytes one sub-flow takes in the measurement's tables. */
#define IBEX_GEN_MEAS_SUBFLOW_BYTES \
	(sizeof(struct ibex_jitter) + sizeof(struct ibex_seq) + \
	 sizeof(uint64_t) + 2 * sizeof(uint32_t))

/**
 * Empty everything and allocate the tables of @p nsub sub-flows (at
 * least 1); sequence checkers expect 0 first. Latency goes to lat, the
 * whole run's histogram, until sizes are attached.
 * @return 0 or -ENOMEM (then nothing is held).
 */
int ibex_gen_meas_init(struct ibex_gen_meas *m, uint32_t nsub);
/** Free the sub-flow tables (a zeroed @p m too). */
void ibex_gen_meas_fini(struct ibex_gen_meas *m);
/** Restart latency and jitter (end of warm-up): lat, every size's
 * histogram and every flow's jitter; sequences go on. */
void ibex_gen_meas_reset_latency(struct ibex_gen_meas *m);

/**
 * Attach @p n per-size histograms at @p h (@p n x sizeof(*h), owned by
 * the caller, kept until the measurement is freed) and empty them. Before
 * the run starts; latency still goes to lat until a size is selected.
 */
void ibex_gen_meas_sizes(struct ibex_gen_meas *m, struct ibex_hist *h,
			 unsigned int n);
/** From now on frames' delays go to size @p si's histogram (lat when no
 * sizes are attached, or @p si is out of range). Between iterations. */
void ibex_gen_meas_size_select(struct ibex_gen_meas *m, unsigned int si);
/** Empty the active histogram: its size's warm-up is over. */
void ibex_gen_meas_size_restart(struct ibex_gen_meas *m);
/** After the run: lat becomes the sum of every size's histogram (with no
 * sizes attached, lat is kept as it is). */
void ibex_gen_meas_sizes_fold(struct ibex_gen_meas *m);
/** Size @p si's histogram, or NULL when there is none. */
const struct ibex_hist *ibex_gen_meas_size_lat(const struct ibex_gen_meas *m,
					       unsigned int si);

/** Note the reorder depth of a frame behind its QP's expected number
 * (a late frame: not a duplicate). */
static inline void
ibex_gen_meas_late(struct ibex_gen_meas *m, uint32_t f, uint32_t seq,
		   uint32_t frame_len)
{
	const struct ibex_seq *s = &m->seq[f];
	uint32_t back = s->expected - seq, b;

	/* Ahead of the expected number: a gap, not a late frame. */
	if (back == 0 || back > (UINT32_C(1) << 31))
		return;
	/* Inside the window its bit tells a duplicate; further back it is
	 * taken as late, as the checker takes it. */
	b = seq % IBEX_SEQ_WINDOW;
	if (back <= s->span && ((s->seen[b / 64] >> (b % 64)) & 1))
		return;
	/* Received ahead of it: at most back - 1 (those not lost). */
	if (back - 1 > m->reorder_depth)
		m->reorder_depth = back - 1;
	if ((uint64_t)(back - 1) * frame_len > m->reorder_bytes)
		m->reorder_bytes = (uint64_t)(back - 1) * frame_len;
}

/**
 * Account one received probe frame. @return true when a CNP is due for the
 * flow's sender (CE seen and the last CNP is @p cnp_gap ticks old).
 */
static inline bool
ibex_gen_meas_rx(struct ibex_gen_meas *m, const struct ibex_gen_trailer *t,
		 uint32_t frame_len, uint8_t ecn, uint64_t now,
		 uint64_t cnp_gap)
{
	uint32_t f = t->flow;

	m->rx_frames++;
	m->rx_bytes += frame_len;
	ibex_hist_record(m->lat_cur, now - t->tsc);
	ibex_jitter_update(&m->jit[f], t->tsc, now);
	if (ibex_unlikely(t->seq != m->seq[f].expected && !m->seq[f].learn))
		ibex_gen_meas_late(m, f, t->seq, frame_len);
	ibex_seq_update(&m->seq[f], t->seq);
	if (ecn == IBEX_ECN_CE) {
		m->ce++;
		if (now - m->last_cnp[f] >= cnp_gap) {
			m->last_cnp[f] = now;
			m->cnps++;
			return true;
		}
	} else if (ecn != IBEX_ECN_NOT_ECT) {
		m->ect++;
	}
	return false;
}

/** Sequence counters summed over every flow. */
void ibex_gen_meas_seq_total(const struct ibex_gen_meas *m,
			     struct ibex_seq_counters *out);

#endif /* IBEX_GEN_MEAS_H */
