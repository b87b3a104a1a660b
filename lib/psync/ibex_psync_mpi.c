/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/psync's transport over MPI (ibex_psync_mpi.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_psync_mpi.h"

/* An MPI error is the end of the run: the caller reports it, and MPI's
 * own handler has usually aborted the job before. */
static int
mpi_ret(int rc)
{
	return rc == MPI_SUCCESS ? 0 : -EIO;
}

/* Counts and displacements in MPI's int: a window's records beyond
 * 2 GiB in all (sent by this process, or received) are refused rather
 * than cut. */
static int
counts_of(const uint64_t *len, unsigned int n, int *cnt, int *disp,
	  size_t *total)
{
	unsigned int i;
	size_t off = 0;

	for (i = 0; i < n; i++) {
		if (len[i] > INT_MAX || off > (size_t)INT_MAX - len[i])
			return -E2BIG;
		cnt[i] = (int)len[i];
		disp[i] = (int)off;
		off += len[i];
	}
	*total = off;
	return 0;
}

struct mpi_scratch {
	uint64_t *slen, *rlen;
	int *scnt, *sdisp, *rcnt, *rdisp;
	uint8_t *sbuf, *rbuf;
	size_t scap, rcap;
};

struct mpi_ctx {
	MPI_Comm *comm;
	MPI_Comm fault_comm;   /**< the watchdog's own messages */
	unsigned int size, rank;
	double timeout_s;      /**< 0: wait for ever */
	uint64_t windows;      /**< agreements so far: the window's number */
	struct mpi_scratch s;
};

/* ---- the watchdog ---- */

/* Tag of "I am waiting in window W" on the fault communicator. */
#define FAULT_TAG 1
/* Wall seconds the waiting processes take to hear from each other. */
#define FAULT_GRACE_S 2.0

/* Listen on the fault communicator until @p until: mark who is waiting
 * too in @p heard, and the lowest of them in @p first. */
static void
fault_listen(struct mpi_ctx *c, unsigned char *heard, unsigned int *first,
	     double until)
{
	uint64_t got;
	int flag;

	while (MPI_Wtime() < until) {
		MPI_Status st;

		MPI_Iprobe(MPI_ANY_SOURCE, FAULT_TAG, c->fault_comm, &flag,
			   &st);
		if (!flag)
			continue;
		MPI_Recv(&got, 1, MPI_UINT64_T, st.MPI_SOURCE, FAULT_TAG,
			 c->fault_comm, MPI_STATUS_IGNORE);
		heard[st.MPI_SOURCE] = 1;
		if ((unsigned int)st.MPI_SOURCE < *first)
			*first = (unsigned int)st.MPI_SOURCE;
	}
}

/* Name the processes not in @p heard, on stderr. */
static void
fault_report(const struct mpi_ctx *c, const unsigned char *heard,
	     const char *what, double waited)
{
	unsigned int i, n_late = 0;
	char late[256] = "";
	size_t off = 0;

	for (i = 0; i < c->size; i++) {
		if (heard[i])
			continue;
		n_late++;
		if (off < sizeof(late))
			off += (size_t)snprintf(late + off, sizeof(late) - off,
						"%s%u", n_late > 1 ? ", " : "",
						i);
	}
	fprintf(stderr, "ibex psync: partition%s %s did not reach window "
		"%" PRIu64 "'s %s: partition %u waited %.1f s for %s (hung, "
		"stopped, dead, or slower than the timeout allows); ending "
		"the job\n", n_late > 1 ? "s" : "",
		n_late ? late : "(unknown)", c->windows, what, c->rank, waited,
		n_late > 1 ? "them" : "it");
	fflush(stderr);
}

/*
 * A collective did not complete within the timeout: some process never
 * joined it (hung, stopped, or dead without its launcher ending the
 * job). Every process that waits in it tells every other one so, and
 * listens for a grace period (a process still within its own timeout
 * answers at once: wait_req() looks for these messages); those not
 * heard from are the ones at fault. The lowest-ranked waiting process
 * names them; then the job ends (MPI_Abort), never to hang.
 */
