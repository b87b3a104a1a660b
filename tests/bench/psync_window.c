/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one barrier window of lib/psync costs under MPI: every process
 * posts F records of B bytes to each other process per window, then
 * closes it; N windows. Prints windows per second and the time of one,
 * on rank 0. A split fabric's run costs its windows times this, on top of
 * its frame-hops (docs/simulation.md, "Beyond one machine").
 *   mpirun --oversubscribe -np 2 build/tests/bench/psync_window [N [F [B [T]]]]
 * T: the watchdog's timeout in seconds (ibex_psync_mpi.h), 0 for none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#include "ibex_psync_mpi.h"

static int
count_rec(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
	  const void *data, uint32_t len)
{
	(void)from, (void)arrival, (void)key, (void)data, (void)len;
	(*(uint64_t *)arg)++;
	return 0;
}

int
main(int argc, char **argv)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	unsigned long n, f, b, w, k;
	unsigned int d;
	uint64_t got = 0, now = 0;
	static char frame[9216];
	double t0, t1;

	MPI_Init(&argc, &argv);
	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	f = argc > 2 ? strtoul(argv[2], NULL, 0) : 4;
	b = argc > 3 ? strtoul(argv[3], NULL, 0) : 1100;
	if (b > sizeof(frame) || ibex_psync_transport_mpi(&t, &comm) != 0 ||
	    ibex_psync_init(&ps, &t, 500) != 0)
		MPI_Abort(comm, 2);
	if (argc > 4)
		ibex_psync_transport_mpi_set_timeout(&t, atof(argv[4]));
	MPI_Barrier(comm);
	t0 = MPI_Wtime();
	for (w = 0; w < n; w++) {
		for (d = 0; d < t.size; d++)
			for (k = 0; d != t.rank && k < f; k++)
				ibex_psync_post(&ps, d, ps.window_end, 1, frame,
						(uint32_t)b);
		now = ps.window_end;
		if (ibex_psync_window(&ps, now, count_rec, &got, NULL, 0) != 0)
			MPI_Abort(comm, 2);
	}
	t1 = MPI_Wtime();
	if (t.rank == 0)
		printf("%u processes: %lu windows of %lu records of %lu bytes to "
		       "each other process: %.0f windows/s, %.2f us a window "
		       "(%llu records received here)\n", t.size, n, f, b,
		       (double)n / (t1 - t0), (t1 - t0) * 1e6 / (double)n,
		       (unsigned long long)got);
	ibex_psync_fini(&ps);
	ibex_psync_transport_mpi_free(&t);
	MPI_Finalize();
	return 0;
}
