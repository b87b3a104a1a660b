/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_EMIT_H
#define IBEX_EMIT_H

/**
 * @file
 * The structured emitter: one way to write ibex's values, with two back
 * ends, pure C (no EAL) so cmocka tests it.
 *
 * JSON: objects, lists, integers (u64, i64), strings, booleans,
 * durations (integer nanoseconds) and doubles, into a growable buffer
 * (struct ibex_out). The emitter places the ", " between members and
 * items itself, so a renderer states only what it writes:
 *
 *   ibex_emit_json_init(&e, &out);
 *   ibex_emit_obj_begin(&e, NULL);
 *   ibex_emit_u64(&e, "rx_frames", 12);
 *   ibex_emit_list_begin(&e, "ports");
 *   ibex_emit_str(&e, NULL, "p0");
 *   ibex_emit_list_end(&e);
 *   ibex_emit_obj_end(&e);
 *
 * gives {"rx_frames": 12, "ports": ["p0"]}: members as '"key": value',
 * ", " between, no newline (the spacing of every JSON ibex-ctl prints).
 *
 * OpenMetrics: the text exposition format (OpenMetrics 1.0, and the
 * Prometheus text format 0.0.4 it grew from): metric families with
 * # HELP and # TYPE, counters sampled as <family>_total, gauges,
 * histograms as _bucket{le=".."} (cumulative, "+Inf" last), _sum and
 * _count, label values escaped per the spec (\\, \" and \n), and
 * "# EOF" closing an OpenMetrics exposition.
 *
 * Strings are quoted by the one JSON escaper, ibex_json_escape()
 * (lib/common/ibex_json.h), which every JSON writer of ibex calls.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_cmd.h"
#include "ibex_json.h"

/** Deepest nesting of objects and lists the JSON back end keeps. */
#define IBEX_EMIT_DEPTH 16

struct ibex_emit;

/**
 * Another back end of the same calls (DPDK telemetry's rte_tel_data, in
 * ibex_telemetry.c, which needs EAL): when an emitter has ops, every
 * ibex_emit_* call goes to them instead of the JSON writer. A back end
 * keeps its state behind @c ctx and reports errors in @c err.
 */
struct ibex_emit_ops {
	void (*open)(struct ibex_emit *e, const char *key, bool list);
	void (*close)(struct ibex_emit *e, bool list);
	void (*u64)(struct ibex_emit *e, const char *key, uint64_t v);
	void (*i64)(struct ibex_emit *e, const char *key, int64_t v);
	void (*str)(struct ibex_emit *e, const char *key, const char *s);
	void (*boolean)(struct ibex_emit *e, const char *key, bool v);
	void (*dbl)(struct ibex_emit *e, const char *key, double v,
		    unsigned int decimals);
};

/** A JSON emitter writing into a struct ibex_out (or, with ops, another
 * back end). */
struct ibex_emit {
	const struct ibex_emit_ops *ops; /**< NULL: JSON into o */
	void *ctx;                      /**< the ops' state */
	struct ibex_out *o;
	unsigned int depth;             /**< open objects and lists */
	bool first[IBEX_EMIT_DEPTH + 1]; /**< nothing written yet at a level */
	int err;                        /**< first error: -ENOMEM, -EINVAL */
};

/** Start emitting JSON at the end of @p o. */
void ibex_emit_json_init(struct ibex_emit *e, struct ibex_out *o);
/** Start emitting through the back end @p ops with its state @p ctx. */
void ibex_emit_ops_init(struct ibex_emit *e, const struct ibex_emit_ops *ops,
			void *ctx);

/*
 * Every value takes a key: the member's name inside an object, NULL in a
 * list or for the top-level value.
 */

/** Open an object ("{"). */
void ibex_emit_obj_begin(struct ibex_emit *e, const char *key);
/** Close the open object ("}"). */
void ibex_emit_obj_end(struct ibex_emit *e);
/** Open a list ("["). */
void ibex_emit_list_begin(struct ibex_emit *e, const char *key);
/** Close the open list ("]"). */
void ibex_emit_list_end(struct ibex_emit *e);
void ibex_emit_u64(struct ibex_emit *e, const char *key, uint64_t v);
void ibex_emit_i64(struct ibex_emit *e, const char *key, int64_t v);
/** A string, escaped (ibex_json_escape); NULL writes null. */
void ibex_emit_str(struct ibex_emit *e, const char *key, const char *s);
void ibex_emit_bool(struct ibex_emit *e, const char *key, bool v);
/** A duration in nanoseconds, written as the integer number of ns (the
 * key says the unit: "..._ns"). */
