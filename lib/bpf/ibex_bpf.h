/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_BPF_H
#define IBEX_BPF_H

/**
 * @file
 * eBPF classifiers: loading a BPF ELF object and running it per frame.
 *
 * Two layers. ibex_bpf_obj_read() is the pure part (libbpf only, no EAL):
 * it opens the object with libbpf (ELF, sections, relocations, BTF where
 * present), picks one program and checks it is a stand-alone classifier
 * (no maps, no global data, no BPF-to-BPF calls: rte_bpf has none of
 * those), and copies its instructions. ibex_bpf_prog_load() is the DPDK
 * glue: the instructions go to rte_bpf_load() with the argument a pointer
 * to a struct ibex_bpf_ctx of its exact size, so rte_bpf's verifier bounds
 * every access, and the program is JIT-compiled (rte_bpf_get_jit()) or,
 * where the JIT is unavailable or turned off, interpreted (rte_bpf_exec()).
 *
 * Before rte_bpf sees a program, ibex guards its divisions by a register
 * against zero and refuses it when its paths are too many for rte_bpf's
 * verifier, which walks each (ibex_bpf_check.c), so that a load stays
 * short. Loading runs on the control thread only. A loaded program is immutable
 * and shared by reference between table generations (refs, control
 * thread only); the last ibex_bpf_prog_put() after the RCU grace period
 * destroys it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ibex_bpf_ctx.h"

/** Longest object path and section name, with the NUL. */
#define IBEX_BPF_PATH_LEN 256
#define IBEX_BPF_SEC_LEN 64
/** Most instructions of a classifier (rte_bpf has no bound; this keeps a
 * per-frame program short). */
#define IBEX_BPF_MAX_INSNS 4096

/** A program's instructions as read from its object. */
struct ibex_bpf_code {
	uint64_t *insns;            /**< nb_insns 8-byte eBPF instructions */
	uint32_t nb_insns;
	bool btf;                   /**< the object carried BTF */
	char section[IBEX_BPF_SEC_LEN]; /**< the section it came from */
	char name[IBEX_BPF_SEC_LEN];    /**< the program's (function's) name */
};

/**
 * Read one program of a BPF ELF object.
 * @param path     the object file
 * @param section  ELF section (or program name) to take; NULL or "" takes
 *                 the object's only program, an error when it has several
 * @return 0, or -errno with a message (naming the file, and for an unknown
 *         section the sections there are) in @p err.
 */
int ibex_bpf_obj_read(const char *path, const char *section,
		      struct ibex_bpf_code *code, char *err, size_t errlen);

/** Free what ibex_bpf_obj_read() allocated. */
void ibex_bpf_code_free(struct ibex_bpf_code *code);

/**
 * Split "FILE[:SECTION]" (as the config gives it) at its last ':' into
 * @p file and @p section ("" when none). @return 0 or -EINVAL (empty file
 * or section, or too long).
 */
int ibex_bpf_spec_split(const char *spec, char file[IBEX_BPF_PATH_LEN],
			char section[IBEX_BPF_SEC_LEN]);

/** Parts of struct ibex_bpf_ctx (ibex_bpf_ctx_use()). */
#define IBEX_BPF_USE_IP     0x1 /**< flags, dscp, ecn */
#define IBEX_BPF_USE_FIELDS 0x2 /**< any other field before data */
#define IBEX_BPF_USE_DATA   0x4 /**< data[] */
#define IBEX_BPF_USE_ALL    0x7

/**
 * The parts of the context a program may read, from its instructions: a
 * conservative answer (IBEX_BPF_USE_ALL whenever a load cannot be traced
 * to a constant offset). For a program rte_bpf's verifier accepted; the
 * worker then fills only these parts for each frame.
 */
uint32_t ibex_bpf_ctx_use(const uint64_t *insns, uint32_t n);

/** Most (path, instruction) pairs rte_bpf's verifier may have to walk
 * (ibex_bpf_paths()): it walks every path, so its time doubles with each
 * independent rule; this bounds a load to well under a second. */
#define IBEX_BPF_MAX_WALK (UINT64_C(1) << 21)

