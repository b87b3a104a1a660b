/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Renderers of the counter sets (ibex_counters.h): the X-macro lists of
 * ibex_dp_counters.h expanded once into descriptions and value getters,
 * and one loop per output format over them.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "ibex_capture.h"
#include "ibex_counters.h"
#include "ibex_emit.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"

#define CNT_DESC(key, val, col, w, unit, help) { #key, col, w, unit, help, 0 },
#define CNT_DESC_M(key, val, col, w, unit, help, m) \
	{ #key, col, w, unit, help, m },

static const struct ibex_cnt_desc port_desc[] = {
	IBEX_PORT_COUNTERS(CNT_DESC)
};
static const struct ibex_cnt_desc lane_desc[] = {
	IBEX_LANE_COUNTERS(CNT_DESC)
};
static const struct ibex_cnt_desc fc_desc[] = {
	IBEX_FC_COUNTERS(CNT_DESC_M)
};
static const struct ibex_cnt_desc fc_lane_desc[] = {
	IBEX_FC_LANE_COUNTERS(CNT_DESC)
};
static const struct ibex_cnt_desc cbfc_desc[] = {
	IBEX_CBFC_COUNTERS(CNT_DESC)
};
static const struct ibex_cnt_desc cbfc_vc_desc[] = {
	IBEX_CBFC_VC_COUNTERS(CNT_DESC)
};
#undef CNT_DESC
#undef CNT_DESC_M

const struct ibex_cnt_set ibex_port_cnt_set = {
	"port", port_desc, RTE_DIM(port_desc)
};
const struct ibex_cnt_set ibex_lane_cnt_set = {
	"lane", lane_desc, RTE_DIM(lane_desc)
};
const struct ibex_cnt_set ibex_fc_cnt_set = {
	"fc", fc_desc, RTE_DIM(fc_desc)
};
const struct ibex_cnt_set ibex_fc_lane_cnt_set = {
	"fc-lane", fc_lane_desc, RTE_DIM(fc_lane_desc)
};
const struct ibex_cnt_set ibex_cbfc_cnt_set = {
	"cbfc", cbfc_desc, RTE_DIM(cbfc_desc)
};
const struct ibex_cnt_set ibex_cbfc_vc_cnt_set = {
	"cbfc-vc", cbfc_vc_desc, RTE_DIM(cbfc_vc_desc)
};

#define CNT_VALUE(key, val, col, w, unit, help) *v++ = (val);

void
ibex_port_cnt_values(const struct ibex_port_counters *c, uint64_t *v)
{
	IBEX_PORT_COUNTERS(CNT_VALUE)
}

void
ibex_lane_cnt_values(const struct ibex_lane_counters *c, uint64_t *v)
{
	IBEX_LANE_COUNTERS(CNT_VALUE)
}

void
ibex_cbfc_cnt_values(const struct ibex_dp_cbfc_view *c, uint64_t *v)
{
	IBEX_CBFC_COUNTERS(CNT_VALUE)
}

void
ibex_cbfc_vc_cnt_values(const struct ibex_dp_cbfc_view *c, unsigned int vc,
			uint64_t *v)
{
	IBEX_CBFC_VC_COUNTERS(CNT_VALUE)
}

void
ibex_fc_lane_cnt_values(const struct ibex_dp_fc_view *c, unsigned int vl,
			uint64_t *v)
{
	IBEX_FC_LANE_COUNTERS(CNT_VALUE)
}
#undef CNT_VALUE

#define CNT_VALUE_M(key, val, col, w, unit, help, m) *v++ = (val);
void
ibex_fc_cnt_values(const struct ibex_dp_fc_view *c, uint64_t *v)
{
	IBEX_FC_COUNTERS(CNT_VALUE_M)
}
#undef CNT_VALUE_M

/* Whether counter @p i of @p s is shown for @p mode. */
static bool
cnt_in(const struct ibex_cnt_set *s, unsigned int i, unsigned int mode)
{
	return mode == 0 || s->desc[i].modes == 0 ||
	       (s->desc[i].modes & mode) != 0;
}

void
ibex_cnt_text_head(struct ibex_out *o, const struct ibex_cnt_set *s,
		   unsigned int mode)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->desc[i].width != 0 && cnt_in(s, i, mode))
			ibex_out_printf(o, " %*s", s->desc[i].width,
					s->desc[i].column);
}

void
ibex_cnt_text_row(struct ibex_out *o, const struct ibex_cnt_set *s,
		  const uint64_t *v, unsigned int mode)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->desc[i].width != 0 && cnt_in(s, i, mode))
			ibex_out_printf(o, " %*" PRIu64, s->desc[i].width, v[i]);
}

void
ibex_cnt_json(struct ibex_out *o, const struct ibex_cnt_set *s,
	      const uint64_t *v, unsigned int mode)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (!cnt_in(s, i, mode))
			continue;
		ibex_out_printf(o, "%s\"%s\": %" PRIu64, sep, s->desc[i].key,
				v[i]);
		sep = ", ";
	}
}

