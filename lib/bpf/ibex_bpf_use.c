/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which parts of struct ibex_bpf_ctx a classifier reads, found once at
 * load time from its instructions, so that the worker fills only those
 * for each frame (filling every field and copying 64 bytes of the frame
 * costs more than a short program itself).
 *
 * A forward pass over the program with, per instruction and register,
 * one of three states: not a context pointer, the context plus a known
 * constant, or "may point into the context at an offset not known" (two
 * paths that disagree, pointer arithmetic with a register, a 32-bit
 * operation on a pointer). A load through a pointer of known offset marks
 * its bytes as read; anything the pass cannot follow (a load through an
 * unknown offset, the pointer stored to memory, a call, LD_ABS/LD_IND, a
 * backward jump, an opcode it does not know) answers "reads everything".
 * It runs after rte_bpf's verifier accepted the program (no loops, no
 * unreachable code, every access in bounds), so it only has to be sound,
 * not to refuse anything.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>

#include "ibex_bpf.h"

#define NREGS 11

enum use_kind {
	USE_SCALAR = 0, /* not a pointer into the context */
	USE_CTX,        /* context + off */
	USE_ANY,        /* may point into the context, offset unknown */
};

struct use_reg {
	uint8_t kind;
	int32_t off;
};

struct use_state {
	bool seen;
	struct use_reg r[NREGS];
};

static bool
may_ctx(const struct use_reg *r)
{
	return r->kind != USE_SCALAR;
}

static void
use_merge(struct use_state *to, const struct use_state *from)
{
	unsigned int i;

	if (!to->seen) {
		*to = *from;
		return;
	}
	for (i = 0; i < NREGS; i++) {
		struct use_reg *a = &to->r[i];
		const struct use_reg *b = &from->r[i];

		if (a->kind == b->kind &&
		    (a->kind != USE_CTX || a->off == b->off))
			continue;
		a->kind = (may_ctx(a) || may_ctx(b)) ? USE_ANY : USE_SCALAR;
	}
}

/* Mark [off, off + size) of the context as read; false when it is not
 * inside the context (the verifier would have refused it: be safe). */
static bool
use_mark(uint8_t *read, int64_t off, unsigned int size)
{
	if (off < 0 || off + size > (int64_t)sizeof(struct ibex_bpf_ctx))
		return false;
	memset(read + off, 1, size);
	return true;
}

static unsigned int
ld_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

/* ALU and ALU64: the destination's new state. */
static void
use_alu(const struct bpf_insn *in, struct use_state *s)
{
	struct use_reg *d = &s->r[in->dst_reg];
	const struct use_reg *src = &s->r[in->src_reg];
	bool x = BPF_SRC(in->code) == BPF_X;
	bool alu64 = BPF_CLASS(in->code) == BPF_ALU64;
	uint8_t op = BPF_OP(in->code);

	if (op == BPF_MOV) {
		if (!x)
			d->kind = USE_SCALAR;
		else if (alu64)
			*d = *src;
		else
			d->kind = may_ctx(src) ? USE_ANY : USE_SCALAR;
		return;
	}
	if (alu64 && !x && d->kind == USE_CTX &&
	    (op == BPF_ADD || op == BPF_SUB)) {
		d->off += op == BPF_ADD ? in->imm : -in->imm;
		return;
	}
	if (may_ctx(d) || (x && may_ctx(src)))
		d->kind = USE_ANY;
}

/*
 * One instruction: its effect on @p s and where it goes on (@p next, and
 * @p jump when it branches, -1 otherwise). @return false when the pass
 * cannot follow it.
 */
static bool
use_step(const struct bpf_insn *ins, uint32_t n, uint32_t i,
	 struct use_state *s, uint8_t *read, int64_t *next, int64_t *jump)
{
	const struct bpf_insn *in = &ins[i];
	uint8_t cls = BPF_CLASS(in->code);
	struct use_reg *d = &s->r[in->dst_reg];
	const struct use_reg *src = &s->r[in->src_reg];

