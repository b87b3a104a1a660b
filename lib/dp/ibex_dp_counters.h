/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_COUNTERS_H
#define IBEX_DP_COUNTERS_H

/**
 * @file
 * The data path's counter sets, each listed once.
 *
 * Like the drop reasons (IBEX_REASONS in ibex_reason.h), each set is an
 * X-macro list, and every place that shows the set (ibex-ctl's text and
 * JSON, the final --json file, the /ibex/ telemetry, the summary table)
 * is driven by it (lib/ctl/ibex_counters.c), so they cannot disagree on
 * a key, an order or a meaning: adding a counter is a field in the
 * struct and one line here. Each entry is
 *
 *   X(key, value, column, width, unit, help)
 *
 * key     the JSON and telemetry key (telemetry allows [A-Za-z0-9_]);
 * value   the counter, an expression of `c`, the summed struct;
 * column  the heading of the text table's column, "" for none (text
 *         tables keep to the counters people scan; JSON has them all);
 * width   that column's width;
 * unit    what one count is ("frames", "bytes"; a "gauge" is a level
 *         now, not a count since start);
 * help    one line, the meaning (docs/control.md lists the same).
 */

#include <stdint.h>

#include <rte_common.h>

#include "ibex_ecn.h"
#include "ibex_reason.h"

/** Per-worker, per-port counters: one writer (the worker), written with
 * IBEX_CNT_ADD and read with IBEX_CNT_READ (ibex_counter.h). */
struct ibex_port_counters {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t flood_pkts;     /**< frames flooded (counted at ingress) */
	uint64_t learn_posted;   /**< learn requests queued to control */
	uint64_t learn_lost;     /**< learn requests lost: ring full */
	uint64_t consumed;       /**< flow-control frames (PFC on a PFC port,
				      credit on a credit port) and aggregation
				      frames taken by the switch: neither
				      forwarded nor dropped, so rx = forwarded
				      + dropped + consumed */
	uint64_t agg_taken;      /**< of them, aggregation frames (so the
				      flow-control ones are the rest) */
	uint64_t link_downs;     /**< link up -> down edges seen (the control
				      thread's, in the sum only: 0 per worker) */
	uint64_t redials;        /**< restarts to reconnect a peer (likewise) */
	uint64_t drop[IBEX_R_MAX]; /**< frames dropped, by reason (at ingress
				      for ingress reasons, at egress for TX) */
} __rte_cache_aligned;

/** The scalar fields of struct ibex_port_counters, X(field), for code
 * that goes over all of them (sums, differences); drop[] follows them. */
#define IBEX_PORT_FIELDS(X) \
	X(rx_pkts) X(rx_bytes) X(tx_pkts) X(tx_bytes) X(flood_pkts) \
	X(learn_posted) X(learn_lost) X(consumed) X(agg_taken) X(link_downs) X(redials)

/** @p c minus @p base, field by field: counters since a baseline. */
static inline void
ibex_port_counters_sub(struct ibex_port_counters *c,
		       const struct ibex_port_counters *base)
{
	unsigned int r;

#define IBEX_PORT_FIELD_SUB(f) c->f -= base->f;
	IBEX_PORT_FIELDS(IBEX_PORT_FIELD_SUB)
#undef IBEX_PORT_FIELD_SUB
	for (r = 0; r < IBEX_R_MAX; r++)
		c->drop[r] -= base->drop[r];
}

/** Frames a port dropped, all reasons. */
static inline uint64_t
ibex_port_dropped(const struct ibex_port_counters *c)
{
	uint64_t sum = 0;
	unsigned int r;

	for (r = 1; r < IBEX_R_MAX; r++)
		sum += c->drop[r];
	return sum;
}

/**
 * A port's counters (struct ibex_port_counters, summed over the workers
 * by ibex_dp_port_totals()). The drops by reason follow them in every
 * view, keyed by IBEX_REASONS: JSON as "drops": {"<reason>": n},
 * telemetry as "drop_<reason>" with '-' as '_'.
 */
