/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A classifier's DPDK side: rte_bpf_load() with the context's size, so the
 * verifier bounds every access, then the JIT or the interpreter.
 *
 * rte_bpf tells why it refused a program only in its log. The load runs on
 * the control thread, so for its duration the EAL log goes to a memory
 * stream, and what the verifier said becomes the error message (and is
 * logged once by the caller with the rest of the reason).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "ibex_bpf.h"

RTE_LOG_REGISTER(ibex_bpf_logtype, ibex.bpf, INFO);
#define RTE_LOGTYPE_IBEX_BPF ibex_bpf_logtype

static int jit_state = -1;

int
ibex_bpf_jit_available(void)
{
	return jit_state;
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The verifier's words, one line: newlines become "; ". */
static void
log_text(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 3 < outlen; i++) {
		if (buf[i] == '\n') {
			if (i + 1 < len) {
				out[o++] = ';';
				out[o++] = ' ';
			}
			continue;
		}
		out[o++] = buf[i];
	}
	out[o] = '\0';
}

static struct rte_bpf *
rte_load_captured(const struct rte_bpf_prm *prm, char *why, size_t whylen)
{
	FILE *prev = rte_log_get_stream();
	struct rte_bpf *bpf;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	why[0] = '\0';
	mem = open_memstream(&buf, &len);
	if (mem != NULL)
		rte_openlog_stream(mem);
	bpf = rte_bpf_load(prm);
	if (bpf == NULL)
		rte_errno = rte_errno != 0 ? rte_errno : EINVAL;
	if (mem != NULL) {
		rte_openlog_stream(prev);
		fclose(mem);
		if (buf != NULL)
			log_text(buf, len, why, whylen);
		free(buf);
	}
	return bpf;
}

static int
prog_stat(struct ibex_bpf_prog *p, const char *file)
{
	struct stat st;

	if (stat(file, &st) != 0)
		return -errno;
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	p->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		      st.st_mtim.tv_nsec;
	p->size = st.st_size;
	return 0;
}

bool
ibex_bpf_prog_same(const struct ibex_bpf_prog *p, const char *file,
		   const char *section, bool jit)
{
	struct ibex_bpf_prog now;

	if (strcmp(p->file, file) != 0 || strcmp(p->section, section) != 0 ||
	    p->want_jit != jit || prog_stat(&now, file) != 0)
		return false;
	return now.dev == p->dev && now.ino == p->ino &&
	       now.mtime_ns == p->mtime_ns && now.size == p->size;
}

static int
prog_rte(struct ibex_bpf_prog *p, const struct ibex_bpf_code *code,
	 bool jit, char *err, size_t errlen)
{
	struct rte_bpf_prm prm = {
		.ins = (const struct ebpf_insn *)code->insns,
		.nb_ins = code->nb_insns,
		.prog_arg = {
			.type = RTE_BPF_ARG_PTR,
			.size = sizeof(struct ibex_bpf_ctx),
		},
	};
	struct rte_bpf_jit j = { 0 };
	char why[384];

	p->bpf = rte_load_captured(&prm, why, sizeof(why));
	if (p->bpf == NULL) {
		snprintf(err, errlen, "%s: %s: rejected by rte_bpf (%s)%s%s",
			 p->file, code->section, strerror(rte_errno),
			 why[0] != '\0' ? ": " : "", why);
		return -rte_errno;
	}
	p->ctx_use = ibex_bpf_ctx_use(code->insns, code->nb_insns);
	if (rte_bpf_get_jit(p->bpf, &j) == 0 && j.func != NULL) {
		jit_state = 1;
		if (jit)
			p->jit = j.func;
	} else {
		jit_state = 0;
	}
	return 0;
}

/*
 * What rte_bpf cannot be trusted with: a division by a register gets its
 * guard against zero (ibex_bpf_guard_div()), and a program whose paths
 * are too many for the verifier to walk in reasonable time is refused
 * before rte_bpf_load(), which cannot be interrupted (ibex_bpf_check.c).
 */
static int
prog_check(struct ibex_bpf_prog *p, struct ibex_bpf_code *code, char *err,
	   size_t errlen)
{
	uint64_t paths, walk;
	char why[256];
	int ret;

	ret = ibex_bpf_guard_div(code, why, sizeof(why));
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", p->file, why);
		return ret;
	}
	p->nb_div_guards = (uint32_t)ret;
	/* A jump out of bounds or a loop: rte_bpf says which. */
	if (ibex_bpf_paths(code->insns, code->nb_insns, &paths, &walk) != 0)
		return 0;
	p->paths = paths;
	p->walk = walk;
	if (walk <= IBEX_BPF_MAX_WALK)
		return 0;
	snprintf(err, errlen, "%s: %s: %s%" PRIu64 " paths through its "
		 "branches, %s%" PRIu64 " steps for rte_bpf's verifier (it "
		 "walks every path): over ibex's limit of %" PRIu64 " steps",
		 p->file, code->section, paths == UINT64_MAX ? "over " : "",
		 paths, walk == UINT64_MAX ? "over " : "", walk,
		 IBEX_BPF_MAX_WALK);
	return -E2BIG;
}

int
ibex_bpf_prog_load(struct ibex_bpf_prog **pp, const char *file,
		   const char *section, bool jit, char *err, size_t errlen)
{
	int64_t t0 = mono_ns();
	struct ibex_bpf_code code;
	struct ibex_bpf_prog *p;
	int ret;

	*pp = NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	snprintf(p->file, sizeof(p->file), "%s", file);
	snprintf(p->section, sizeof(p->section), "%s", section);
	p->want_jit = jit;
	/* Identity first: a file replaced while it is read is then seen
	 * as changed by the next ibex_bpf_prog_same(). */
	ret = prog_stat(p, file);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", file, strerror(-ret));
		goto fail;
	}
	ret = ibex_bpf_obj_read(file, section, &code, err, errlen);
	if (ret < 0)
		goto fail;
	ret = prog_check(p, &code, err, errlen);
	if (ret == 0)
		ret = prog_rte(p, &code, jit, err, errlen);
	p->nb_insns = code.nb_insns;
	p->btf = code.btf;
	snprintf(p->name, sizeof(p->name), "%s", code.name);
	snprintf(p->found, sizeof(p->found), "%s", code.section);
	ibex_bpf_code_free(&code);
	if (ret < 0)
		goto fail;
	p->load_ns = (uint64_t)(mono_ns() - t0);
	p->loaded_at = (int64_t)time(NULL);
	p->refs = 1;
	RTE_LOG(INFO, IBEX_BPF, "%s:%s: %u instructions, %s, %" PRIu64
		" paths, loaded in %" PRIu64 " us\n", file, p->found,
		p->nb_insns, p->jit != NULL ? "JIT" : jit_state == 1 ?
		"interpreted (JIT off)" : "interpreted (no JIT on this CPU)",
		p->paths, p->load_ns / 1000);
	*pp = p;
	return 0;
fail:
	free(p);
	return ret;
}

void
ibex_bpf_prog_put(struct ibex_bpf_prog *p)
{
	if (p == NULL || --p->refs > 0)
		return;
	rte_bpf_destroy(p->bpf);
	free(p);
}

uint64_t
ibex_bpf_prog_interp(const struct ibex_bpf_prog *p, struct ibex_bpf_ctx *ctx)
{
	return rte_bpf_exec(p->bpf, ctx);
}
