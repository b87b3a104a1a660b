/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Refused by the loader: a small static const table. Clang puts its 16
 * bytes in a mergeable-constant section (.rodata.cst16), which libbpf
 * takes for no map: the object's relocation fails as ENOENT, and the
 * loader must still say what is wrong (has map or global data).
 */
#include "ibex_bpf_ctx.h"

static const ibex_bpf_u8 sl_of_pcp[16] = { 0, 1, 2, 3, 4, 5, 6, 7,
					   8, 9, 10, 11, 12, 13, 14, 15 };

IBEX_BPF_SEC("ibex")
int
constab(const struct ibex_bpf_ctx *ctx)
{
	return sl_of_pcp[(ctx->dscp >> 2) & 15];
}
