/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of engines --engine chooses from. */

#include <stddef.h>
#include <string.h>

#include "ibex_gen_engine.h"
#include "ibex_gen_inc.h"

const struct ibex_gen_engine ibex_gen_engine_ring = {
	.name = "ring", .coll = &ibex_coll_ring,
	.help = "ring all-reduce: 2(n-1) steps of S/n",
};
const struct ibex_gen_engine ibex_gen_engine_hd = {
	.name = "hd", .coll = &ibex_coll_hd,
	.help = "halving-doubling all-reduce: 2 log2 n rounds (+2 if n != 2^k)",
};
const struct ibex_gen_engine ibex_gen_engine_incast = {
	.name = "incast", .coll = &ibex_coll_incast,
	.help = "every rank sends S to the root",
};
const struct ibex_gen_engine ibex_gen_engine_alltoall = {
	.name = "alltoall", .coll = &ibex_coll_alltoall,
	.help = "every rank sends S/n to every other rank",
};
const struct ibex_gen_engine ibex_gen_engine_inc = {
	.name = "inc", .coll = &ibex_coll_inc, .inc = true,
	.help = "in-network all-reduce: each rank's vector once up the\n"
		"switches' aggregation tree (docs/aggregation.md)",
};
const struct ibex_gen_engine ibex_gen_engine_rate = {
	.name = "rate", .coll = NULL,
	.help = "open loop: paced frames, rank r -> r+1 or the --flow list",
};

const struct ibex_gen_engine *const ibex_gen_engines[] = {
	&ibex_gen_engine_ring, &ibex_gen_engine_hd, &ibex_gen_engine_incast,
	&ibex_gen_engine_alltoall, &ibex_gen_engine_inc, &ibex_gen_engine_rate,
	NULL,
};

const struct ibex_gen_engine *
ibex_gen_engine_find(const char *name)
{
	unsigned int i;

	for (i = 0; ibex_gen_engines[i] != NULL; i++)
		if (strcmp(name, ibex_gen_engines[i]->name) == 0)
			return ibex_gen_engines[i];
	return NULL;
}