#define IBEX_PORT_COUNTERS(X) \
	X(rx_frames,    (c)->rx_pkts,      "rx-frames", 14, "frames", \
	  "frames received") \
	X(rx_bytes,     (c)->rx_bytes,     "rx-bytes",  16, "bytes", \
	  "bytes received (frame lengths, no FCS)") \
	X(tx_frames,    (c)->tx_pkts,      "tx-frames", 14, "frames", \
	  "frames the port's TX queues accepted") \
	X(tx_bytes,     (c)->tx_bytes,     "tx-bytes",  16, "bytes", \
	  "bytes the port's TX queues accepted") \
	X(flooded,      (c)->flood_pkts,   "flooded",   10, "frames", \
	  "frames received and flooded (unknown unicast, broadcast, multicast)") \
	X(learn_posted, (c)->learn_posted, "",           0, "requests", \
	  "learn requests posted to the control thread") \
	X(learn_lost,   (c)->learn_lost,   "",           0, "requests", \
	  "learn requests lost (the learn ring was full)") \
	X(dropped,      ibex_port_dropped(c), "dropped", 10, "frames", \
	  "frames dropped, all reasons (by reason: drops)") \
	X(consumed,     (c)->consumed,     "consumed",  10, "frames", \
	  "flow-control and aggregation frames the switch took (rx = forwarded + dropped + consumed)") \
	X(agg_taken,    (c)->agg_taken,    "",           0, "frames", \
	  "aggregation frames the switch took, counted in consumed too") \
	X(link_downs,   (c)->link_downs,   "",           0, "events", \
	  "times the port's link went down (its learned FDB entries are flushed)") \
	X(redials,      (c)->redials,      "",           0, "events", \
	  "restarts of a memif client port to reconnect its server")

/**
 * Counters of one (egress port, VL) lane, summed over the workers
 * (ibex_dp_lane_totals()). Gauges (qlen_*) are the backlog now.
 */
struct ibex_lane_counters {
	uint64_t cut_through;    /**< frames sent straight from RX */
	uint64_t queued;         /**< frames that waited in the lane queue */
	uint64_t tx_pkts;        /**< frames of the lane TX accepted */
	uint64_t tx_bytes;
	uint64_t drops;          /**< lane drops (queue full, watchdog) */
	uint64_t qlen_pkts;      /**< backlog now */
	uint64_t qlen_bytes;
	uint64_t ecn_seen[4];    /**< by RFC 3168 codepoint of frames that
				      reached the ECN decision */
	uint64_t ecn_marked;     /**< ECT frames set to CE */
	uint64_t fecn_marked;    /**< RoCEv2 frames given BTH FECN */
	uint64_t trimmed;        /**< frames the full lane trimmed instead of
				      dropping (sent on the trim lane) */
};

/** The counters of a lane (struct ibex_lane_counters). */
#define IBEX_LANE_COUNTERS(X) \
	X(cut_through,  (c)->cut_through,  "cut-through", 12, "frames", \
	  "frames sent straight from RX (the lane was idle)") \
	X(queued,       (c)->queued,       "queued",      12, "frames", \
	  "frames that waited in the lane queue") \
	X(tx_frames,    (c)->tx_pkts,      "tx-frames",   12, "frames", \
	  "frames of the lane TX accepted") \
	X(tx_bytes,     (c)->tx_bytes,     "tx-bytes",    14, "bytes", \
	  "bytes of the lane TX accepted") \
	X(drops,        (c)->drops,        "drops",       10, "frames", \
	  "frames the lane dropped (queue full, watchdog)") \
	X(qlen_frames,  (c)->qlen_pkts,    "qlen",         8, "frames, gauge", \
	  "frames waiting in the lane queue now") \
	X(qlen_bytes,   (c)->qlen_bytes,   "qlen-bytes",  10, "bytes, gauge", \
	  "bytes waiting in the lane queue now") \
	X(not_ect_seen, (c)->ecn_seen[0],  "",             0, "frames", \
	  "Not-ECT IP frames that reached the ECN decision") \
	X(ect_seen,     ibex_ecn_ect_seen((c)->ecn_seen), "", 0, "frames", \
	  "ECN-capable IP frames (ECT(0), ECT(1) and CE) that reached the ECN decision") \
	X(ce_seen,      (c)->ecn_seen[3],  "",             0, "frames", \
	  "CE frames that reached the ECN decision (marked upstream)") \
	X(ecn_marked,   (c)->ecn_marked,   "ecn-marked",  10, "frames", \
	  "ECT frames this lane set to CE") \
	X(fecn_marked,  (c)->fecn_marked,  "",             0, "frames", \
	  "marked RoCEv2 frames also given BTH FECN") \
	X(trimmed,      (c)->trimmed,      "trimmed",     10, "frames", \
	  "frames the full lane trimmed (UEC) and sent ahead instead of dropping")

