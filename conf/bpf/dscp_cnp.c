/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex classifiers by DSCP, two programs in one object:
 *
 * "ibex/dscp_cnp": SL = DSCP >> 3 (class selector), with congestion
 * notification packets put on SL 6, the lane a config gives strict
 * priority (vlarb high table), whatever DSCP they carry: a CNP is a
 * RoCEv2 frame of BTH opcode 0x81, or any IP frame of DSCP 48, the
 * marking NVIDIA Spectrum-X and ConnectX NICs use for CNPs by default.
 * Frames without IP take the port's built-in classifier.
 *
 * "ibex/dscp": SL = DSCP >> 3 alone, the same answer as the built-in
 * `sl-from dscp` with its default table: a baseline for measuring what a
 * program costs (docs/performance.md).
 *
 *   port p0 sl-from bpf dscp_cnp.o:ibex/dscp_cnp
 */

#include "ibex_bpf_ctx.h"

#define BTH_OPCODE_CNP 0x81
#define DSCP_CNP 48
#define SL_STRICT 6

IBEX_BPF_SEC("ibex/dscp_cnp")
int
dscp_cnp(const struct ibex_bpf_ctx *ctx)
{
	if (!(ctx->flags & (IBEX_BPF_F_IP4 | IBEX_BPF_F_IP6)))
		return IBEX_BPF_DEFAULT;
	if (ctx->dscp == DSCP_CNP ||
	    ((ctx->flags & IBEX_BPF_F_ROCE) &&
	     ctx->bth_opcode == BTH_OPCODE_CNP))
		return IBEX_BPF_SL(SL_STRICT);
	return IBEX_BPF_SL(ctx->dscp >> 3);
}

IBEX_BPF_SEC("ibex/dscp")
int
dscp(const struct ibex_bpf_ctx *ctx)
{
	if (!(ctx->flags & (IBEX_BPF_F_IP4 | IBEX_BPF_F_IP6)))
		return IBEX_BPF_DEFAULT;
	return ctx->dscp >> 3;
}