	if (in->dst_reg >= NREGS || in->src_reg >= NREGS)
		return false;
	*next = i + 1;
	*jump = -1;
	switch (cls) {
	case BPF_LDX:
		if (BPF_MODE(in->code) != BPF_MEM || src->kind == USE_ANY)
			return false;
		if (src->kind == USE_CTX &&
		    !use_mark(read, (int64_t)src->off + in->off,
			      ld_size(in->code)))
			return false;
		d->kind = USE_SCALAR;
		return true;
	case BPF_ST:
	case BPF_STX:
		/* A context pointer kept in memory is lost to the pass. */
		if (cls == BPF_STX && may_ctx(src))
			return false;
		if (BPF_MODE(in->code) == BPF_MEM)
			return true; /* a write reads nothing */
		/* An atomic add reads what it changes; others, not known. */
		if (BPF_MODE(in->code) != BPF_ATOMIC || in->imm != BPF_ADD ||
		    d->kind == USE_ANY)
			return false;
		return d->kind != USE_CTX ||
		       use_mark(read, (int64_t)d->off + in->off,
				ld_size(in->code));
	case BPF_LD:
		if (in->code != (BPF_LD | BPF_IMM | BPF_DW) ||
		    in->src_reg != 0 || i + 1 >= n)
			return false;
		d->kind = USE_SCALAR;
		*next = i + 2;
		return true;
	case BPF_ALU:
	case BPF_ALU64:
		use_alu(in, s);
		return true;
	case BPF_JMP:
	case BPF_JMP32:
		if (BPF_OP(in->code) == BPF_EXIT) {
			*next = -1;
			return true;
		}
		if (BPF_OP(in->code) == BPF_CALL)
			return false;
		*jump = (int64_t)i + 1 + in->off;
		if (BPF_OP(in->code) == BPF_JA) {
			if (cls != BPF_JMP)
				return false;
			*next = *jump;
			*jump = -1;
		}
		return true;
	default:
		return false;
	}
}

static bool
use_edge(struct use_state *st, uint32_t n, uint32_t from, int64_t to,
	 const struct use_state *s)
{
	if (to < 0)
		return true;
	if (to <= from || to >= n)
		return false;
	use_merge(&st[to], s);
	return true;
}

/* The parts (IBEX_BPF_USE_*) the bytes marked in @p read fall in. */
static uint32_t
use_parts(const uint8_t *read)
{
	const size_t ip0 = offsetof(struct ibex_bpf_ctx, flags);
	const size_t ip1 = offsetof(struct ibex_bpf_ctx, ecn) + 1;
	const size_t data = offsetof(struct ibex_bpf_ctx, data);
	uint32_t use = 0;
	size_t i;

	for (i = 0; i < sizeof(struct ibex_bpf_ctx); i++) {
		if (!read[i])
			continue;
		if (i >= data)
			use |= IBEX_BPF_USE_DATA;
		else if (i >= ip0 && i < ip1)
			use |= IBEX_BPF_USE_IP;
		else
			use |= IBEX_BPF_USE_FIELDS;
	}
	return use;
}

uint32_t
ibex_bpf_ctx_use(const uint64_t *insns, uint32_t n)
{
	_Static_assert(sizeof(struct bpf_insn) == sizeof(uint64_t),
		       "eBPF instructions are 8 bytes");
	const struct bpf_insn *ins = (const struct bpf_insn *)insns;
	uint8_t read[sizeof(struct ibex_bpf_ctx)] = { 0 };
	uint32_t use = IBEX_BPF_USE_ALL;
	struct use_state *st;
	uint32_t i;

	if (n == 0 || n > 2 * IBEX_BPF_MAX_INSNS + 2) /* with guards */
		return use;
	st = calloc(n, sizeof(*st));
	if (st == NULL)
		return use;
	st[0].seen = true;
	st[0].r[BPF_REG_1].kind = USE_CTX;
	for (i = 0; i < n; i++) {
		struct use_state s = st[i];
		int64_t next, jump;

		if (!s.seen)
			continue; /* unreachable, or the second half of a
				     64-bit immediate */
		if (!use_step(ins, n, i, &s, read, &next, &jump) ||
		    !use_edge(st, n, i, next, &s) ||
		    !use_edge(st, n, i, jump, &s))
			goto out;
	}
	use = use_parts(read);
out:
	free(st);
	return use;
}
