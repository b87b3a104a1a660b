/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_bpf_paths(): the paths rte_bpf's verifier walks, counted; and
 * ibex_bpf_guard_div(): the guard in front of a division by a register,
 * with every jump still landing on the instruction it aimed at.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/bpf.h>

#include "ibex_bpf.h"

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV64K(d, k) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define ADD64K(d, k) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, k)
#define LDXB(d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_B, d, s, o, 0)
#define JEQK(d, k, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, k)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define DIV64X(d, s) INSN(BPF_ALU64 | BPF_DIV | BPF_X, d, s, 0, 0)
#define MOD64X(d, s) INSN(BPF_ALU64 | BPF_MOD | BPF_X, d, s, 0, 0)
#define DIV32X(d, s) INSN(BPF_ALU | BPF_DIV | BPF_X, d, s, 0, 0)
#define DIV64K(d, k) INSN(BPF_ALU64 | BPF_DIV | BPF_K, d, 0, 0, k)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static int
paths(const struct bpf_insn *ins, uint32_t n, uint64_t *p, uint64_t *w)
{
	return ibex_bpf_paths((const uint64_t *)ins, n, p, w);
}

static void
test_paths(void **state)
{
	const struct bpf_insn line[] = { MOV64K(0, 1), ADD64K(0, 1), EXIT };
	const struct bpf_insn early[] = {      /* two rules, first match */
		LDXB(2, 1, 32), JEQK(2, 1, 3), JEQK(2, 2, 4),
		MOV64K(0, 16), EXIT, MOV64K(0, 1), EXIT, MOV64K(0, 2), EXIT,
	};
	const struct bpf_insn loop[] = { MOV64K(0, 1), JA(-2), EXIT };
	const struct bpf_insn out[] = { JEQK(1, 0, 5), EXIT };
	struct bpf_insn joined[3 * 40 + 1];
	uint64_t p, w;
	unsigned int i, k;

	(void)state;
	assert_int_equal(paths(line, 3, &p, &w), 0);
	assert_int_equal(p, 1);
	assert_int_equal(w, 3);
	assert_int_equal(paths(early, 9, &p, &w), 0);
	assert_int_equal(p, 3);
	/* a tree: every instruction on one path */
	assert_int_equal(w, 9);
	assert_int_equal(paths(loop, 3, &p, &w), -ELOOP);
	assert_int_equal(paths(out, 2, &p, &w), -EINVAL);
	/* k rules that join again: "if (x == c) r0 += 1" each, 2^k paths,
	 * saturating from 64 on. */
	for (k = 1; k <= 40; k++) {
		for (i = 0; i < k; i++) {
			joined[3 * i] = LDXB(2, 1, i);
			joined[3 * i + 1] = JEQK(2, 0x5a, 1);
			joined[3 * i + 2] = ADD64K(0, 1);
		}
		joined[3 * k] = EXIT;
		assert_int_equal(paths(joined, 3 * k + 1, &p, &w), 0);
		assert_int_equal(p, UINT64_C(1) << k);
		assert_true(w > p);
	}
	assert_true(w > IBEX_BPF_MAX_WALK);
}

static struct ibex_bpf_code
code_of(const struct bpf_insn *ins, uint32_t n)
{
	struct ibex_bpf_code c = { .nb_insns = n, .section = "s" };

	c.insns = malloc(n * sizeof(*ins));
	assert_non_null(c.insns);
	memcpy(c.insns, ins, n * sizeof(*ins));
	return c;
}

static void
test_guard(void **state)
{
	/* 0: jump over the division to 4; 3: the division; 4: jump back
	 * to nothing, forward to the exit at 6 (two after). */
	const struct bpf_insn prog[] = {
		JEQK(1, 0, 3),          /* 0 -> 4 */
		LDXB(2, 1, 15),         /* 1 */
		MOV64K(0, 6),           /* 2 */
		DIV64X(0, 2),           /* 3 */
		JEQK(0, 7, 1),          /* 4 -> 6 */
		MOD64X(0, 2),           /* 5 */
		EXIT,                   /* 6 */
	};
	const struct bpf_insn k[] = { MOV64K(0, 6), DIV64K(0, 2), EXIT };
	const struct bpf_insn w32[] = { MOV64K(2, 6), DIV32X(0, 2), EXIT };
	struct ibex_bpf_code c = code_of(prog, 7);
	const struct bpf_insn *g;
	char err[256];

	(void)state;
	assert_int_equal(ibex_bpf_guard_div(&c, err, sizeof(err)), 2);
	g = (const struct bpf_insn *)c.insns;
	assert_int_equal(c.nb_insns, 7 + 2 + 2);
	/* old 0 -> old 4, now at 5 */
	assert_int_equal(g[0].off, 5 - 1);
	assert_int_equal(g[4].code, prog[3].code);
	/* guard at 3: src r2 == 0 -> the bad exit at 9 */
	assert_int_equal(g[3].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(g[3].dst_reg, 2);
	assert_int_equal(g[3].imm, 0);
	assert_int_equal(3 + 1 + g[3].off, 9);
	/* old 4 (now 5) -> old 6 (now 8) */
	assert_int_equal(5 + 1 + g[5].off, 8);
	assert_int_equal(g[6].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(6 + 1 + g[6].off, 9);
	assert_int_equal(g[7].code, prog[5].code);
	assert_int_equal(g[8].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(g[9].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(g[9].imm, IBEX_BPF_VERDICT_DIV0);
	assert_true(IBEX_BPF_VERDICT_DIV0 > 17);
	assert_int_equal(g[10].code, BPF_JMP | BPF_EXIT);
	ibex_bpf_code_free(&c);

	c = code_of(k, 3);
	assert_int_equal(ibex_bpf_guard_div(&c, err, sizeof(err)), 0);
	assert_int_equal(c.nb_insns, 3);
	ibex_bpf_code_free(&c);

	c = code_of(w32, 3);
	assert_int_equal(ibex_bpf_guard_div(&c, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "32-bit division by a register"));
	ibex_bpf_code_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_guard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
