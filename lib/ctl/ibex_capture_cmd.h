/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CAPTURE_CMD_H
#define IBEX_CAPTURE_CMD_H

/**
 * @file
 * The control commands of packet capture: "capture ..." (start one, stop
 * the running one), "show capture", and the reply of a capture that ended.
 * The capture itself is lib/dp's (ibex_capture.h); a reply held until a
 * capture ends is the socket's (ibex_sock.c): here is what the commands
 * do and say, for the control thread, with no socket in sight.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibex_capture_view;
struct ibex_cmd_req;
struct ibex_conf;
struct ibex_dp;
struct ibex_out;

/**
 * One capture as text (one line: the reply of a capture that ended, and
 * the first line of "show capture") or as one JSON object
 * (IBEX_CAPTURE_FIELDS, the members /ibex/capture has too).
 */
void ibex_capture_cmd_render(const struct ibex_dp *dp,
			     const struct ibex_capture_view *v, bool json,
			     struct ibex_out *o);

/** "show capture [--json]": the running or last capture. */
void ibex_capture_cmd_show(const struct ibex_dp *dp, bool json,
			   struct ibex_out *o);

/**
 * Run "capture PORT ...", or "capture stop" (IBEX_CMD_CAPTURE in @p req),
 * on the port names of @p conf. A capture's reply waits for its end
 * (COUNT frames, "capture stop", the client leaving), like dumpcap -c, when
 * the caller can hold a reply (@p can_wait: a socket client) and the
 * capture was not asked for in the "background": then *@p wait is the id
 * of the capture whose end the reply waits for. Otherwise *@p wait is 0 and
 * the reply is in @p o ("capture N started: ..."; nothing for a stop).
 * @return 0, or -errno with the reason in @p err ("capture: ...").
 */
int ibex_capture_cmd_run(struct ibex_dp *dp, const struct ibex_conf *conf,
			 const struct ibex_cmd_req *req, bool can_wait,
			 uint32_t *wait, struct ibex_out *o, char *err,
			 size_t errlen);

#endif /* IBEX_CAPTURE_CMD_H */
