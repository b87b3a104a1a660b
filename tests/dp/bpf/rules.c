/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 32 rules of branches.c written first-match: each returns at once,
 * so each adds one path, not a doubling. Loads in a millisecond.
 */
#include "ibex_bpf_ctx.h"

#define RULE(i) do { \
	if (ctx->data[i] == 0x5a) \
		return IBEX_BPF_SL(((i) + 1) & 7); \
} while (0)

IBEX_BPF_SEC("ibex")
int
rules(const struct ibex_bpf_ctx *ctx)
{
	RULE(0); RULE(1); RULE(2); RULE(3); RULE(4); RULE(5); RULE(6);
	RULE(7); RULE(8); RULE(9); RULE(10); RULE(11); RULE(12); RULE(13);
	RULE(14); RULE(15); RULE(16); RULE(17); RULE(18); RULE(19);
	RULE(20); RULE(21); RULE(22); RULE(23); RULE(24); RULE(25);
	RULE(26); RULE(27); RULE(28); RULE(29); RULE(30); RULE(31);
	return IBEX_BPF_DEFAULT;
}
