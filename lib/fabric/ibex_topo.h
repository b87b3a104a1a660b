/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_TOPO_H
#define IBEX_TOPO_H

/**
 * @file
 * Generated topologies: the files of lib/fabric's format (ibex_fabric.h)
 * for the usual shapes of a cluster fabric, at any size the parser and a
 * switch's ports allow. Pure: no DPDK, no EAL; the output depends on the
 * parameters alone (same parameters, byte-identical text).
 *
 * Shapes (docs/fabric.md, "Generated topologies"):
 *  - leaf-spine: L leaves of R ranks each, every leaf joined to every one
 *    of S spines by U links.
 *  - fattree: the 3-tier k-ary fat tree: k pods of k/2 edge and k/2
 *    aggregation switches, (k/2)^2 cores, k^3/4 ranks; every switch has k
 *    ports. --pods P builds the first P pods only (P * k^2/4 ranks),
 *    as a cluster that fills its fat tree pod by pod: each core then has
 *    P ports, one to each pod built.
 *  - rail: rail-optimized groups (scalable units): each group has S
 *    servers of N GPUs (ranks) and N rail switches, GPU i of every server
 *    of the group on rail switch i; every rail switch joined to every one
 *    of P spines by U links.
 *
 * Names sort as the fabric is laid out, zero-padded to the widest index:
 * rank0000.., leaf00.., spine0.., edge000.., agg000.., core000..,
 * g0-rail0... Rank i (0-based, in declaration order, which is the rank
 * index ibex-fabric uses) has the MAC 02:49:ii:ii:ii:ii (i in 32 bits).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ibex_topo_shape {
	IBEX_TOPO_LEAF_SPINE = 0,
	IBEX_TOPO_FATTREE,
	IBEX_TOPO_RAIL,
};

/** The keys of `topology: lanes:`, in the order they are written. */
#define IBEX_TOPO_LANE_KEYS 7
#define IBEX_TOPO_LANE_LEN  128

struct ibex_topo {
	uint8_t shape;          /**< enum ibex_topo_shape */
	char name[64];          /**< the fabric's name; "" for the default */
	/* leaf-spine */
	uint32_t leaves;
	uint32_t ranks_per_leaf;
	/* leaf-spine and rail */
	uint32_t spines;
	uint32_t uplinks;       /**< links from each leaf/rail switch to each
				 * spine; 0 means 1 */
	/* fattree */
	uint32_t k;
	uint32_t pods;          /**< pods built, 1..k (0: all k) */
	/* rail */
	uint32_t rails;         /**< GPUs per server, rail switches per group */
	uint32_t groups;
	uint32_t servers;       /**< servers per group */
	/* links: the ranks' (host) links rate_bps and delay_ps; the
	 * switch-switch links fabric_rate_bps (0: as the hosts') and
	 * fabric_delay_ps if fabric_delay_set (else as the hosts') */
	uint64_t rate_bps, fabric_rate_bps;
	uint64_t delay_ps, fabric_delay_ps;
	int fabric_delay_set;
	/** lanes: vls, sl-from, pcp2sl, dscp2sl, sl2vl, vlarb, lossless (""
	 * when not given) */
	char lanes[IBEX_TOPO_LANE_KEYS][IBEX_TOPO_LANE_LEN];
};

/** What a topology holds. */
struct ibex_topo_size {
	uint32_t n_switches, n_ranks, n_links;
	uint32_t max_ports;     /**< the most ports of one switch */
};

/** Defaults: 100G, 500ns, one uplink; every count 0 (to be given). */
void ibex_topo_init(struct ibex_topo *t, enum ibex_topo_shape shape);

/** Shape name ("leaf-spine", "fattree", "rail") to enum; -1 if unknown. */
int ibex_topo_shape_parse(const char *s);

/**
 * Set one lane key from "KEY=VALUE" (KEY one of vls, pcp2sl, sl2vl,
 * vlarb, lossless). The value is checked by lib/fabric's parser when the
 * file is read (ibex_topo_lanes_check checks it now).
 * @return 0, or -EINVAL with the reason in @p err.
 */
int ibex_topo_lane_set(struct ibex_topo *t, const char *kv, char *err,
		       size_t errlen);

/** Check the lanes given, as lib/fabric reads them, on a two-node
 * topology. @return 0, or -EINVAL with lib/fabric's reason in @p err. */
int ibex_topo_lanes_check(const struct ibex_topo *t, char *err,
			  size_t errlen);

/**
 * Check the parameters and size the topology: a shape's counts that are
 * missing or zero, an odd k, a switch with more ports than a switch has
 * (IBEX_MAX_PORTS), more nodes or links than lib/fabric's parser takes
 * (IBEX_FABRIC_MAX_NODES, IBEX_FABRIC_MAX_LINKS) are refused, the limit
 * named. @return 0, or -EINVAL with the reason in @p err.
 */
int ibex_topo_size(const struct ibex_topo *t, struct ibex_topo_size *sz,
		   char *err, size_t errlen);

/**
 * Write the topology file. @return 0, -EINVAL (as ibex_topo_size), or
 * -EIO on a write error.
 */
int ibex_topo_write(const struct ibex_topo *t, FILE *out, char *err,
		    size_t errlen);

/** Rank @p i's MAC: 02:49 and i, big-endian, in the last four bytes. */
void ibex_topo_rank_mac(uint32_t i, uint8_t mac[6]);

#endif /* IBEX_TOPO_H */
