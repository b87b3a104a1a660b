/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/psync over MPI: the toy simulation of tests/unit/psync split over
 * the processes of the MPI job (mpirun -np N) must give the digest, the
 * event count and the last event's time of the toy run in one process,
 * which rank 0 also runs. Exit 0 when they agree, 1 when not, 2 on an
 * error. Run by meson with -np 2 and 4 (tests/mpi/meson.build).
 *
 * With --fault KIND:P:W [--timeout S], process P misbehaves when it
 * reaches window W: "hang" never returns to the windows, "exit" leaves
 * without MPI_Finalize, "kill" dies of SIGKILL, "fail" ends the run with
 * an error of its own (ibex_psync_fail()), "slow" comes to the window
 * 1.5 x the timeout late. Up to two --fault. tests/mpi/psync_faults.py
 * checks that the job ends each time, with an error naming P (and not a
 * slow process that came in the end).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include <mpi.h>

#include "ibex_psync_mpi.h"
#include "psync_toy.h"

/* The toy in this process alone: the reference. */
static int
toy_alone(uint64_t *digest, uint64_t *events, uint64_t *last_t)
{
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	struct toy y;
	int ret;

	ibex_psync_transport_self(&t);
	ret = ibex_psync_init(&ps, &t, TOY_LOOKAHEAD);
	if (ret == 0)
		ret = toy_init(&y, 0, 1);
	while (ret == 0 && y.n != 0)
		ret = toy_run_one(&y, &ps, toy_pop(&y));
	*digest = y.digest;
	*events = y.events;
	*last_t = y.last_t;
	free(y.heap);
	ibex_psync_fini(&ps);
	return ret;
}

#define MAX_FAULTS 2

struct fault {
	char kind[8];
	unsigned int part;
	uint64_t window;
	double timeout;
};

/* Misbehave as told when this process is the faulty one and the window
 * has come: a "fail" is an error the windows carry to the others. */
static int
fault_hit_one(const struct fault *f, const struct ibex_psync *ps)
{
	if (f->kind[0] == 0 || ps->t.rank != f->part ||
	    ps->windows != f->window)
		return 0;
	fprintf(stderr, "test_psync_mpi: process %u: %s at window %" PRIu64
		"\n", f->part, f->kind, f->window);
	if (strcmp(f->kind, "hang") == 0)
		for (;;)
			pause();
	if (strcmp(f->kind, "exit") == 0)
		_exit(0);
	if (strcmp(f->kind, "kill") == 0)
		raise(SIGKILL);
	if (strcmp(f->kind, "slow") == 0) {
		usleep((useconds_t)(f->timeout * 1.5e6));
		return 0;
	}
	return -EIO;
}

static int
fault_hit(const struct fault *f, const struct ibex_psync *ps)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < MAX_FAULTS && ret == 0; i++)
		ret = fault_hit_one(&f[i], ps);
	return ret;
}

/* The toy's loop (psync_toy.h's toy_run()), with the fault. */
static int
toy_run_faulty(struct toy *y, struct ibex_psync *ps, const struct fault *f)
{
	int ret;

	for (;;) {
		while (y->n != 0 && y->heap[0].t < ibex_psync_window_end(ps)) {
			ret = toy_run_one(y, ps, toy_pop(y));
			if (ret != 0)
				return ret;
		}
		ret = fault_hit(f, ps);
		if (ret != 0) /* this process's own error, in the agreement */
			ret = ibex_psync_fail(ps, ret);
		else
			ret = ibex_psync_window(ps, y->n != 0 ? y->heap[0].t :
						UINT64_MAX, toy_deliver, y,
						NULL, 0);
		if (ret != 0)
			return ret;
		if (ps->window_start == UINT64_MAX)
			return 0;
	}
}

int
main(int argc, char **argv)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	struct toy y;
	uint64_t mine[3], sum[3], last = 0, ref[3];
	struct fault f[MAX_FAULTS] = { { "", 0, 0, 0 } };
	unsigned int n_f = 0;
	double timeout = 0;
	int ret, rc = 0, i;

	MPI_Init(&argc, &argv);
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--timeout") == 0)
			timeout = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--fault") != 0 || n_f == MAX_FAULTS ||
			 sscanf(argv[i + 1], "%7[a-z]:%u:%" SCNu64,
				f[n_f].kind, &f[n_f].part,
				&f[n_f].window) != 3)
			break;
		else
			n_f++;
	}
	if (i != argc) {
		fprintf(stderr, "usage: test_psync_mpi [--fault "
			"hang|exit|kill|fail|slow:PROCESS:WINDOW]... "
			"[--timeout S]\n");
		MPI_Abort(comm, 2);
	}
	for (i = 0; i < MAX_FAULTS; i++)
		f[i].timeout = timeout;
	/* set-up errors are this process's alone: end the job */
	ret = ibex_psync_transport_mpi(&t, &comm);
	if (ret == 0 && timeout > 0)
		ibex_psync_transport_mpi_set_timeout(&t, timeout);
	if (ret == 0)
		ret = ibex_psync_init(&ps, &t, TOY_LOOKAHEAD);
	if (ret == 0)
		ret = toy_init(&y, t.rank, t.size);
	if (ret != 0) {
		fprintf(stderr, "test_psync_mpi: set-up: error %d\n", ret);
		MPI_Abort(comm, 2);
	}
	/* a run's errors every process returns from the same window */
	ret = n_f != 0 ? toy_run_faulty(&y, &ps, f) : toy_run(&y, &ps);
	if (ret == -ECANCELED) {
		/* every process knows which failed; the lowest says it */
		if (t.rank == (ps.failed == 0 ? 1 : 0))
			fprintf(stderr, "test_psync_mpi: partition %u failed "
				"in window %" PRIu64 "; ending the job\n",
				ps.failed, ps.windows);
		ibex_psync_transport_mpi_free(&t);
		MPI_Finalize();
		return 2;
	}
	if (ret != 0) {
		fprintf(stderr, "test_psync_mpi: process %u: error %d\n",
			t.rank, ret);
		ibex_psync_transport_mpi_free(&t);
		MPI_Finalize();
		return 2;
	}
	mine[0] = y.digest;
	mine[1] = y.events;
	mine[2] = ps.early;
	MPI_Reduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, 0, comm);
	MPI_Reduce(&y.last_t, &last, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
	if (t.rank == 0) {
		if (toy_alone(&ref[0], &ref[1], &ref[2]) != 0)
			rc = 2;
		printf("%u processes: %" PRIu64 " events, %" PRIu64 " windows, "
		       "%" PRIu64 " records from process 0, last at %" PRIu64
		       ", digest %016" PRIx64 "; one process: %" PRIu64
		       " events, last at %" PRIu64 ", digest %016" PRIx64
		       "\n", t.size, sum[1], ps.windows, ps.posted, last,
		       sum[0], ref[1], ref[2], ref[0]);
		if (rc == 0 && (sum[0] != ref[0] || sum[1] != ref[1] ||
				last != ref[2] || sum[2] != 0)) {
			printf("FAIL: the split run differs from one process\n");
			rc = 1;
		}
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	free(y.heap);
	ibex_psync_fini(&ps);
	ibex_psync_transport_mpi_free(&t);
	MPI_Finalize();
	return rc;
}
