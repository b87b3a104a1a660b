/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_COUNTERS_H
#define IBEX_COUNTERS_H

/**
 * @file
 * The renderers of the counter sets listed in ibex_dp_counters.h: one for
 * text tables, one for JSON (ibex-ctl --json and the final --json file),
 * one for rte_telemetry, each driven by the set's X-macro list. Every
 * place that shows a set's counters calls these, so the keys, their order
 * and their meaning are the same in all of them.
 */

#include <stdint.h>

#include "ibex_cmd.h"
#include "ibex_dp_counters.h"

struct rte_tel_data;
struct ibex_fdb_stats;
struct ibex_capture_view;

/** One counter of a set, as its X-macro line gives it. */
struct ibex_cnt_desc {
	const char *key;
	const char *column;      /**< text heading, "" when not a column */
	int width;
	const char *unit;
	const char *help;
	unsigned int modes;      /**< IBEX_FC_CNT_ modes that have it; 0: all */
};

/** A counter set: its counters' descriptions, in list order. */
struct ibex_cnt_set {
	const char *name;        /**< "port", "lane" */
	const struct ibex_cnt_desc *desc;
	unsigned int n;
};

/** Index of each counter in its set: IBEX_PORT_CNT_rx_frames, ... */
enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help) IBEX_PORT_CNT_##key,
	IBEX_PORT_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_PORT_CNT_NB
};
enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help) IBEX_LANE_CNT_##key,
	IBEX_LANE_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_LANE_CNT_NB
};
enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help, m) IBEX_FC_CNT_##key,
	IBEX_FC_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_FC_CNT_NB
};
enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help) IBEX_FC_LANE_CNT_##key,
	IBEX_FC_LANE_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_FC_LANE_CNT_NB
};

enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help) IBEX_CBFC_CNT_##key,
	IBEX_CBFC_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_CBFC_CNT_NB
};
enum {
#define IBEX_CNT_ENUM(key, val, col, w, unit, help) IBEX_CBFC_VC_CNT_##key,
	IBEX_CBFC_VC_COUNTERS(IBEX_CNT_ENUM)
#undef IBEX_CNT_ENUM
	IBEX_CBFC_VC_CNT_NB
};

extern const struct ibex_cnt_set ibex_port_cnt_set;
extern const struct ibex_cnt_set ibex_lane_cnt_set;
extern const struct ibex_cnt_set ibex_fc_cnt_set;
extern const struct ibex_cnt_set ibex_fc_lane_cnt_set;
extern const struct ibex_cnt_set ibex_cbfc_cnt_set;
extern const struct ibex_cnt_set ibex_cbfc_vc_cnt_set;

struct ibex_dp_fc_view;
struct ibex_dp_cbfc_view;

/** The values of a port's counters in list order (IBEX_PORT_CNT_NB). */
void ibex_port_cnt_values(const struct ibex_port_counters *c, uint64_t *v);
/** The values of a lane's counters in list order (IBEX_LANE_CNT_NB). */
void ibex_lane_cnt_values(const struct ibex_lane_counters *c, uint64_t *v);
/** The values of a port's flow-control counters (IBEX_FC_CNT_NB). */
void ibex_fc_cnt_values(const struct ibex_dp_fc_view *c, uint64_t *v);
/** The values of lane @p vl's flow-control state (IBEX_FC_LANE_CNT_NB). */
void ibex_fc_lane_cnt_values(const struct ibex_dp_fc_view *c, unsigned int vl,
			     uint64_t *v);

/** The values of a CBFC port's counters (IBEX_CBFC_CNT_NB). */
void ibex_cbfc_cnt_values(const struct ibex_dp_cbfc_view *c, uint64_t *v);
/** The values of VC @p vc's CBFC state (IBEX_CBFC_VC_CNT_NB). */
void ibex_cbfc_vc_cnt_values(const struct ibex_dp_cbfc_view *c,
			     unsigned int vc, uint64_t *v);

/*
 * The renderers of any set. @p mode picks the counters of one
 * flow-control mode (IBEX_FC_CNT_CREDIT or _PFC); 0 takes them all.
 */

/** Text: " %*s" per column of the set (headings). */
void ibex_cnt_text_head(struct ibex_out *o, const struct ibex_cnt_set *s,
			unsigned int mode);
/** Text: " %*u" per column of the set. */
void ibex_cnt_text_row(struct ibex_out *o, const struct ibex_cnt_set *s,
		       const uint64_t *v, unsigned int mode);
/** JSON members '"key": v' of every counter, ", " between, none before. */
void ibex_cnt_json(struct ibex_out *o, const struct ibex_cnt_set *s,
		   const uint64_t *v, unsigned int mode);
/** Telemetry: one u64 member per counter into the dict @p d, each key
 * after @p prefix ("" for none). */
void ibex_cnt_tel(struct rte_tel_data *d, const struct ibex_cnt_set *s,
		  const uint64_t *v, unsigned int mode, const char *prefix);

struct ibex_emit;

/** Through the emitter: one u64 member per counter of the set. */
void ibex_cnt_emit(struct ibex_emit *e, const struct ibex_cnt_set *s,
		   const uint64_t *v, unsigned int mode);
