/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex classifier: RoCEv2 by destination QP range.
 *
 * A job's queue pairs are often allocated in ranges per tenant or per
 * collective; this puts each range on its own service level:
 *   QP 0x000100..0x0001ff -> SL 2   (e.g. the all-reduce ring)
 *   QP 0x000200..0x0002ff -> SL 4   (e.g. the parameter server)
 *   any other RoCEv2 frame -> SL 1
 *   everything else       -> the port's built-in classifier
 *
 *   clang -O2 -g -target bpf -I <ibex>/lib/bpf -c qp_range.c -o qp_range.o
 *   port p0 sl-from bpf qp_range.o
 */

#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
qp_range(const struct ibex_bpf_ctx *ctx)
{
	if (!(ctx->flags & IBEX_BPF_F_ROCE))
		return IBEX_BPF_DEFAULT;
	if (ctx->dest_qp >= 0x100 && ctx->dest_qp <= 0x1ff)
		return IBEX_BPF_SL(2);
	if (ctx->dest_qp >= 0x200 && ctx->dest_qp <= 0x2ff)
		return IBEX_BPF_SL(4);
	return IBEX_BPF_SL(1);
}
