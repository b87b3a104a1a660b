/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ibex checks and changes in a classifier before rte_bpf sees it.
 *
 * Paths. DPDK 22.11's verifier (lib/bpf/bpf_validate.c, evaluate())
 * evaluates the program along every path of its control-flow graph, depth
 * first, copying its register state at each conditional jump. It prunes
 * a path only where it reaches a jump target in a state within one it
 * already found safe, keeps at most 2 * (conditional jumps + 1) such
 * states for the whole program and compares stack and registers almost
 * exactly: rules whose outcomes join again (an `if` that sets a value,
 * then the next rule) double its work each. Its time is then that of one
 * instruction's evaluation times the number of (path, instruction) pairs,
 * which for 32 independent rules is about 2^32 * 100: half an hour of the
 * control thread, which nothing can interrupt. ibex counts those pairs
 * first, in one pass over the graph in topological order (saturating), and
 * refuses a program over IBEX_BPF_MAX_WALK with the figure. The count
 * ignores pruning, so it is an upper bound of the verifier's work: a
 * program it refuses could in rare cases have verified fast.
 *
 * Division by zero. rte_bpf's interpreter logs every division by zero at
 * ERR level and returns 0 (its JIT returns 0 silently): a classifier that
 * divides by a field that can be 0 would log once per frame and give SL 0.
 * ibex puts a test in front of every division and modulo by a register
 * (BPF_ALU64 | BPF_DIV/BPF_MOD | BPF_X) that ends the program with
 * IBEX_BPF_VERDICT_DIV0, a value out of the verdicts' range: the frame is
 * counted as a bad verdict and classified by the port's fallback, with no
 * log, JIT-ed or interpreted alike. DPDK 22.11 has no BPF_JMP32, so a
 * 32-bit division by a register (clang -mattr=+alu32) cannot be tested on
 * its 32 bits alone: such a program is refused.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>

#include "ibex_bpf.h"

/* Where instruction @p i goes on: up to two successors; false for an
 * instruction that leaves the program's bounds (rte_bpf refuses it). */
static bool
succ(const struct bpf_insn *ins, uint32_t n, uint32_t i, int64_t to[2],
     unsigned int *nb)
{
	const struct bpf_insn *in = &ins[i];
	uint8_t cls = BPF_CLASS(in->code);
	unsigned int k;

	*nb = 0;
	if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
		to[(*nb)++] = (int64_t)i + 2;
	} else if (cls == BPF_JMP || cls == BPF_JMP32) {
		uint8_t op = BPF_OP(in->code);

		if (op == BPF_EXIT)
			return true;
		if (op == BPF_CALL) {
			to[(*nb)++] = (int64_t)i + 1;
		} else {
			if (op != BPF_JA)
				to[(*nb)++] = (int64_t)i + 1;
			to[(*nb)++] = (int64_t)i + 1 + in->off;
		}
	} else {
		to[(*nb)++] = (int64_t)i + 1;
	}
	for (k = 0; k < *nb; k++)
		if (to[k] < 0 || to[k] >= n)
			return false;
	return true;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int
