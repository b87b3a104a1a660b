/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/psync over MPI: the toy simulation of tests/unit/psync split over
 * the processes of the MPI job (mpirun -np N) must give the digest, the
 * event count and the last event's time of the toy run in one process,
 * which rank 0 also runs. Exit 0 when they agree, 1 when not, 2 on an
 * error. Run by meson with -np 2 and 4 (tests/mpi/meson.build).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

int
main(int argc, char **argv)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	struct toy y;
	uint64_t mine[3], sum[3], last = 0, ref[3];
	int ret, rc = 0;

	MPI_Init(&argc, &argv);
	ret = ibex_psync_transport_mpi(&t, &comm);
	if (ret == 0)
		ret = ibex_psync_init(&ps, &t, TOY_LOOKAHEAD);
	if (ret == 0)
		ret = toy_init(&y, t.rank, t.size);
	if (ret == 0)
		ret = toy_run(&y, &ps);
	if (ret != 0) {
		fprintf(stderr, "test_psync_mpi: process %u: error %d\n",
			t.rank, ret);
		MPI_Abort(comm, 2);
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