/** Which flow-control mode a counter of IBEX_FC_COUNTERS belongs to. */
#define IBEX_FC_CNT_CREDIT 1u
#define IBEX_FC_CNT_PFC 2u
#define IBEX_FC_CNT_BOTH (IBEX_FC_CNT_CREDIT | IBEX_FC_CNT_PFC)

/**
 * A flow-controlled port's counters (struct ibex_dp_fc_view, summed over
 * the workers by ibex_dp_fc_view()): X(key, value, column, width, unit,
 * help, modes), @p modes the IBEX_FC_CNT_ modes that have the counter
 * (a credit port's views show the credit ones, a PFC port's the PFC
 * ones). The time each priority was paused follows the PFC ones in every
 * view, as paused_ns_p0 .. paused_ns_p7.
 */
#define IBEX_FC_COUNTERS(X) \
	X(fc_tx,        (c)->fc_tx,       "fc-tx",   10, "frames", \
	  "credit frames sent", IBEX_FC_CNT_CREDIT) \
	X(fc_rx,        (c)->fc_rx,       "fc-rx",   10, "frames", \
	  "credit frames received and applied", IBEX_FC_CNT_CREDIT) \
	X(fc_tx_fail,   (c)->fc_tx_fail,  "",         0, "frames", \
	  "flow-control frames TX did not take (sent again later)", \
	  IBEX_FC_CNT_BOTH) \
	X(pfc_tx,       (c)->pfc_tx,      "",         0, "frames", \
	  "PFC frames sent", IBEX_FC_CNT_PFC) \
	X(pfc_rx,       (c)->pfc_rx,      "",         0, "frames", \
	  "PFC frames received (pfc_ignored included)", IBEX_FC_CNT_PFC) \
	X(xoff_tx,      (c)->xoff_tx,     "xoff-tx",  8, "edges", \
	  "XOFF sent (per priority that went XOFF)", IBEX_FC_CNT_PFC) \
	X(xon_tx,       (c)->xon_tx,      "xon-tx",   8, "edges", \
	  "XON sent (per priority that went XON)", IBEX_FC_CNT_PFC) \
	X(xoff_rx,      (c)->xoff_rx,     "xoff-rx",  8, "edges", \
	  "priorities paused by received PFC frames", IBEX_FC_CNT_PFC) \
	X(xon_rx,       (c)->xon_rx,      "",         0, "edges", \
	  "priorities released by received PFC frames (quanta 0)", \
	  IBEX_FC_CNT_PFC) \
	X(pfc_ignored,  (c)->pfc_ignored, "ignored",  8, "frames", \
	  "PFC frames received with a zero class-enable vector", \
	  IBEX_FC_CNT_PFC) \
	X(storms,       (c)->storms,      "storms",   7, "events", \
	  "PFC watchdog: pause storms detected", IBEX_FC_CNT_PFC) \
	X(restored,     (c)->restored,    "restored", 7, "events", \
	  "PFC watchdog: lanes restored after a storm", IBEX_FC_CNT_PFC) \
	X(handoff_lost, (c)->handoff_lost, "",        0, "frames", \
	  "flow-control frames lost on the way to the port's owner worker", \
	  IBEX_FC_CNT_BOTH)

/**
 * A flow-controlled port's per-lane state (struct ibex_dp_fc_view,
 * lane `vl`). JSON rows per (port, VL) have these keys; telemetry, one
 * dict per port, prefixes them with "vl<N>_".
 */
