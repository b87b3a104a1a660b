/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_SHOW_H
#define IBEX_SHOW_H

/**
 * @file
 * The "show" topics of ibex_topics.h: per topic one function that writes
 * its structured output through the emitter (ibex-ctl --json, DPDK
 * telemetry /ibex/<tel> and the final --json all call it, so their
 * shapes are one) and one that writes the text table ibex-ctl prints.
 *
 * No topic sees the control socket: everything a topic reads is in
 * struct ibex_topic_ctx, which the caller fills (the socket for ibex-ctl
 * and the final --json, the telemetry thread on a copy of the running
 * config taken under its owner's lock).
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_cmd.h"

struct ibex_dp;
struct ibex_conf;
struct ibex_rates;
struct ibex_running;
struct ibex_hist;
struct ibex_emit;
struct ibex_out;

/** What a topic reads. */
struct ibex_topic_ctx {
	struct ibex_dp *dp;
	const struct ibex_conf *conf;  /**< the running config */
	/** "clear counters" baseline of ports: NULL reads the counters
	 * since start (telemetry, the final --json) */
	struct ibex_rates *rates;
	struct ibex_hist *hist;        /**< scratch for latency */
	uint16_t first, end;           /**< the ports: [first, end) */
	/** Another thread than the control thread reads (telemetry):
	 * the capture's published copy. */
	bool shared;
	/** FDB page: from entry fdb_offset, at most fdb_count (0: all). */
	uint32_t fdb_offset;
	uint32_t fdb_count;
	/** config, history: the running config's owner (NULL: none). */
	const struct ibex_running *run;
};

/** A topic's structured output: one object, its members as
 * docs/control.md lists them. @return 0 or -errno. */
typedef int (*ibex_topic_emit_fn)(const struct ibex_topic_ctx *c,
				  struct ibex_emit *e);
/** A topic's text table. @return 0 or -errno. */
typedef int (*ibex_topic_text_fn)(const struct ibex_topic_ctx *c,
				  struct ibex_out *o);

/* The declarations of every topic's two functions. */
#define IBEX_TOPIC_DECL(id, name, port, tel, final, metrics, help) \
	int ibex_show_##name##_emit(const struct ibex_topic_ctx *c, \
				    struct ibex_emit *e); \
	int ibex_show_##name##_text(const struct ibex_topic_ctx *c, \
				    struct ibex_out *o);
IBEX_TOPICS(IBEX_TOPIC_DECL)
#undef IBEX_TOPIC_DECL

/** The emit function of topic @p s. */
ibex_topic_emit_fn ibex_topic_emit(enum ibex_show s);
/** The text function of topic @p s. */
ibex_topic_text_fn ibex_topic_text(enum ibex_show s);

/**
 * "show" as ibex-ctl asks: the topic's text, or its JSON (one line) when
 * @p json. @return 0 or -errno (-ENOMEM: @p o is cut).
 */
int ibex_topic_show(const struct ibex_topic_ctx *c, enum ibex_show s,
		    bool json, struct ibex_out *o);

/**
 * The final --json's topics (ibex_show_in_final()): each topic's members
 * as "show X --json" has them, on the counters since start,
 * comma-separated, appended to @p o. @return 0 or -errno.
 */
int ibex_topic_final_json(const struct ibex_topic_ctx *c, struct ibex_out *o);

#endif /* IBEX_SHOW_H */