static void
fault_end(struct mpi_ctx *c, const char *what, double waited)
{
	uint64_t w = c->windows;
	unsigned char *heard = calloc(c->size, 1);
	MPI_Request *req = calloc(c->size, sizeof(*req));
	unsigned int i, first = c->rank;
	double until = MPI_Wtime() + FAULT_GRACE_S;

	if (heard == NULL || req == NULL)
		MPI_Abort(*c->comm, IBEX_PSYNC_MPI_EXIT_HUNG);
	/* w and req stay valid: this function never returns */
	for (i = 0; i < c->size; i++) {
		req[i] = MPI_REQUEST_NULL;
		if (i != c->rank)
			MPI_Isend(&w, 1, MPI_UINT64_T, (int)i, FAULT_TAG,
				  c->fault_comm, &req[i]);
	}
	heard[c->rank] = 1;
	fault_listen(c, heard, &first, until);
	if (first == c->rank)
		fault_report(c, heard, what, waited);
	else /* the lowest waiting process speaks and ends the job */
		while (MPI_Wtime() < until + FAULT_GRACE_S)
			;
	MPI_Abort(*c->comm, IBEX_PSYNC_MPI_EXIT_HUNG);
}

/* Polls of a request between two looks for the watchdog's messages. */
#define FAULT_PROBE_POLLS 256

/* Complete @p r: within the timeout when there is one, answering at once
 * another process whose own timeout passed while this one waits too. */
static int
wait_req(struct mpi_ctx *c, MPI_Request *r, const char *what)
{
	unsigned int polls = 0;
	double start, now;
	int done = 0, flag;

	if (c->timeout_s <= 0)
		return mpi_ret(MPI_Wait(r, MPI_STATUS_IGNORE));
	start = MPI_Wtime();
	for (;;) {
		if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		now = MPI_Wtime();
		if (now - start > c->timeout_s)
			fault_end(c, what, now - start);
		if (++polls % FAULT_PROBE_POLLS != 0)
			continue;
		MPI_Iprobe(MPI_ANY_SOURCE, FAULT_TAG, c->fault_comm, &flag,
			   MPI_STATUS_IGNORE);
		if (flag)
			fault_end(c, what, now - start);
	}
}

static int
grow(uint8_t **b, size_t *cap, size_t want)
{
	uint8_t *p;

	if (want <= *cap)
		return 0;
	p = realloc(*b, want);
	if (p == NULL)
		return -ENOMEM;
	*b = p;
	*cap = want;
	return 0;
}

static int
exchange_with(struct mpi_ctx *c, const struct ibex_psync_buf *out,
	      struct ibex_psync_buf *in)
{
	MPI_Comm comm = *c->comm;
	struct mpi_scratch *s = &c->s;
	unsigned int n = c->size, i;
	size_t stot, rtot, off = 0;
	MPI_Request r;
	int ret, ok, all_ok;

	for (i = 0; i < n; i++)
		s->slen[i] = out[i].len;
	ret = mpi_ret(MPI_Ialltoall(s->slen, 1, MPI_UINT64_T, s->rlen, 1,
				    MPI_UINT64_T, comm, &r));
	if (ret == 0)
		ret = wait_req(c, &r, "exchange of sizes");
	if (ret != 0)
		return ret;
	ret = counts_of(s->slen, n, s->scnt, s->sdisp, &stot);
	if (ret == 0)
		ret = counts_of(s->rlen, n, s->rcnt, s->rdisp, &rtot);
	if (ret == 0)
		ret = grow(&s->sbuf, &s->scap, stot + 1);
	if (ret == 0)
		ret = grow(&s->rbuf, &s->rcap, rtot + 1);
	/* what failed here must fail everywhere, before the exchange the
	 * others would otherwise wait in */
	ok = ret == 0;
	if (MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm, &r) !=
	    MPI_SUCCESS || wait_req(c, &r, "agreement on buffers") != 0)
		return -EIO;
	if (ret != 0)
		return ret;
	if (!all_ok)
		return -ECANCELED;
	for (i = 0; i < n; i++) {
		if (out[i].len != 0)
			memcpy(s->sbuf + off, out[i].data, out[i].len);
		off += out[i].len;
	}
	ret = mpi_ret(MPI_Ialltoallv(s->sbuf, s->scnt, s->sdisp, MPI_BYTE,
				     s->rbuf, s->rcnt, s->rdisp, MPI_BYTE, comm,
				     &r));
	if (ret == 0)
		ret = wait_req(c, &r, "exchange of records");
	for (i = 0; ret == 0 && i < n; i++) {
		ret = ibex_psync_buf_reserve(&in[i], s->rlen[i]);
		if (ret != 0)
			break;
		if (s->rlen[i] != 0)
			memcpy(in[i].data, s->rbuf + s->rdisp[i], s->rlen[i]);
		in[i].len = s->rlen[i];
	}
	/* (a receive buffer that cannot grow after the exchange: the
	 * caller's agreement on the window tells the others) */
	return ret;
}

