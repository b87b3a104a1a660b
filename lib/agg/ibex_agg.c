/* SPDX-License-Identifier: BSD-3-Clause */
/* In-network aggregation: a worker's pool of slots, the state machine of
 * each (slot, set), the sums and the counters. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_agg.h"
#include "ibex_agg_sum.h"
#include "ibex_counter.h"
#include "ibex_require.h"

#define CACHE_LINE 64
#define MAX_JOBS 4096

/* A (slot, set) between uses and in one. */
enum cell_state {
	CELL_IDLE = 0,    /* never used: takes its first use */
	CELL_FILLING,     /* some children in, the sum not complete */
	CELL_WAIT_PARENT, /* complete, sent up, the parent's result awaited */
	CELL_RESULT,      /* holds the use's result: replies, next use */
};

/* One (slot, set). Its values (elems_bytes a chunk) live in the job's
 * data: chunk 0 is the running sum (int32), child 0's values and then
 * the sum (fp32), and the result; chunk c >= 1 holds child c's fp32
 * values until the use is complete. */
struct cell {
	uint64_t have;        /* children counted in this use */
	uint64_t first_ns;    /* the use's first contribution */
	uint32_t seq;         /* the use */
	uint32_t offset;      /* its chunk: every packet of the use agrees */
	uint16_t count;
	uint8_t dtype;
	uint8_t state;        /* enum cell_state */
};

struct job {
	struct ibex_agg_job_conf c;
	uint64_t full;        /* bitmap of every child */
	uint64_t mem_off, mem_len; /* its part of the pool's memory */
	uint32_t local_slots; /* slot indices on this worker */
	uint32_t chunk;       /* bytes of one chunk (cache-line multiple) */
	uint32_t stride;      /* bytes of a cell's chunks */
	struct cell *cells;   /* 2 a local slot: [2 * local + set] */
	uint8_t *data;        /* cells' values, stride each */
};

struct ibex_agg_pool {
	struct ibex_agg_pool_conf c;
	uint8_t *mem;
	uint64_t mem_len;
	uint32_t n_jobs;
	struct job *jobs;     /* n_jobs in use, packed */
	struct ibex_agg_stats st;
};

static uint64_t
round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

uint16_t
ibex_agg_worker_of(uint32_t job, uint16_t slot, uint16_t n_workers)
{
	/* Fibonacci hashing spreads consecutive job ids over the workers
	 * a job's slot 0 starts at, so small jobs do not all load worker
	 * 0. */
	uint32_t h = (uint32_t)((job * UINT64_C(2654435761)) >> 16);

	if (n_workers <= 1)
		return 0;
	return (uint16_t)((h % n_workers + slot) % n_workers);
}

/* The first slot index on @p worker: slot s is there when s and it agree
 * modulo n_workers, and its local index is s / n_workers. */
static uint32_t
first_slot(uint32_t job, uint16_t worker, uint16_t n_workers)
{
	uint32_t h = ibex_agg_worker_of(job, 0, n_workers);

	return (worker + n_workers - h) % n_workers;
}

static uint32_t
local_slots(const struct ibex_agg_job_conf *c, uint16_t worker,
	    uint16_t n_workers)
{
	uint32_t r = first_slot(c->job, worker, n_workers);

	if (r >= c->n_slots)
		return 0;
	return (c->n_slots - r + n_workers - 1) / n_workers;
}

uint64_t
ibex_agg_job_bytes(const struct ibex_agg_job_conf *c, uint16_t worker,
		   uint16_t n_workers)
{
	uint64_t cells = 2 * (uint64_t)local_slots(c, worker, n_workers);
	uint64_t chunk = round_up(4 * (uint64_t)c->max_elems, CACHE_LINE);

	return round_up(cells * sizeof(struct cell), CACHE_LINE) +
	       cells * chunk * c->n_children;
}

static int
pool_conf_check(const struct ibex_agg_pool_conf *c, char *err, size_t errlen)
{
	IBEX_REQUIRE(c->n_workers >= 1 && c->worker < c->n_workers,
		     "worker %u of %u workers", c->worker, c->n_workers);
	IBEX_REQUIRE(c->max_jobs >= 1 && c->max_jobs <= MAX_JOBS,
		     "jobs: 1..%u, not %u", MAX_JOBS, c->max_jobs);
	/* (a size near 2^64 would round up to 0) */
	IBEX_REQUIRE(c->mem_bytes >= CACHE_LINE &&
		     c->mem_bytes <= UINT64_MAX / 2,
		     "memory: at least %u bytes, at most 2^63", CACHE_LINE);
	return 0;
}

