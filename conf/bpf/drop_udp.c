/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex classifier: drop one UDP destination port, classify the rest as
 * the port would without a program. Dropped frames are counted under the
 * reason "bpf-drop" (ibex-ctl show drops).
 *
 * The port here is 5201 (iperf3's); change DROP_PORT and rebuild, then
 * `ibex-ctl set port p0 sl-from bpf drop_udp.o` swaps it in live.
 */

#include "ibex_bpf_ctx.h"

#define DROP_PORT 5201

IBEX_BPF_SEC("ibex")
int
drop_udp(const struct ibex_bpf_ctx *ctx)
{
	if ((ctx->flags & IBEX_BPF_F_UDP) && ctx->dport == DROP_PORT)
		return IBEX_BPF_DROP;
	return IBEX_BPF_DEFAULT;
}
