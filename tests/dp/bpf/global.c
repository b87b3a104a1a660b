/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused by the loader: a table in global data (a map to libbpf). */
#include "ibex_bpf_ctx.h"

ibex_bpf_u8 sl_of_dscp[64] = { 1, 2, 3 };

IBEX_BPF_SEC("ibex")
int
global(const struct ibex_bpf_ctx *ctx)
{
	return sl_of_dscp[ctx->dscp & 63] & 15;
}
