/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Renderers of the counter sets (ibex_counters.h): the X-macro lists of
 * ibex_dp_counters.h expanded once into descriptions and value getters,
 * and one loop per output format over them.
 */

#include <inttypes.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "ibex_counters.h"

#define CNT_DESC(key, val, col, w, unit, help) { #key, col, w, unit, help },

static const struct ibex_cnt_desc port_desc[] = {
	IBEX_PORT_COUNTERS(CNT_DESC)
};
static const struct ibex_cnt_desc lane_desc[] = {
	IBEX_LANE_COUNTERS(CNT_DESC)
};
#undef CNT_DESC

const struct ibex_cnt_set ibex_port_cnt_set = {
	"port", port_desc, RTE_DIM(port_desc)
};
const struct ibex_cnt_set ibex_lane_cnt_set = {
	"lane", lane_desc, RTE_DIM(lane_desc)
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
#undef CNT_VALUE

void
ibex_cnt_text_head(struct ibex_out *o, const struct ibex_cnt_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->desc[i].width != 0)
			ibex_out_printf(o, " %*s", s->desc[i].width,
					s->desc[i].column);
}

void
ibex_cnt_text_row(struct ibex_out *o, const struct ibex_cnt_set *s,
		  const uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->desc[i].width != 0)
			ibex_out_printf(o, " %*" PRIu64, s->desc[i].width, v[i]);
}

void
ibex_cnt_json(struct ibex_out *o, const struct ibex_cnt_set *s,
	      const uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		ibex_out_printf(o, "%s\"%s\": %" PRIu64, i != 0 ? ", " : "",
				s->desc[i].key, v[i]);
}

void
ibex_cnt_tel(struct rte_tel_data *d, const struct ibex_cnt_set *s,
	     const uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		rte_tel_data_add_dict_u64(d, s->desc[i].key, v[i]);
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
	ibex_cnt_json(o, &ibex_port_cnt_set, v);
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
	ibex_cnt_tel(d, &ibex_port_cnt_set, v);
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
	ibex_cnt_json(o, &ibex_lane_cnt_set, v);
}

void
ibex_lane_cnt_tel(struct rte_tel_data *d, const struct ibex_lane_counters *c)
{
	uint64_t v[IBEX_LANE_CNT_NB];

	ibex_lane_cnt_values(c, v);
	ibex_cnt_tel(d, &ibex_lane_cnt_set, v);
}