/**
 * Count the paths through a program's control-flow graph (@p paths, from
 * its entry to an exit) and the (path, instruction) pairs along them
 * (@p walk): the work of rte_bpf's verifier without its pruning. Both
 * saturate at UINT64_MAX. @return 0; -EINVAL for a jump out of the
 * program, -ELOOP for a loop (both left for rte_bpf to refuse), -ENOMEM.
 */
int ibex_bpf_paths(const uint64_t *insns, uint32_t n, uint64_t *paths,
		   uint64_t *walk);

/** The verdict a guarded division by zero ends the program with:
 * counted as bad, taken as IBEX_BPF_DEFAULT. */
#define IBEX_BPF_VERDICT_DIV0 0x7fff0d10

/**
 * Put a test in front of each 64-bit division and modulo by a register
 * that ends the program with IBEX_BPF_VERDICT_DIV0 when the divisor is 0,
 * fixing the jumps around it. @return the number of guards (0: @p code
 * unchanged), or -errno with a message (a 32-bit division by a register,
 * which cannot be guarded without BPF_JMP32).
 */
int ibex_bpf_guard_div(struct ibex_bpf_code *code, char *err, size_t errlen);

struct rte_bpf;

/** A loaded classifier. */
struct ibex_bpf_prog {
	uint64_t (*jit)(void *ctx); /**< native code, or NULL: interpreted */
	struct rte_bpf *bpf;
	/* What it was loaded from, to tell whether a new config names the
	 * same program (the same file, unchanged on disk). */
	char file[IBEX_BPF_PATH_LEN];
	char section[IBEX_BPF_SEC_LEN];
	bool want_jit;
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
	int64_t size;
	/* For show and telemetry. */
	char name[IBEX_BPF_SEC_LEN];  /**< the program's function */
	char found[IBEX_BPF_SEC_LEN]; /**< its section */
	uint32_t nb_insns;          /**< with the guards */
	uint32_t nb_div_guards;     /**< divisions guarded against zero */
	uint64_t paths;             /**< through its branches */
	uint64_t walk;              /**< (path, instruction) pairs */
	uint32_t ctx_use;           /**< IBEX_BPF_USE_*: what it reads */
	bool btf;
	uint64_t load_ns;           /**< time ibex_bpf_prog_load() took */
	int64_t loaded_at;          /**< wall clock, seconds */
	int refs;                   /**< control thread only */
};

/**
 * Load @p file[:@p section] and make it runnable. @p jit false forces the
 * interpreter. @return 0, or -errno with the loader's or the verifier's
 * reason in @p err.
 */
int ibex_bpf_prog_load(struct ibex_bpf_prog **pp, const char *file,
		       const char *section, bool jit, char *err,
		       size_t errlen);

/** True when @p p was loaded from @p file:@p section with @p jit and the
 * file is unchanged on disk since. */
bool ibex_bpf_prog_same(const struct ibex_bpf_prog *p, const char *file,
			const char *section, bool jit);

/** Take one more reference. */
static inline struct ibex_bpf_prog *
ibex_bpf_prog_get(struct ibex_bpf_prog *p)
{
	p->refs++;
	return p;
}

/** Drop a reference; the last one destroys the program. No reader may
 * still run it (callers wait for the RCU grace period first). */
void ibex_bpf_prog_put(struct ibex_bpf_prog *p);

/** Run the interpreter (worker; out of line). */
uint64_t ibex_bpf_prog_interp(const struct ibex_bpf_prog *p,
			      struct ibex_bpf_ctx *ctx);

/** Run a program on one frame's context (worker; always inline: an out
 * of line copy puts a second call in front of the program's). */
static inline __attribute__((always_inline)) uint64_t
ibex_bpf_prog_run(const struct ibex_bpf_prog *p, struct ibex_bpf_ctx *ctx)
{
	if (__builtin_expect(p->jit != NULL, 1))
		return p->jit(ctx);
	return ibex_bpf_prog_interp(p, ctx);
}

/** Does this build's rte_bpf JIT for this CPU? (Known after the first
 * load: -1 before, 0 no, 1 yes.) */
int ibex_bpf_jit_available(void);

#endif /* IBEX_BPF_H */