static int
mpi_exchange(void *ctx, const struct ibex_psync_buf *out,
	     struct ibex_psync_buf *in)
{
	return exchange_with(ctx, out, in);
}

static int
mpi_min(void *ctx, uint64_t *v, unsigned int n)
{
	struct mpi_ctx *c = ctx;
	MPI_Request r;
	int ret;

	ret = mpi_ret(MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T,
				     MPI_MIN, *c->comm, &r));
	if (ret == 0)
		ret = wait_req(c, &r, "agreement");
	c->windows++;
	return ret;
}

static void
ctx_free(struct mpi_ctx *c)
{
	if (c == NULL)
		return;
	if (c->fault_comm != MPI_COMM_NULL)
		MPI_Comm_free(&c->fault_comm);
	free(c->s.slen);
	free(c->s.rlen);
	free(c->s.scnt);
	free(c->s.sdisp);
	free(c->s.rcnt);
	free(c->s.rdisp);
	free(c->s.sbuf);
	free(c->s.rbuf);
	free(c);
}

int
ibex_psync_transport_mpi(struct ibex_psync_transport *t, MPI_Comm *comm)
{
	MPI_Comm fault_comm = MPI_COMM_NULL;
	struct mpi_ctx *c;
	int up = 0, rank, size;

	memset(t, 0, sizeof(*t));
	if (MPI_Initialized(&up) != MPI_SUCCESS || !up ||
	    MPI_Comm_rank(*comm, &rank) != MPI_SUCCESS ||
	    MPI_Comm_size(*comm, &size) != MPI_SUCCESS || size < 1)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	/* the dup is collective: every process makes it, whatever fails
	 * after, so that none waits in it for another */
	if (c == NULL || MPI_Comm_dup(*comm, &fault_comm) != MPI_SUCCESS) {
		free(c);
		return -ENOMEM;
	}
	c->fault_comm = fault_comm;
	c->comm = comm;
	c->size = (unsigned int)size;
	c->rank = (unsigned int)rank;
	c->timeout_s = IBEX_PSYNC_MPI_TIMEOUT_S;
	c->s.slen = calloc(size, sizeof(uint64_t));
	c->s.rlen = calloc(size, sizeof(uint64_t));
	c->s.scnt = calloc(size, sizeof(int));
	c->s.sdisp = calloc(size, sizeof(int));
	c->s.rcnt = calloc(size, sizeof(int));
	c->s.rdisp = calloc(size, sizeof(int));
	if (c->s.slen == NULL || c->s.rlen == NULL || c->s.scnt == NULL ||
	    c->s.sdisp == NULL || c->s.rcnt == NULL || c->s.rdisp == NULL) {
		ctx_free(c);
		return -ENOMEM;
	}
	t->rank = (unsigned int)rank;
	t->size = (unsigned int)size;
	t->exchange = mpi_exchange;
	t->min_u64 = mpi_min;
	t->ctx = c;
	return 0;
}

void
ibex_psync_transport_mpi_set_timeout(struct ibex_psync_transport *t,
				     double seconds)
{
	struct mpi_ctx *c = t->ctx;

	c->timeout_s = seconds > 0 ? seconds : 0;
}

void
ibex_psync_transport_mpi_free(struct ibex_psync_transport *t)
{
	ctx_free(t->ctx);
	memset(t, 0, sizeof(*t));
}
