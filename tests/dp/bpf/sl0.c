/* SPDX-License-Identifier: BSD-3-Clause */
/* Every frame to SL 0: the classifier path with the least program. */
#include "ibex_bpf_ctx.h"

IBEX_BPF_SEC("ibex")
int
sl0(const struct ibex_bpf_ctx *ctx)
{
	(void)ctx;
	return 0;
}