void
ibex_cnt_tel(struct rte_tel_data *d, const struct ibex_cnt_set *s,
	     const uint64_t *v, unsigned int mode, const char *prefix)
{
	unsigned int i;
	char key[64];

	for (i = 0; i < s->n; i++) {
		if (!cnt_in(s, i, mode))
			continue;
		snprintf(key, sizeof(key), "%s%s", prefix, s->desc[i].key);
		rte_tel_data_add_dict_u64(d, key, v[i]);
	}
}

const char *
ibex_tel_reason_key(unsigned int r, const char *prefix, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s%s", prefix, ibex_reason_name(r));
	for (c = buf; *c != '\0'; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}

void
ibex_port_cnt_json(struct ibex_out *o, const struct ibex_port_counters *c)
{
	uint64_t v[IBEX_PORT_CNT_NB];
	unsigned int r;

	ibex_port_cnt_values(c, v);
	ibex_cnt_json(o, &ibex_port_cnt_set, v, 0);
	ibex_out_printf(o, ", \"drops\": {");
	for (r = 1; r < IBEX_R_MAX; r++)
		ibex_out_printf(o, "%s\"%s\": %" PRIu64, r != 1 ? ", " : "",
				ibex_reason_name(r), c->drop[r]);
	ibex_out_printf(o, "}");
}

void
ibex_port_cnt_tel(struct rte_tel_data *d, const struct ibex_port_counters *c)
{
	uint64_t v[IBEX_PORT_CNT_NB];
	unsigned int r;
	char key[64];

	ibex_port_cnt_values(c, v);
	ibex_cnt_tel(d, &ibex_port_cnt_set, v, 0, "");
	for (r = 1; r < IBEX_R_MAX; r++)
		rte_tel_data_add_dict_u64(d, ibex_tel_reason_key(r, "drop_", key,
								 sizeof(key)),
					  c->drop[r]);
}

void
ibex_lane_cnt_json(struct ibex_out *o, const struct ibex_lane_counters *c)
{
	uint64_t v[IBEX_LANE_CNT_NB];

	ibex_lane_cnt_values(c, v);
	ibex_cnt_json(o, &ibex_lane_cnt_set, v, 0);
}

void
ibex_lane_cnt_tel(struct rte_tel_data *d, const struct ibex_lane_counters *c)
{
	uint64_t v[IBEX_LANE_CNT_NB];

	ibex_lane_cnt_values(c, v);
	ibex_cnt_tel(d, &ibex_lane_cnt_set, v, 0, "");
}

void
ibex_fc_credit_cnt_json(struct ibex_out *o, const struct ibex_dp_fc_view *c)
{
	uint64_t v[IBEX_FC_CNT_NB];

	ibex_fc_cnt_values(c, v);
	ibex_cnt_json(o, &ibex_fc_cnt_set, v, IBEX_FC_CNT_CREDIT);
}

void
ibex_fc_pfc_cnt_json(struct ibex_out *o, const struct ibex_dp_fc_view *c)
{
	uint64_t v[IBEX_FC_CNT_NB];
	unsigned int i;

	ibex_fc_cnt_values(c, v);
	ibex_cnt_json(o, &ibex_fc_cnt_set, v, IBEX_FC_CNT_PFC);
	for (i = 0; i < RTE_DIM(c->paused_ns); i++)
		ibex_out_printf(o, ", \"paused_ns_p%u\": %" PRIu64, i,
				c->paused_ns[i]);
}

void
ibex_fc_cnt_tel(struct rte_tel_data *d, const struct ibex_dp_fc_view *c,
		unsigned int mode, uint16_t lanes)
{
	uint64_t v[IBEX_FC_CNT_NB], lv[IBEX_FC_LANE_CNT_NB];
	unsigned int i, vl;
	char k[24];

	ibex_fc_cnt_values(c, v);
	ibex_cnt_tel(d, &ibex_fc_cnt_set, v, mode, "");
	if (mode == IBEX_FC_CNT_PFC)
		for (i = 0; i < RTE_DIM(c->paused_ns); i++) {
			snprintf(k, sizeof(k), "paused_ns_p%u", i);
			rte_tel_data_add_dict_u64(d, k, c->paused_ns[i]);
		}
	for (vl = 0; vl < IBEX_VL_COUNT; vl++) {
		if (!(lanes >> vl & 1))
			continue;
		ibex_fc_lane_cnt_values(c, vl, lv);
		snprintf(k, sizeof(k), "vl%u_", vl);
		ibex_cnt_tel(d, &ibex_fc_lane_cnt_set, lv, 0, k);
	}
}

void
ibex_fdb_cnt_json(struct ibex_out *o, const struct ibex_fdb_stats *st)
{
	const char *sep = "";

#define FDB_JSON(key, field, help) \
	ibex_out_printf(o, "%s\"" #key "\": %" PRIu64, sep, \
			(uint64_t)st->field); \
	sep = ", ";
	IBEX_FDB_COUNTERS(FDB_JSON)
#undef FDB_JSON
}

void
ibex_fdb_cnt_tel(struct rte_tel_data *d, const struct ibex_fdb_stats *st)
{
#define FDB_TEL(key, field, help) \
	rte_tel_data_add_dict_u64(d, #key, st->field);
	IBEX_FDB_COUNTERS(FDB_TEL)
#undef FDB_TEL
}

void
ibex_fdb_cnt_text(struct ibex_out *o, const struct ibex_fdb_stats *st)
{
	ibex_out_printf(o, "%u entries (%u static), learned %" PRIu64
			", moved %" PRIu64 ", aged %" PRIu64
			", refused (full) %" PRIu64, st->entries,
			st->static_entries, st->learned, st->moved, st->aged,
			st->full);
}

/* ---- capture status (IBEX_CAPTURE_FIELDS) ---- */

const char *
ibex_capture_state_name(unsigned int state)
{
	static const char *const n[] = {
		[IBEX_CAPTURE_NONE] = "none",
		[IBEX_CAPTURE_RUNNING] = "running",
		[IBEX_CAPTURE_STOPPING] = "stopping",
		[IBEX_CAPTURE_DONE] = "done",
	};

	return state < RTE_DIM(n) ? n[state] : "?";
}

const char *
ibex_capture_dir_name(unsigned int dir)
{
	static const char *const n[] = { "-", "rx", "tx", "both" };

	return n[dir & 3];
}

#define CAP_JSON_STR(o, key, val) \
	do { \
		ibex_out_printf(o, "\"%s\": ", key); \
		ibex_out_json_str(o, val); \
	} while (0)
#define CAP_JSON_U64(o, key, val) \
	ibex_out_printf(o, "\"%s\": %" PRIu64, key, (uint64_t)(val))
#define CAP_JSON_SECS(o, key, val) \
	ibex_out_printf(o, "\"%s\": %.3f", key, (double)(val))

void
ibex_capture_json(struct ibex_out *o, const struct ibex_capture_view *v,
		  const char *port)
{
	const char *sep = "";

	ibex_out_printf(o, "{");
#define CAP_JSON(key, kind, val) \
	do { \
		ibex_out_printf(o, "%s", sep); \
		CAP_JSON_##kind(o, #key, val); \
		sep = ", "; \
	} while (0);
	IBEX_CAPTURE_FIELDS(CAP_JSON)
#undef CAP_JSON
	ibex_out_printf(o, "}");
}

#define CAP_TEL_STR(d, key, val) rte_tel_data_add_dict_string(d, key, val)
#define CAP_TEL_U64(d, key, val) rte_tel_data_add_dict_u64(d, key, (val))
#define CAP_TEL_SECS(d, key, val) \
	do { \
		char num[32]; \
		snprintf(num, sizeof(num), "%.3f", (double)(val)); \
		rte_tel_data_add_dict_string(d, key, num); \
	} while (0)

void
ibex_capture_tel(struct rte_tel_data *d, const struct ibex_capture_view *v,
		 const char *port)
{
#define CAP_TEL(key, kind, val) CAP_TEL_##kind(d, #key, val);
	IBEX_CAPTURE_FIELDS(CAP_TEL)
#undef CAP_TEL
}

/* ---- through the emitter ---- */

void
ibex_cnt_emit(struct ibex_emit *e, const struct ibex_cnt_set *s,
	      const uint64_t *v, unsigned int mode)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (cnt_in(s, i, mode))
			ibex_emit_u64(e, s->desc[i].key, v[i]);
}

void
ibex_port_cnt_emit(struct ibex_emit *e, const struct ibex_port_counters *c)
{
	uint64_t v[IBEX_PORT_CNT_NB];
	unsigned int r;

	ibex_port_cnt_values(c, v);
	ibex_cnt_emit(e, &ibex_port_cnt_set, v, 0);
	ibex_emit_obj_begin(e, "drops");
	for (r = 1; r < IBEX_R_MAX; r++)
		ibex_emit_u64(e, ibex_reason_name(r), c->drop[r]);
	ibex_emit_obj_end(e);
}

void
ibex_fdb_cnt_emit(struct ibex_emit *e, const struct ibex_fdb_stats *st)
{
#define FDB_EMIT(key, field, help) ibex_emit_u64(e, #key, st->field);
	IBEX_FDB_COUNTERS(FDB_EMIT)
#undef FDB_EMIT
}

#define CAP_EMIT_STR(e, key, val) ibex_emit_str(e, key, val)
#define CAP_EMIT_U64(e, key, val) ibex_emit_u64(e, key, (uint64_t)(val))
#define CAP_EMIT_SECS(e, key, val) ibex_emit_double(e, key, (double)(val), 3)

void
ibex_capture_emit(struct ibex_emit *e, const struct ibex_capture_view *v,
		  const char *port)
{
#define CAP_EMIT(key, kind, val) CAP_EMIT_##kind(e, #key, val);
	IBEX_CAPTURE_FIELDS(CAP_EMIT)
#undef CAP_EMIT
}
