/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PSYNC_MPI_H
#define IBEX_PSYNC_MPI_H

/**
 * @file
 * lib/psync's transport over MPI: the processes of MPI_COMM_WORLD, or of
 * a communicator the caller gives. Built when meson finds MPI (Open MPI
 * from Debian: libopenmpi-dev); the caller initialises and finalises MPI.
 */

#include <mpi.h>

#include "ibex_psync.h"

/**
 * Fill @p t for the processes of @p comm: its rank and size, an exchange
 * of MPI_Ialltoall (the sizes) and MPI_Ialltoallv (the records), a
 * minimum of MPI_Iallreduce, each waited for under the watchdog below.
 * Collective over @p comm (it is duplicated for the watchdog's messages);
 * @p comm must outlive @p t. A failure after the duplication (no memory)
 * returns on that process only: end the job with MPI_Abort.
 * @return 0, or -EINVAL when MPI is not initialised.
 */
int ibex_psync_transport_mpi(struct ibex_psync_transport *t, MPI_Comm *comm);

/** Wall seconds a collective may wait by default before the watchdog
 * ends the job (ibex_psync_transport_mpi_set_timeout()). */
#define IBEX_PSYNC_MPI_TIMEOUT_S 120.0

/** The job's exit status (MPI_Abort's) when a partition never joined a
 * window's collective within the timeout. */
#define IBEX_PSYNC_MPI_EXIT_HUNG 3

/**
 * The watchdog: a window's collective (its exchange or agreement) that
 * has not completed after @p seconds of wall time means a partition is
 * hung, stopped or dead without its launcher having ended the job. The
 * waiting processes then find out which did not come (they tell each
 * other, for two seconds), the lowest-ranked of them names it on stderr
 * ("ibex psync: partition 2 did not reach window 4711's agreement ..."),
 * and the job ends with MPI_Abort(IBEX_PSYNC_MPI_EXIT_HUNG). Default
 * IBEX_PSYNC_MPI_TIMEOUT_S; 0 waits for ever (and answers no other
 * process's watchdog: set the same value everywhere).
 */
void ibex_psync_transport_mpi_set_timeout(struct ibex_psync_transport *t,
					  double seconds);

/** Free what ibex_psync_transport_mpi() allocated. Collective (the
 * watchdog's communicator is freed): every process, before
 * MPI_Finalize. */
void ibex_psync_transport_mpi_free(struct ibex_psync_transport *t);

#endif /* IBEX_PSYNC_MPI_H */