/** A port's counters then "drops": {reason: n, ...} (every reason),
 * members of the open object. */
void ibex_port_cnt_emit(struct ibex_emit *e, const struct ibex_port_counters *c);
/** The FDB's counters, members of the open object. */
void ibex_fdb_cnt_emit(struct ibex_emit *e, const struct ibex_fdb_stats *st);
/** A capture's status (IBEX_CAPTURE_FIELDS), members of the open object;
 * "seconds" a double with three decimals. */
void ibex_capture_emit(struct ibex_emit *e, const struct ibex_capture_view *v,
		       const char *port);

/** A port's counters then its drops by reason, as JSON members:
 * '"rx_frames": n, ..., "drops": {"runt": n, ...}'. */
void ibex_port_cnt_json(struct ibex_out *o, const struct ibex_port_counters *c);
/** The same into a telemetry dict (drops as "drop_<reason>"). */
void ibex_port_cnt_tel(struct rte_tel_data *d,
		       const struct ibex_port_counters *c);
/** A lane's counters as JSON members. */
void ibex_lane_cnt_json(struct ibex_out *o, const struct ibex_lane_counters *c);
/** A lane's counters into a telemetry dict. */
void ibex_lane_cnt_tel(struct rte_tel_data *d,
		       const struct ibex_lane_counters *c);

/** A PFC port's flow-control counters then paused_ns_p0..7, as JSON
 * members (", " between, none before). */
void ibex_fc_pfc_cnt_json(struct ibex_out *o, const struct ibex_dp_fc_view *c);
/** A credit port's flow-control counters as JSON members. */
void ibex_fc_credit_cnt_json(struct ibex_out *o,
			     const struct ibex_dp_fc_view *c);
/** A flow-controlled port's counters into a telemetry dict: those of its
 * mode (@p mode: IBEX_FC_CNT_CREDIT or _PFC), paused_ns_p0..7 for PFC,
 * and "vl<N>_<key>" of each lane in the mask @p lanes. */
void ibex_fc_cnt_tel(struct rte_tel_data *d, const struct ibex_dp_fc_view *c,
		     unsigned int mode, uint16_t lanes);

/** The FDB's counters as JSON members (IBEX_FDB_COUNTERS). */
void ibex_fdb_cnt_json(struct ibex_out *o, const struct ibex_fdb_stats *st);
/** The same into a telemetry dict. */
void ibex_fdb_cnt_tel(struct rte_tel_data *d, const struct ibex_fdb_stats *st);
/** The same as one line of text (no newline): "N entries (S static),
 * learned L, moved M, aged A, refused (full) F". */
void ibex_fdb_cnt_text(struct ibex_out *o, const struct ibex_fdb_stats *st);

/*
 * A capture's status, the one definition of its fields: `show capture
 * --json` (ibex-ctl, and `capture status --json`) and telemetry
 * /ibex/capture render this list, in this order, with these keys.
 * X(key, kind, value): kind STR (a string), U64, or SECS (a double, three
 * decimals); value reads `v` (const struct ibex_capture_view *) and
 * `port` (the captured port's name).
 */
#define IBEX_CAPTURE_FIELDS(X) \
	X(id, U64, v->id) \
	X(state, STR, ibex_capture_state_name(v->state)) \
	X(port, STR, port) \
	X(dir, STR, ibex_capture_dir_name(v->dir)) \
	X(file, STR, v->path) \
	X(filter, STR, v->filter) \
	X(snaplen, U64, v->snaplen) \
	X(count, U64, v->count) \
	X(copied, U64, v->copied) \
	X(written, U64, v->written) \
	X(bytes, U64, v->bytes) \
	X(dropped, U64, v->dropped) \
	X(filtered, U64, v->filtered) \
	X(past_count, U64, v->past_count) \
	X(seconds, SECS, (double)v->duration_ns / 1e9) \
	X(end, STR, v->end) \
	X(error, STR, v->error != 0 ? strerror(-v->error) : "")

/** "none", "running", "stopping", "done". */
const char *ibex_capture_state_name(unsigned int state);
/** "-", "rx", "tx", "both" of IBEX_CAPTURE_ direction bits. */
const char *ibex_capture_dir_name(unsigned int dir);
/** A capture's status as one JSON object ("{...}"), @p port its port's
 * name ("" before any capture). */
void ibex_capture_json(struct ibex_out *o, const struct ibex_capture_view *v,
		       const char *port);
/** The same members into the telemetry dict @p d (started by the
 * caller). DPDK 22.11 telemetry has no floating-point value: a SECS field
 * is a string of the same digits; strings are cut at its 127 bytes. */
void ibex_capture_tel(struct rte_tel_data *d, const struct ibex_capture_view *v,
		      const char *port);

/** Telemetry key of drop reason @p r: @p prefix and its name with '-' as
 * '_' (telemetry names allow [A-Za-z0-9_]). @return @p buf. */
const char *ibex_tel_reason_key(unsigned int r, const char *prefix, char *buf,
				size_t len);

#endif /* IBEX_COUNTERS_H */