struct ibex_agg_pool *
ibex_agg_pool_create(const struct ibex_agg_pool_conf *c, char *err,
		     size_t errlen)
{
	struct ibex_agg_pool *p;
	void *mem = NULL;

	if (pool_conf_check(c, err, errlen) != 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto nomem;
	p->c = *c;
	p->mem_len = round_up(c->mem_bytes, CACHE_LINE);
	p->jobs = calloc(c->max_jobs, sizeof(*p->jobs));
	if (p->jobs == NULL || posix_memalign(&mem, CACHE_LINE, p->mem_len))
		goto nomem;
	/* touched now, not on the first packets */
	memset(mem, 0, p->mem_len);
	p->mem = mem;
	return p;
nomem:
	snprintf(err, errlen, "no memory for a pool of %llu bytes",
		 (unsigned long long)c->mem_bytes);
	if (p != NULL)
		free(p->jobs);
	free(p);
	return NULL;
}

void
ibex_agg_pool_free(struct ibex_agg_pool *p)
{
	if (p == NULL)
		return;
	free(p->mem);
	free(p->jobs);
	free(p);
}

const struct ibex_agg_stats *
ibex_agg_stats(const struct ibex_agg_pool *p)
{
	return &p->st;
}

static struct job *
job_find(struct ibex_agg_pool *p, uint32_t id)
{
	uint32_t i;

	/* A worker holds a few jobs: a scan beats a hash's upkeep. */
	for (i = 0; i < p->n_jobs; i++)
		if (p->jobs[i].c.job == id)
			return &p->jobs[i];
	return NULL;
}

static bool
overlaps(const struct ibex_agg_pool *p, uint64_t off, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < p->n_jobs; i++) {
		const struct job *j = &p->jobs[i];

		if (off < j->mem_off + j->mem_len && j->mem_off < off + len)
			return true;
	}
	return false;
}

/* First fit: the lowest free range of @p len bytes, starting at 0 or at
 * a job's end. @return 0 with its offset in @p off, or -ENOSPC. */
static int
mem_find(const struct ibex_agg_pool *p, uint64_t len, uint64_t *off)
{
	uint64_t best = UINT64_MAX, at;
	uint32_t i;

	for (i = 0; i <= p->n_jobs; i++) {
		at = i == p->n_jobs ? 0 :
		     p->jobs[i].mem_off + p->jobs[i].mem_len;
		if (at + len <= p->mem_len && at < best &&
		    !overlaps(p, at, len))
			best = at;
	}
	if (best == UINT64_MAX)
		return -ENOSPC;
	*off = best;
	return 0;
}

static int
job_conf_check(const struct ibex_agg_job_conf *c, char *err, size_t errlen)
{
	IBEX_REQUIRE(c->n_children >= 1 &&
			     c->n_children <= IBEX_AGG_MAX_CHILDREN,
		     "children: 1..%u, not %u", IBEX_AGG_MAX_CHILDREN,
		     c->n_children);
	IBEX_REQUIRE(c->n_slots >= 1 && c->n_slots <= IBEX_AGG_MAX_SLOTS,
		     "slots: 1..%u, not %u", IBEX_AGG_MAX_SLOTS, c->n_slots);
	IBEX_REQUIRE(c->max_elems >= 1 && c->max_elems <= IBEX_AGG_MAX_ELEMS,
		     "elements a packet: 1..%u, not %u", IBEX_AGG_MAX_ELEMS,
		     c->max_elems);
	IBEX_REQUIRE(c->root || c->up_child != IBEX_AGG_CHILD_ALL,
		     "child index at the parent: 0..%u",
		     IBEX_AGG_CHILD_ALL - 1);
	return 0;
}

