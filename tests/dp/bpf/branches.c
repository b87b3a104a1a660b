/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BRANCHES independent rules, each an `if` of its own that adds to the
 * verdict: an ordinary classifier whose paths double with every rule
 * (2^BRANCHES of them), which rte_bpf's verifier walks one by one.
 * Built with -DBRANCHES=16, 20, 24, 32.
 */
#include "ibex_bpf_ctx.h"

#ifndef BRANCHES
#define BRANCHES 32
#endif

#define RULE(i) do { \
	if ((i) < BRANCHES && ctx->data[i] == 0x5a) \
		v += (i) + 1; \
} while (0)

IBEX_BPF_SEC("ibex")
int
branches(const struct ibex_bpf_ctx *ctx)
{
	unsigned int v = 0;

	RULE(0); RULE(1); RULE(2); RULE(3); RULE(4); RULE(5); RULE(6);
	RULE(7); RULE(8); RULE(9); RULE(10); RULE(11); RULE(12); RULE(13);
	RULE(14); RULE(15); RULE(16); RULE(17); RULE(18); RULE(19);
	RULE(20); RULE(21); RULE(22); RULE(23); RULE(24); RULE(25);
	RULE(26); RULE(27); RULE(28); RULE(29); RULE(30); RULE(31);
	return v == 0 ? IBEX_BPF_DEFAULT : IBEX_BPF_SL(v & 7);
}
