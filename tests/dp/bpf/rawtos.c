/* SPDX-License-Identifier: BSD-3-Clause */
/* SL = the IPv4 TOS byte's top 3 bits, read from data[] (the frame as
 * received), not from the decoded fields: the context fill with the
 * frame's bytes. */
#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
rawtos(const struct ibex_bpf_ctx *ctx)
{
	if (!(ctx->flags & IBEX_BPF_F_IP4))
		return IBEX_BPF_DEFAULT;
	if (ctx->flags & IBEX_BPF_F_VLAN)
		return ctx->data[19] >> 5;
	return ctx->data[15] >> 5;
}