static void
job_init(struct job *j, const struct ibex_agg_job_conf *c, uint8_t *base,
	 uint32_t n_local)
{
	uint32_t i;

	memset(j, 0, sizeof(*j));
	j->c = *c;
	j->full = c->n_children == 64 ? UINT64_MAX :
		  (UINT64_C(1) << c->n_children) - 1;
	j->local_slots = n_local;
	j->chunk = (uint32_t)round_up(4 * (uint64_t)c->max_elems, CACHE_LINE);
	j->stride = j->chunk * c->n_children;
	j->cells = (struct cell *)base;
	j->data = base + round_up(2 * (uint64_t)n_local * sizeof(struct cell),
				  CACHE_LINE);
	/* Idle cells "hold" the use before their first (set - 2), so the
	 * first use is their next one, as any later use is. */
	for (i = 0; i < 2 * n_local; i++) {
		memset(&j->cells[i], 0, sizeof(j->cells[i]));
		j->cells[i].seq = (i & 1) - 2;
		j->cells[i].state = CELL_IDLE;
	}
}

int
ibex_agg_job_add(struct ibex_agg_pool *p, const struct ibex_agg_job_conf *c,
		 char *err, size_t errlen)
{
	uint64_t len, off;
	int rc;

	rc = job_conf_check(c, err, errlen);
	if (rc == 0 && job_find(p, c->job) != NULL) {
		snprintf(err, errlen, "job %u exists", c->job);
		rc = -EEXIST;
	}
	if (rc == 0 && p->n_jobs == p->c.max_jobs) {
		snprintf(err, errlen, "pool exhausted: %u jobs", p->c.max_jobs);
		rc = -ENOSPC;
	}
	len = ibex_agg_job_bytes(c, p->c.worker, p->c.n_workers);
	if (rc == 0 && mem_find(p, len, &off) != 0) {
		snprintf(err, errlen,
			 "pool exhausted: job %u needs %llu bytes, no such "
			 "range free of %llu",
			 c->job, (unsigned long long)len,
			 (unsigned long long)p->mem_len);
		rc = -ENOSPC;
	}
	if (rc != 0) {
		IBEX_CNT_ADD(p->st.jobs_refused, 1);
		return rc;
	}
	job_init(&p->jobs[p->n_jobs], c, p->mem + off,
		 local_slots(c, p->c.worker, p->c.n_workers));
	p->jobs[p->n_jobs].mem_off = off;
	p->jobs[p->n_jobs].mem_len = len;
	p->n_jobs++;
	return 0;
}

int
ibex_agg_job_del(struct ibex_agg_pool *p, uint32_t id)
{
	struct job *j = job_find(p, id);
	uint32_t i, busy = 0;

	if (j == NULL)
		return -ENOENT;
	for (i = 0; i < 2 * j->local_slots; i++)
		busy += j->cells[i].state == CELL_FILLING ||
			j->cells[i].state == CELL_WAIT_PARENT;
	IBEX_CNT_SUB(p->st.slots_in_use, busy);
	*j = p->jobs[--p->n_jobs];
	return 0;
}

static uint8_t *
chunk_of(const struct job *j, const struct cell *cell, uint32_t c)
{
	return j->data + (size_t)(cell - j->cells) * j->stride +
	       (size_t)c * j->chunk;
}

static void
wait_record(struct ibex_agg_stats *st, uint64_t ns)
{
	unsigned int b = ns == 0 ? 0 : 63 - (unsigned int)__builtin_clzll(ns);

	if (b >= IBEX_AGG_WAIT_BUCKETS)
		b = IBEX_AGG_WAIT_BUCKETS - 1;
	IBEX_CNT_ADD(st->wait_count, 1);
	IBEX_CNT_ADD(st->wait_ns_sum, ns);
	if (ns > st->wait_ns_max)
		IBEX_CNT_SET(st->wait_ns_max, ns);
	IBEX_CNT_ADD(st->wait_hist[b], 1);
}

/* The packet to send about @p cell's use: its chunk's values. */
static enum ibex_agg_action
emit(const struct job *j, const struct cell *cell, enum ibex_agg_action a,
     uint16_t child, uint8_t flags, struct ibex_agg_out *out)
{
	struct ibex_agg_hdr *h = &out->hdr;

	h->type = a == IBEX_AGG_UP ? IBEX_AGG_CONTRIB : IBEX_AGG_RESULT;
	h->dtype = cell->dtype;
	h->count = cell->count;
	h->job = j->c.job;
	h->offset = cell->offset;
	h->slot = 0;  /* ibex_agg_rx() sets it: the cell knows its local one */
	h->child = a == IBEX_AGG_UP ? j->c.up_child : child;
	h->seq = cell->seq;
	h->flags = flags;
	out->elems = chunk_of(j, cell, 0);
	return a;
}

