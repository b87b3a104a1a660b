/* SPDX-License-Identifier: BSD-3-Clause */
/* Returns a value no verdict has: counted as bad, taken as default. */
#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
badret(const struct ibex_bpf_ctx *ctx)
{
	return 1000 + ctx->pcp;
}