void ibex_emit_dur_ns(struct ibex_emit *e, const char *key, uint64_t ns);
/** A double with @p decimals digits after the point (0..17); NaN and
 * infinities, which JSON cannot say, as null. */
void ibex_emit_double(struct ibex_emit *e, const char *key, double v,
		      unsigned int decimals);
/** @return the first error (-ENOMEM: the buffer is cut; -EINVAL: an
 * unbalanced end, or nesting deeper than IBEX_EMIT_DEPTH), else 0 when
 * every object and list was closed. -EINPROGRESS while some is open. */
int ibex_emit_finish(const struct ibex_emit *e);

/*
 * OpenMetrics text exposition.
 */

/** Which text: OpenMetrics 1.0 (counter families are named without
 * _total, "# EOF" ends it) or Prometheus 0.0.4 (the family's # HELP and
 * # TYPE name the counter's _total sample; no "# EOF"). */
enum ibex_om_format {
	IBEX_OM_OPENMETRICS,
	IBEX_OM_PROMETHEUS,
};

/** The Content-Type of each format. */
#define IBEX_OM_CTYPE_OPENMETRICS \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"
#define IBEX_OM_CTYPE_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"

enum ibex_om_type {
	IBEX_OM_COUNTER,
	IBEX_OM_GAUGE,
	IBEX_OM_HISTOGRAM,
};

/** A label of a sample: name (a [a-zA-Z_][a-zA-Z0-9_]* word) and value
 * (any UTF-8, escaped when written). */
struct ibex_om_label {
	const char *name;
	const char *value;
};

/** An exposition into @p o. */
struct ibex_om {
	struct ibex_out *o;
	enum ibex_om_format fmt;
	enum ibex_om_type type;   /**< of the open family */
	char family[128];         /**< the open family's name */
	int err;                  /**< first error: -ENOMEM, -EINVAL */
};

void ibex_om_init(struct ibex_om *m, struct ibex_out *o,
		  enum ibex_om_format fmt);
/** @return true when @p accept (an HTTP Accept header, or NULL) asks for
 * OpenMetrics text, as Prometheus's scraper does. */
bool ibex_om_accepts_openmetrics(const char *accept);

/**
 * Open a metric family: its # HELP and # TYPE lines. @p name is the
 * family's name without a counter's "_total" ("ibex_port_rx_frames");
 * it must match [a-zA-Z_:][a-zA-Z0-9_:]* (else -EINVAL, nothing
 * written). @p help is escaped (\\ and \n).
 */
void ibex_om_family(struct ibex_om *m, const char *name, enum ibex_om_type type,
		    const char *help);
/** One sample of the open counter or gauge family (a counter's is
 * written <family>_total). */
void ibex_om_u64(struct ibex_om *m, const struct ibex_om_label *labels,
		 unsigned int nb_labels, uint64_t v);
void ibex_om_double(struct ibex_om *m, const struct ibex_om_label *labels,
		    unsigned int nb_labels, double v);
/**
 * One histogram of the open histogram family: @p nb buckets, bucket i
 * counting the observations <= @p le[i] (ascending; not cumulative: the
 * emitter sums them), then the +Inf bucket (= @p count), _sum and
 * _count. @p le and @p sum are in the family's unit (seconds for a
 * *_seconds family).
 */
void ibex_om_histogram(struct ibex_om *m, const struct ibex_om_label *labels,
		       unsigned int nb_labels, const double *le,
		       const uint64_t *per_bucket, unsigned int nb,
		       uint64_t count, double sum);
/** End the exposition ("# EOF" for OpenMetrics). @return the first
 * error, or 0. */
int ibex_om_finish(struct ibex_om *m);

#endif /* IBEX_EMIT_H */