/* Every child is in: the fp32 sum in child order, then up or down. */
static enum ibex_agg_action
complete(struct ibex_agg_pool *p, struct job *j, struct cell *cell,
	 uint64_t now_ns, struct ibex_agg_out *out)
{
	uint32_t c;

	if (cell->dtype == IBEX_AGG_FP32)
		for (c = 1; c < j->c.n_children; c++)
			ibex_agg_add_f32((float *)chunk_of(j, cell, 0),
					 chunk_of(j, cell, c), cell->count);
	/* a clock that went back gives 0, not 2^64 - x */
	wait_record(&p->st, now_ns > cell->first_ns ?
			    now_ns - cell->first_ns : 0);
	if (j->c.root) {
		cell->state = CELL_RESULT;
		IBEX_CNT_SUB(p->st.slots_in_use, 1);
		IBEX_CNT_ADD(p->st.results_sent, 1);
		return emit(j, cell, IBEX_AGG_DOWN, IBEX_AGG_CHILD_ALL, 0, out);
	}
	cell->state = CELL_WAIT_PARENT;
	IBEX_CNT_ADD(p->st.partials_sent, 1);
	return emit(j, cell, IBEX_AGG_UP, 0, 0, out);
}

/* Child h->child's values, not counted before in this use. int32 adds
 * them now (exact in any order); fp32 keeps them for complete(). */
static enum ibex_agg_action
add(struct ibex_agg_pool *p, struct job *j, struct cell *cell,
    const struct ibex_agg_hdr *h, const void *elems, uint64_t now_ns,
    struct ibex_agg_out *out)
{
	uint8_t *sum = chunk_of(j, cell, 0);
	size_t bytes = 4 * (size_t)h->count;

	if (h->dtype == IBEX_AGG_FP32)
		memcpy(chunk_of(j, cell, h->child), elems, bytes);
	else if (cell->have == 0)
		memcpy(sum, elems, bytes);
	else
		ibex_agg_add_i32((int32_t *)sum, elems, h->count);
	cell->have |= UINT64_C(1) << h->child;
	IBEX_CNT_ADD(p->st.contributions, 1);
	if (cell->have != j->full)
		return IBEX_AGG_NONE;
	return complete(p, j, cell, now_ns, out);
}

/* A child's chunk counted already: never summed again, answered by what
 * the use has to give. */
static enum ibex_agg_action
duplicate(struct ibex_agg_pool *p, struct job *j, struct cell *cell,
	  const struct ibex_agg_hdr *h, struct ibex_agg_out *out)
{
	IBEX_CNT_ADD(p->st.duplicates, 1);
	switch (cell->state) {
	case CELL_WAIT_PARENT:
		/* the child misses the result: our sum or the result may
		 * have been lost on the way up or down */
		IBEX_CNT_ADD(p->st.partials_resent, 1);
		return emit(j, cell, IBEX_AGG_UP, 0, IBEX_AGG_F_RETX, out);
	case CELL_RESULT:
		IBEX_CNT_ADD(p->st.results_replied, 1);
		return emit(j, cell, IBEX_AGG_REPLY, h->child, IBEX_AGG_F_RETX,
			    out);
	default:
		return IBEX_AGG_NONE;
	}
}

static bool
same_chunk(const struct cell *cell, const struct ibex_agg_hdr *h)
{
	return cell->offset == h->offset && cell->count == h->count &&
	       cell->dtype == h->dtype;
}

static void
use_start(struct ibex_agg_pool *p, struct cell *cell,
	  const struct ibex_agg_hdr *h, uint64_t now_ns)
{
	cell->seq = h->seq;
	cell->have = 0;
	cell->offset = h->offset;
	cell->count = h->count;
	cell->dtype = h->dtype;
	cell->first_ns = now_ns;
	cell->state = CELL_FILLING;
	IBEX_CNT_ADD(p->st.slots_in_use, 1);
}

static enum ibex_agg_action
contrib_rx(struct ibex_agg_pool *p, struct job *j, struct cell *cell,
	   const struct ibex_agg_hdr *h, const void *elems, uint64_t now_ns,
	   struct ibex_agg_out *out)
{
	int32_t d = (int32_t)(h->seq - cell->seq);

