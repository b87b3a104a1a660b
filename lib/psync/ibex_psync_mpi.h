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
 * of MPI_Alltoall (the sizes) and MPI_Alltoallv (the records), a minimum
 * of MPI_Allreduce. @p comm must outlive @p t.
 * @return 0, or -EINVAL when MPI is not initialised.
 */
int ibex_psync_transport_mpi(struct ibex_psync_transport *t, MPI_Comm *comm);

/** Free what ibex_psync_transport_mpi() allocated. */
void ibex_psync_transport_mpi_free(struct ibex_psync_transport *t);

#endif /* IBEX_PSYNC_MPI_H */