#define IBEX_FC_LANE_COUNTERS(X) \
	X(credits,         (c)->credits[vl],    "credits",   8, \
	  "blocks, gauge", "credit blocks we may still send (credit ports)") \
	X(buf_used,        (c)->buf_used[vl],   "buf-used",  8, \
	  "blocks, gauge", "buffer blocks charged to (ingress port, VL) now") \
	X(advertised_free, (c)->buf_free[vl],   "advert",    8, \
	  "blocks, gauge", "free buffer blocks we may advertise (the smallest worker slice)") \
	X(violations,      (c)->violations[vl], "violations", 10, "frames", \
	  "lossless frames that found no room (the peer broke credits or PFC)") \
	X(buf_peak,        (c)->buf_peak[vl],   "buf-peak",  8, \
	  "blocks, gauge", "most blocks charged to (ingress port, VL) at once past its reserved share (0: never past it)") \
	X(headroom_peak,   (c)->hr_peak[vl],    "hr-peak",   7, \
	  "blocks, gauge", "most PFC headroom blocks (ingress port, VL) held at once")

/**
 * A CBFC port's counters (struct ibex_dp_cbfc_view, docs/cbfc.md), named
 * after SAI's (SAI_PORT_STAT_CBFC_*; the map is in docs/cbfc.md).
 */
#define IBEX_CBFC_COUNTERS(X) \
	X(sender_credits_used, (c)->used, "used", 8, "credits, gauge", \
	  "credits the port's lossless VCs have in use (S_CU)") \
	X(sender_credits_used_watermark, (c)->used_watermark, "used-wm", 8, \
	  "credits, gauge", "most credits the port had in use at once") \
	X(cc_update_tx, (c)->cc_update_tx, "cc-tx", 8, "messages", \
	  "CC_Updates sent") \
	X(cc_update_rx, (c)->cc_update_rx, "cc-rx", 8, "messages", \
	  "CC_Updates received") \
	X(cf_update_tx, (c)->cf_update_tx, "cf-tx", 9, "messages", \
	  "CF_Updates sent") \
	X(cf_update_rx, (c)->cf_update_rx, "cf-rx", 9, "messages", \
	  "CF_Updates received") \
	X(cf_update_bad, (c)->cf_update_bad, "cf-bad", 6, "messages", \
	  "CF_Updates ignored: freed more than was in use, or a VC not lossless") \
	X(cc_update_bad, (c)->cc_update_bad, "cc-bad", 6, "messages", \
	  "CC_Update counts ignored: behind, or beyond the receiver's buffer") \
	X(link_resets, (c)->link_resets, "resets", 6, "events", \
	  "times the link went down and the counters started again at 0") \
	X(tx_blocked, (c)->tx_blocked, "blocked", 9, "refusals", \
	  "times the send rule held a frame back (each try counts)") \
	X(leaked_recovered, (c)->leaked_recovered, "recovered", 9, "credits", \
	  "credits CC_Updates freed: frames the link lost or corrupted")

/** A CBFC port's per-VC state (struct ibex_dp_cbfc_view, VC `vc`). */
#define IBEX_CBFC_VC_COUNTERS(X) \
	X(vc_credits_used, (c)->vc_used[vc], "vc-used", 8, "credits, gauge", \
	  "credits the VC has in use (SAI_VIRTUAL_CHANNEL_STAT_SENDER_CREDITS_USED)") \
	X(vc_credit_limit, (c)->vc_limit[vc], "vc-limit", 8, "credits, gauge", \
	  "the VC's sender credit limit (S_CL); with a credit profile, what it " \
	  "may hold now of its reserved credits and its pool") \
	X(vc_credits_used_watermark, (c)->vc_used_watermark[vc], "vc-used-wm", \
	  10, "credits, gauge", "most credits the VC had in use at once") \
	X(vc_leaked_recovered, (c)->vc_leaked_recovered[vc], "vc-recov", 8, \
	  "credits", "credits CC_Updates freed on the VC")

#endif /* IBEX_DP_COUNTERS_H */