	if (h->child >= j->c.n_children) {
		IBEX_CNT_ADD(p->st.bad_child, 1);
		return IBEX_AGG_NONE;
	}
	if (d == 0 && cell->state != CELL_IDLE) {
		if (cell->have >> h->child & 1)
			return duplicate(p, j, cell, h, out);
		if (!same_chunk(cell, h)) {
			IBEX_CNT_ADD(p->st.mismatch, 1);
			return IBEX_AGG_NONE;
		}
		return add(p, j, cell, h, elems, now_ns, out);
	}
	if (d == 2 && (cell->state == CELL_RESULT ||
		       cell->state == CELL_IDLE)) {
		/* the reuse rule: u + 2 only once u's result is here */
		use_start(p, cell, h, now_ns);
		return add(p, j, cell, h, elems, now_ns, out);
	}
	if (d <= 0)
		IBEX_CNT_ADD(p->st.stale, 1);
	else
		IBEX_CNT_ADD(p->st.early, 1);
	return IBEX_AGG_NONE;
}

/* The parent's result for the use this switch sent up. */
static enum ibex_agg_action
result_rx(struct ibex_agg_pool *p, struct job *j, struct cell *cell,
	  const struct ibex_agg_hdr *h, const void *elems,
	  struct ibex_agg_out *out)
{
	if (j->c.root || h->seq != cell->seq ||
	    (cell->state != CELL_WAIT_PARENT && cell->state != CELL_RESULT)) {
		IBEX_CNT_ADD(p->st.result_unexpected, 1);
		return IBEX_AGG_NONE;
	}
	if (!same_chunk(cell, h)) {
		IBEX_CNT_ADD(p->st.mismatch, 1);
		return IBEX_AGG_NONE;
	}
	if (cell->state == CELL_RESULT) {
		/* sent again because a child of ours asked again: pass it
		 * down again, the children that have it drop it */
		IBEX_CNT_ADD(p->st.results_dup, 1);
	} else {
		memcpy(chunk_of(j, cell, 0), elems, 4 * (size_t)h->count);
		cell->state = CELL_RESULT;
		IBEX_CNT_SUB(p->st.slots_in_use, 1);
		IBEX_CNT_ADD(p->st.results_rx, 1);
	}
	IBEX_CNT_ADD(p->st.results_sent, 1);
	return emit(j, cell, IBEX_AGG_DOWN, IBEX_AGG_CHILD_ALL, 0, out);
}

enum ibex_agg_action
ibex_agg_rx(struct ibex_agg_pool *p, const void *pkt, uint32_t len,
	    uint64_t now_ns, struct ibex_agg_out *out)
{
	uint16_t nw = p->c.n_workers;
	enum ibex_agg_action a;
	struct ibex_agg_hdr h;
	enum ibex_agg_err e;
	const void *elems;
	struct cell *cell;
	struct job *j;

	e = ibex_agg_parse(pkt, len, &h, &elems);
	if (e != IBEX_AGG_OK) {
		IBEX_CNT_ADD(p->st.malformed[e], 1);
		return IBEX_AGG_NONE;
	}
	j = job_find(p, h.job);
	if (j == NULL) {
		IBEX_CNT_ADD(p->st.no_job, 1);
		return IBEX_AGG_NONE;
	}
	if (h.slot >= j->c.n_slots) {
		IBEX_CNT_ADD(p->st.bad_slot, 1);
		return IBEX_AGG_NONE;
	}
	if (ibex_agg_worker_of(h.job, h.slot, nw) != p->c.worker) {
		IBEX_CNT_ADD(p->st.not_mine, 1);
		return IBEX_AGG_NONE;
	}
	if (h.count > j->c.max_elems) {
		IBEX_CNT_ADD(p->st.too_long, 1);
		return IBEX_AGG_NONE;
	}
	cell = &j->cells[2 * (h.slot / nw) + (h.seq & 1)];
	if (h.type == IBEX_AGG_CONTRIB)
		a = contrib_rx(p, j, cell, &h, elems, now_ns, out);
	else
		a = result_rx(p, j, cell, &h, elems, out);
	if (a != IBEX_AGG_NONE)
		out->hdr.slot = h.slot;
	return a;
}