ibex_bpf_paths(const uint64_t *insns, uint32_t n, uint64_t *paths,
	       uint64_t *walk)
{
	const struct bpf_insn *ins = (const struct bpf_insn *)insns;
	uint32_t *indeg = NULL, *queue = NULL;
	uint64_t *cnt = NULL;
	uint32_t i, head = 0, tail = 0;
	unsigned int k, nb;
	int64_t to[2];
	int ret = -EINVAL;

	*paths = 0;
	*walk = 0;
	if (n == 0)
		return -EINVAL;
	indeg = calloc(n, sizeof(*indeg));
	queue = calloc(n, sizeof(*queue));
	cnt = calloc(n, sizeof(*cnt));
	if (indeg == NULL || queue == NULL || cnt == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	/* Every slot is a node (the second half of a 64-bit immediate is
	 * one no edge reaches): unreachable ones count 0 paths. */
	for (i = 0; i < n; i++) {
		if (!succ(ins, n, i, to, &nb))
			goto out;
		for (k = 0; k < nb; k++)
			indeg[to[k]]++;
	}
	for (i = 0; i < n; i++)
		if (indeg[i] == 0)
			queue[tail++] = i;
	cnt[0] = indeg[0] == 0 ? 1 : 0;
	while (head < tail) {
		uint32_t v = queue[head++];

		*walk = sat_add(*walk, cnt[v]);
		succ(ins, n, v, to, &nb);
		if (nb == 0 && BPF_CLASS(ins[v].code) == BPF_JMP)
			*paths = sat_add(*paths, cnt[v]);
		for (k = 0; k < nb; k++) {
			cnt[to[k]] = sat_add(cnt[to[k]], cnt[v]);
			if (--indeg[to[k]] == 0)
				queue[tail++] = (uint32_t)to[k];
		}
	}
	/* A node never queued is on a cycle: a loop, which rte_bpf
	 * refuses with its own words. */
	ret = tail == n ? 0 : -ELOOP;
out:
	free(indeg);
	free(queue);
	free(cnt);
	return ret;
}

static bool
is_div_x(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code);
	uint8_t op = BPF_OP(in->code);

	return (cls == BPF_ALU64 || cls == BPF_ALU) &&
	       (op == BPF_DIV || op == BPF_MOD) && BPF_SRC(in->code) == BPF_X;
}

static bool
is_jump(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code);
	uint8_t op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL &&
	       op != BPF_EXIT;
}

int
ibex_bpf_guard_div(struct ibex_bpf_code *code, char *err, size_t errlen)
{
	const struct bpf_insn *old = (const struct bpf_insn *)code->insns;
	uint32_t n = code->nb_insns, i, nb_div = 0, m, bad;
	struct bpf_insn *ins;
	uint32_t *start;

	for (i = 0; i < n; i++) {
		if (!is_div_x(&old[i]))
			continue;
		if (BPF_CLASS(old[i].code) == BPF_ALU) {
			snprintf(err, errlen, "%s: 32-bit %s by a register at "
				 "instruction %u: ibex cannot guard it against "
				 "zero (build without alu32)", code->section,
				 BPF_OP(old[i].code) == BPF_DIV ?
				 "division" : "modulo", i);
			return -ENOTSUP;
		}
		nb_div++;
	}
	if (nb_div == 0)
		return 0;
	/* start[i]: where old instruction i (or its guard) begins;
	 * start[n]: the exit for a zero divisor. */
	start = calloc(n + 1, sizeof(*start));
	ins = calloc(n + nb_div + 2, sizeof(*ins));
	if (start == NULL || ins == NULL) {
		free(start);
		free(ins);
		snprintf(err, errlen, "%s: out of memory", code->section);
		return -ENOMEM;
	}
	for (i = 0, m = 0; i < n; i++) {
		start[i] = m;
		m += is_div_x(&old[i]) ? 2 : 1;
	}
	bad = start[n] = m;
	for (i = 0, m = 0; i < n; i++) {
		struct bpf_insn in = old[i];

		if (is_div_x(&in)) {
			/* if src == 0 goto bad */
			ins[m] = (struct bpf_insn){
				.code = BPF_JMP | BPF_JEQ | BPF_K,
				.dst_reg = in.src_reg,
				.off = (int16_t)(bad - (m + 1)),
			};
			m++;
		}
		if (is_jump(&in)) {
			int64_t t = (int64_t)i + 1 + in.off;

			/* in bounds or not, rte_bpf judges the result */
			if (t >= 0 && t <= n)
				in.off = (int16_t)((int64_t)start[t] - (m + 1));
		}
		ins[m++] = in;
	}
	ins[m++] = (struct bpf_insn){
		.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = IBEX_BPF_VERDICT_DIV0,
	};
	ins[m++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	free(start);
	free(code->insns);
	code->insns = (uint64_t *)ins;
	code->nb_insns = m;
	return (int)nb_div;
}
