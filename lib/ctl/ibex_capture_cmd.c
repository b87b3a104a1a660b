/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture commands (ibex_capture_cmd.h): "capture ...", "show capture"
 * and a finished capture's reply, over lib/dp's capture.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ibex_capture.h"
#include "ibex_capture_cmd.h"
#include "ibex_cmd.h"
#include "ibex_conf.h"
#include "ibex_counters.h"
#include "ibex_dp.h"

void
ibex_capture_cmd_render(const struct ibex_dp *dp,
			const struct ibex_capture_view *v, bool json,
			struct ibex_out *o)
{
	const char *port = v->state != IBEX_CAPTURE_NONE ?
			   dp->port_name[v->port] : "";

	if (json) {
		ibex_capture_json(o, v, port);
		return;
	}
	if (v->state == IBEX_CAPTURE_NONE) {
		ibex_out_printf(o, "no capture since the switch started\n");
		return;
	}
	ibex_out_printf(o, "capture %u %s: port %s %s -> %s: %" PRIu64
			" frames (%" PRIu64 " bytes) written, %" PRIu64
			" dropped, %" PRIu64 " filtered out in %.3f s",
			v->id, ibex_capture_state_name(v->state), port,
			ibex_capture_dir_name(v->dir), v->path, v->written,
			v->bytes, v->dropped, v->filtered,
			(double)v->duration_ns / 1e9);
	if (v->end[0] != '\0')
		ibex_out_printf(o, " (%s)", v->end);
	if (v->error != 0)
		ibex_out_printf(o, "; write error: %s", strerror(-v->error));
	ibex_out_printf(o, "\n");
}

void
ibex_capture_cmd_show(const struct ibex_dp *dp, bool json, struct ibex_out *o)
{
	struct ibex_capture_view v;

	ibex_capture_view(dp, &v);
	if (json) {
		ibex_out_printf(o, "{\"capture\": ");
		if (v.state == IBEX_CAPTURE_NONE)
			ibex_out_printf(o, "null");
		else
			ibex_capture_cmd_render(dp, &v, true, o);
		ibex_out_printf(o, "}\n");
		return;
	}
	ibex_capture_cmd_render(dp, &v, false, o);
	if (v.state == IBEX_CAPTURE_NONE)
		return;
	ibex_out_printf(o, "  snaplen %u, count %" PRIu64 "%s, copied %"
			PRIu64 ", past count %" PRIu64 "%s%s%s\n", v.snaplen,
			v.count, v.count == 0 ? " (until stopped)" : "",
			v.copied, v.past_count,
			v.filter[0] != '\0' ? ", filter '" : "", v.filter,
			v.filter[0] != '\0' ? "'" : "");
}

int
ibex_capture_cmd_run(struct ibex_dp *dp, const struct ibex_conf *conf,
		     const struct ibex_cmd_req *req, bool can_wait,
		     uint32_t *wait, struct ibex_out *o, char *err,
		     size_t errlen)
{
	const struct ibex_cmd_capture *c = &req->cap;
	struct ibex_capture_params p = { 0 };
	struct ibex_capture_view v;
	int port, ret;

	*wait = 0;
	if (c->stop) {
		ibex_capture_view(dp, &v);
		ret = ibex_capture_stop(dp, "capture stop");
		if (ret < 0 && v.state != IBEX_CAPTURE_STOPPING) {
			snprintf(err, errlen, "capture: no capture runs");
			return ret;
		}
		*wait = can_wait ? v.id : 0;
		return 0;
	}
	port = ibex_conf_port_find(conf, req->port);
	if (port < 0) {
		snprintf(err, errlen, "capture: no port '%s'", req->port);
		return -ENOENT;
	}
	p.port = (uint16_t)port;
	p.dir = c->dir;
	p.count = c->count;
	p.snaplen = c->snaplen;
	p.path = c->file;
	p.filter = c->filter;
	ret = ibex_capture_start(dp, &p, err, errlen);
	if (ret < 0)
		return ret;
	ibex_capture_view(dp, &v);
	if (c->background || !can_wait) {
		ibex_out_printf(o, "capture %u started: port %s %s -> %s "
				"('capture stop' ends it)\n", v.id,
				req->port, ibex_capture_dir_name(v.dir), v.path);
		return 0;
	}
	*wait = v.id;
	return 0;
}
