/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/psync's transport over MPI (ibex_psync_mpi.h).
 */
#include <errno.h>
#include <limits.h>
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
exchange_with(MPI_Comm comm, unsigned int n, struct mpi_scratch *s,
	      const struct ibex_psync_buf *out, struct ibex_psync_buf *in)
{
	size_t stot, rtot, off = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		s->slen[i] = out[i].len;
	int ok, all_ok;

	ret = mpi_ret(MPI_Alltoall(s->slen, 1, MPI_UINT64_T, s->rlen, 1,
				   MPI_UINT64_T, comm));
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
	if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) !=
	    MPI_SUCCESS)
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
	ret = mpi_ret(MPI_Alltoallv(s->sbuf, s->scnt, s->sdisp, MPI_BYTE,
				    s->rbuf, s->rcnt, s->rdisp, MPI_BYTE,
				    comm));
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

struct mpi_ctx {
	MPI_Comm *comm;
	unsigned int size;
	struct mpi_scratch s;
};

static int
mpi_exchange(void *ctx, const struct ibex_psync_buf *out,
	     struct ibex_psync_buf *in)
{
	struct mpi_ctx *c = ctx;

	return exchange_with(*c->comm, c->size, &c->s, out, in);
}

static int
mpi_min(void *ctx, uint64_t *v, unsigned int n)
{
	struct mpi_ctx *c = ctx;

	return mpi_ret(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T,
				     MPI_MIN, *c->comm));
}

static void
ctx_free(struct mpi_ctx *c)
{
	if (c == NULL)
		return;
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
	struct mpi_ctx *c;
	int up = 0, rank, size;

	memset(t, 0, sizeof(*t));
	if (MPI_Initialized(&up) != MPI_SUCCESS || !up ||
	    MPI_Comm_rank(*comm, &rank) != MPI_SUCCESS ||
	    MPI_Comm_size(*comm, &size) != MPI_SUCCESS || size < 1)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->comm = comm;
	c->size = (unsigned int)size;
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
ibex_psync_transport_mpi_free(struct ibex_psync_transport *t)
{
	ctx_free(t->ctx);
	memset(t, 0, sizeof(*t));
}
