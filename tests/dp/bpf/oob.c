/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused at load: reads 8 bytes past the end of the context. */
#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
oob(const struct ibex_bpf_ctx *ctx)
{
	const volatile ibex_bpf_u8 *p = (const volatile ibex_bpf_u8 *)ctx;

	return p[sizeof(*ctx) + 8] & 15;
}
