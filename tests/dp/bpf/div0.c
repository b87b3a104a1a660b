/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Divides by the ECN field, 0 for a frame that is not ECN-capable: ibex
 * guards the division, so such a frame gives a bad verdict (counted,
 * classified by the fallback), never a log line. ECN 1..3 give SL 6, 3, 2.
 */
#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
div0(const struct ibex_bpf_ctx *ctx)
{
	return IBEX_BPF_SL(6 / ctx->ecn);
}
