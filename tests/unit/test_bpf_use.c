/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_bpf_ctx_use(): which parts of the context a program reads. The
 * examples (given as arguments, built by clang) and hand-written programs
 * for every case the pass must answer "all" to: a load it cannot place is
 * a field the worker would leave stale.
 *
 *   test_bpf_use [qp_range.o dscp_cnp.o drop_udp.o]
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <linux/bpf.h>

#include "ibex_bpf.h"

static const char *obj_qp, *obj_dscp, *obj_drop;

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define LDXB(d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_B, d, s, o, 0)
#define MOV64X(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV32X(d, s) INSN(BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64K(d, k) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define ADD64K(d, k) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, k)
#define ADD64X(d, s) INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define JEQK(d, k, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, k)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define OFF(f) ((int16_t)offsetof(struct ibex_bpf_ctx, f))

static uint32_t
use_of(const struct bpf_insn *ins, uint32_t n)
{
	return ibex_bpf_ctx_use((const uint64_t *)ins, n);
}

static uint32_t
use_of_obj(const char *path, const char *sec)
{
	struct ibex_bpf_code code;
	char err[256];
	uint32_t use;

	if (ibex_bpf_obj_read(path, sec, &code, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	use = ibex_bpf_ctx_use(code.insns, code.nb_insns);
	ibex_bpf_code_free(&code);
	return use;
}

static void
test_examples(void **state)
{
	(void)state;
	if (obj_qp == NULL)
		skip();
	assert_int_equal(use_of_obj(obj_dscp, "ibex/dscp"), IBEX_BPF_USE_IP);
	assert_int_equal(use_of_obj(obj_dscp, "ibex/dscp_cnp"),
			 IBEX_BPF_USE_IP | IBEX_BPF_USE_FIELDS);
	assert_int_equal(use_of_obj(obj_qp, ""),
			 IBEX_BPF_USE_IP | IBEX_BPF_USE_FIELDS);
	assert_int_equal(use_of_obj(obj_drop, ""),
			 IBEX_BPF_USE_IP | IBEX_BPF_USE_FIELDS);
}

/* Loads through copies of R1 at constant offsets are placed, on every
 * path; a register reused as a scalar no longer counts. */
static void
test_traced(void **state)
{
	const struct bpf_insn nothing[] = { MOV64K(0, 16), EXIT };
	const struct bpf_insn dscp[] = {
		LDXB(2, 1, OFF(flags)), MOV64K(0, 16), JEQK(2, 0, 2),
		LDXB(0, 1, OFF(dscp)), EXIT, EXIT,
	};
	const struct bpf_insn data[] = {
		MOV64X(6, 1), ADD64K(6, 40), LDXB(0, 6, 2),
		/* r1 becomes a scalar: a load through it is not the ctx's */
		MOV64K(1, 0), EXIT,
	};
	const struct bpf_insn both[] = {
		MOV64X(3, 1), JEQK(0, 0, 1), ADD64K(3, 0),
		LDXB(0, 3, OFF(ecn)), EXIT,
	};

	(void)state;
	assert_int_equal(use_of(nothing, 2), 0);
	assert_int_equal(use_of(dscp, 6), IBEX_BPF_USE_IP);
	assert_int_equal(use_of(data, 5), IBEX_BPF_USE_DATA);
	assert_int_equal(use_of(both, 5), IBEX_BPF_USE_IP);
}

/* What the pass cannot follow reads everything. */
static void
test_conservative(void **state)
{
	const struct bpf_insn var[] = {
		MOV64X(2, 1), ADD64X(2, 3), LDXB(0, 2, 0), EXIT,
	};
	const struct bpf_insn spill[] = {
		INSN(BPF_STX | BPF_MEM | BPF_DW, 10, 1, -8, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 2, 10, -8, 0),
		LDXB(0, 2, OFF(dscp)), EXIT,
	};
	const struct bpf_insn paths[] = {
		JEQK(3, 0, 1), ADD64K(1, 32), LDXB(0, 1, 0), EXIT,
	};
	const struct bpf_insn mov32[] = {
		MOV32X(2, 1), LDXB(0, 2, OFF(dscp)), EXIT,
	};
	const struct bpf_insn ldabs[] = {
		INSN(BPF_LD | BPF_ABS | BPF_B, 0, 0, 0, 15), EXIT,
	};
	const struct bpf_insn back[] = {
		LDXB(0, 1, OFF(dscp)), JEQK(0, 0, -2), EXIT,
	};
	const struct bpf_insn call[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, 1), LDXB(0, 1, OFF(dscp)),
		EXIT,
	};

	(void)state;
	assert_int_equal(use_of(var, 4), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(spill, 4), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(paths, 4), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(mov32, 3), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(ldabs, 2), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(back, 3), IBEX_BPF_USE_ALL);
	assert_int_equal(use_of(call, 3), IBEX_BPF_USE_ALL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_traced),
		cmocka_unit_test(test_conservative),
	};
	int i;

	for (i = 1; i < argc; i++) {
		const char *b = strrchr(argv[i], '/');

		b = b != NULL ? b + 1 : argv[i];
		if (strcmp(b, "qp_range.o") == 0)
			obj_qp = argv[i];
		else if (strcmp(b, "dscp_cnp.o") == 0)
			obj_dscp = argv[i];
		else if (strcmp(b, "drop_udp.o") == 0)
			obj_drop = argv[i];
	}
	if (obj_qp == NULL || obj_dscp == NULL || obj_drop == NULL)
		obj_qp = NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
