/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FABRIC_REPORT_H
#define IBEX_FABRIC_REPORT_H

/**
 * @file
 * ibex-fabric's per-hop report, without EAL: the figures of every switch
 * port, which the app reads from the data paths and the links into one
 * struct per hop, and how they print, as a table and as JSON. Both views
 * take every figure from that one struct (a drop count from its drops by
 * reason, and nothing else), so the two cannot disagree; and when a run
 * fails, the hops that lost frames, most first, with the reason each
 * counted.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_reason.h"

/** Longest "node:port" at the other end of a hop, with its NUL. */
#define IBEX_FABRIC_HOP_TO_LEN 160

/** The LLR counters of one link end, of the names docs/llr.md gives;
 * without LLR there (on false) all 0 and out of the views. */
struct ibex_fabric_llr {
	bool on;
	uint64_t tx_replay;  /**< frames it sent again */
	uint64_t rx_nack;    /**< NACKs the far end sent it */
	uint64_t tx_nack;    /**< NACKs it sent (frames it refused) */
	uint64_t rx_bad;     /**< frames that arrived with a bad FCS */
	uint64_t tx_discard; /**< frames it gave up on (never silent) */
};

/** One switch port: a hop's egress and the next one's ingress. */
struct ibex_fabric_hop {
	const char *sw;          /**< the switch's name (kept by the caller) */
	const char *port;        /**< the port's name (kept by the caller) */
	char to[IBEX_FABRIC_HOP_TO_LEN]; /**< "node:port" at its link's far end */
	bool to_rank;            /**< the far end is a rank */
	uint64_t rx;             /**< data frames received (flow-control
				      frames not included) */
	uint64_t fc_rx;          /**< flow-control frames received (PFC,
				      802.3x, credits), taken, ignored or
				      malformed alike */
	uint64_t tx;             /**< data frames its TX took */
	uint64_t fc_tx;          /**< flow-control frames it sent */
	uint64_t queued, cut;    /**< frames sent after waiting in a lane
				      queue, and straight through */
	uint64_t res_p50_ns, res_p99_ns, res_max_ns; /**< RX to TX */
	/** Frames dropped, by reason (IBEX_REASONS): the one source of
	 * every drop figure of the report. */
	uint64_t drop[IBEX_R_MAX];
	uint64_t lane_drops;     /**< of those, dropped at one of its egress
				      lanes (queue full, watchdog): a part of
				      drop[], never added to it */
	uint64_t trimmed;        /**< frames trimmed instead of dropped */
	uint64_t pfc_tx, pfc_rx; /**< PFC frames */
	uint64_t paused_us;      /**< time its TX was paused, all priorities */
	uint64_t credit_tx, credit_rx; /**< credit frames (ibex's or CBFC's) */
	uint64_t cbfc_recovered; /**< fc cbfc: credits its CC_Updates'
				      receiver freed (frames the link lost) */
	uint64_t cbfc_used_wm;   /**< fc cbfc: most credits in use at once */
	uint64_t violations;     /**< lossless frames beyond the budget */
	uint64_t storms, restored; /**< PFC watchdog */
	uint64_t rx_missed;      /**< frames lost at its link end's full RX
				      ring (the worker was away) */
	uint64_t peer_rx_missed; /**< the same at the far end */
	uint64_t xoff_tx, xon_tx; /**< PFC edges it sent (per priority) */
	uint64_t buf_peak;       /**< most buffer blocks charged to one of its
				      lanes (as ingress) at once, past the
				      lane's reserved share (0: never) */
	uint64_t hr_peak;        /**< most PFC headroom blocks of one lane */
	/** UEC LLR on its link end (net_ibexlink llr=), and on the far end
	 * when that is a rank's (a switch's end has its own row). */
	struct ibex_fabric_llr llr, peer_llr;
};

/** The per-hop report of one run. */
struct ibex_fabric_hops {
	const char *fabric;      /**< the fabric's name */
	unsigned int n_sw, n_ranks, n_links;
	double elapsed_s;
	unsigned int n;          /**< hops, switch by switch, in port order */
	struct ibex_fabric_hop *hop;
};

/**
 * Split what a port received, @p rx_all frames, into data and
 * flow-control frames: the frames the switch took (@p consumed) but for
 * the aggregation frames among them (@p agg_taken, data the switch
 * summed), and those it counted as fc-ignored or fc-frame-bad in @p h's
 * drop[], are flow control; the rest are data. Fill drop[] first.
 */
void ibex_fabric_hop_rx(struct ibex_fabric_hop *h, uint64_t rx_all,
			uint64_t consumed, uint64_t agg_taken);

/** Frames hop @p h dropped, all reasons (the sum of its drop[]). */
uint64_t ibex_fabric_hop_dropped(const struct ibex_fabric_hop *h);

/** The per-hop table, the line of frames missed at the links' ends and,
 * when a link end runs LLR, the line of its replays. */
void ibex_fabric_hops_print(FILE *o, const struct ibex_fabric_hops *t);

/**
 * The per-hop figures as the members of a JSON object (no braces):
 * "elapsed_s", "ranks", "links", "switches": [{"name", "ports": [...]}].
 */
void ibex_fabric_hops_json(FILE *o, const struct ibex_fabric_hops *t);

/** Where frames were lost: a hop, what (a reason of IBEX_REASONS, or one
 * of the two below) and how many. */
struct ibex_fabric_loss {
	const struct ibex_fabric_hop *hop;
	unsigned int what;
	uint64_t frames;
};

/** ibex_fabric_loss.what: lost at the hop's link end's full RX ring. */
#define IBEX_FABRIC_LOSS_RX_MISSED IBEX_R_MAX
/** ibex_fabric_loss.what: lost at the far end's (a rank's) RX ring. */
#define IBEX_FABRIC_LOSS_PEER_MISSED (IBEX_R_MAX + 1)

/**
 * The largest losses of the run, at most @p max, most first (ties: in
 * hop order, then reason order): every (hop, reason) with drops, and the
 * frames missed at switch ports' and ranks' link ends.
 * @return how many were written to @p out.
 */
unsigned int ibex_fabric_losses(const struct ibex_fabric_hops *t,
				struct ibex_fabric_loss *out, unsigned int max);

/** The short name of a loss's @p what ("sl-drop", "rx-missed", ...). */
const char *ibex_fabric_loss_name(unsigned int what);

/**
 * Why a run failed, for the user: @p why (the generator's own words),
 * then the losses, most first, each with its hop, the link's far end,
 * the count and what the reason means; or, when nothing was lost
 * anywhere, that the frames were held or never sent.
 */
void ibex_fabric_diagnose_print(FILE *o, const struct ibex_fabric_hops *t,
				const char *why);

/** The same as a JSON object (no key): {"reason": WHY, "losses": [...]}. */
void ibex_fabric_diagnose_json(FILE *o, const struct ibex_fabric_hops *t,
			       const char *why);

#endif /* IBEX_FABRIC_REPORT_H */
