/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FABRIC_H
#define IBEX_FABRIC_H

/**
 * @file
 * A fabric of ibex switches and ranks: the topology file and the routes a
 * fabric manager computes for it, as an InfiniBand subnet manager computes
 * linear forwarding tables. Pure: no DPDK, no EAL.
 *
 * The topology file has containerlab's shape (docs/fabric.md), and
 * containerlab's own files load too: its keys are accepted with a
 * warning, its kinds mapped to ibex's by a kind map:
 *
 *     name: leaf2-spine1
 *     topology:
 *       defaults: {rate: 100G, delay: 500ns}
 *       lanes: {vls: 4, sl2vl: "0-2:0,3:3,4-15:1", lossless: 3}
 *       nodes:
 *         leaf1:  {kind: ibex, config: leaf1.conf}
 *         spine1: {kind: ibex}
 *         host1:  {kind: rank, mac: "02:00:00:00:01:01"}
 *       links:
 *         - endpoints: ["host1:eth0", "leaf1:p0"]
 *         - endpoints: ["leaf1:p3", "spine1:p0"]
 *           rate: 100G
 *           delay: 500ns
 *
 * Routing (ibex_fabric_route): switches are ranked by their distance from
 * the ranks (leaves 1, spines 2, ...), ties broken by declaration order, and
 * every route goes up zero or more hops then down zero or more, never down
 * then up (up*\/down* routing), so the channel dependency graph has no cycle
 * and credits or PFC cannot deadlock. Among equal-cost next hops every one
 * is kept (the ECMP group) and one is chosen per destination, balancing the
 * destinations over the members as OpenSM balances LIDs over ports.
 * Flooding follows a spanning tree of the switches.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_common.h"
#include "ibex_conf.h"

#define IBEX_FABRIC_NAME_LEN   64
#define IBEX_FABRIC_PATH_LEN   256
/** Most nodes (switches and ranks) in one fabric: room for fat trees of
 * up to 38-port switches (ibex-topo fattree 36: 13,284 nodes, 34,992
 * links, the first past 10,000 ranks; fattree 38: 15,523 nodes). Not
 * raised for the 40- to 64-port fat trees a switch's ports allow
 * (IBEX_MAX_PORTS): fattree 40 has 16,000 ranks and the generator runs
 * at most 16,384 (its 14-bit ranks), and routing costs n_switches x
 * n_ranks routes (fattree 32: 380 MB, fattree 36: 0.7 GB, fattree 64
 * would be 12.7 GB; docs/fabric.md, "Generated topologies"). The node
 * and link arrays grow with the file. */
#define IBEX_FABRIC_MAX_NODES  16384
/** Most links. */
#define IBEX_FABRIC_MAX_LINKS  65536
/** Deepest nesting of lists and mappings a topology file may have (the
 * format needs 5). */
#define IBEX_FABRIC_MAX_DEPTH  64
/** Most members of one ECMP group. */
#define IBEX_FABRIC_MAX_ECMP   16
/** Unreachable / none. */
#define IBEX_FABRIC_NONE       UINT32_MAX

enum ibex_fabric_kind {
	IBEX_FABRIC_SWITCH = 0, /**< kind: ibex */
	IBEX_FABRIC_RANK,       /**< kind: rank (a generator rank, a host) */
};

/** One port of a node, and the link plugged into it. */
struct ibex_fabric_port {
	char name[IBEX_NAME_LEN];
	uint32_t link;           /**< index in links, or IBEX_FABRIC_NONE */
};

struct ibex_fabric_node {
	char name[IBEX_FABRIC_NAME_LEN];
	uint8_t kind;            /**< enum ibex_fabric_kind */
	char config[IBEX_FABRIC_PATH_LEN]; /**< switch: its ibex config, or "" */
	uint8_t mac[6];          /**< rank: its address */
	bool ports_declared;     /**< ports: given, endpoints must name them;
				  * else the links' ports, natural order */
	int line;                /**< where the node is declared */
	/** `partition: P`: the process of a partitioned run it goes to
	 * (ibex_fabric_part.h), or IBEX_FABRIC_NONE */
	uint32_t pin;
	uint16_t n_ports;
	struct ibex_fabric_port port[IBEX_MAX_PORTS];
	/* filled by ibex_fabric_route */
	uint32_t rank;           /**< up/down rank: hops from the nearest rank */
};

/** One end of a link: node and port indexes. */
struct ibex_fabric_end {
	uint32_t node;
	uint16_t port;
};

/** Longest `llr:` preset name of a link, with its NUL. */
#define IBEX_FABRIC_LLR_LEN 16

struct ibex_fabric_link {
	struct ibex_fabric_end end[2];
	uint64_t rate_bps;       /**< line rate, bit/s */
	uint64_t delay_ps;       /**< propagation delay, picoseconds */
	double loss;             /**< probability a frame is lost (bad FCS),
				      each way (net_ibexlink's loss=) */
	double corrupt;          /**< probability a frame arrives with a bit
				      flipped, each way (corrupt=) */
	/** `llr:` UEC LLR on both ends, "off" or a preset of lib/llr
	 * (net_ibexlink's llr=); "": not given (ibex-fabric --llr's). */
	char llr[IBEX_FABRIC_LLR_LEN];
	int line;                /**< where the link is written */
};

/**
 * `topology: lanes:`: the lane tables the fabric manager gives every port
 * of every switch, so each hop maps an SL to the same VL.
 */
struct ibex_fabric_lanes {
	bool set;                /**< lanes: given */
	bool lossless_set;       /**< lossless: given (else lanes untouched) */
	int line;                /**< where lanes: is written */
	/** The tables as lib/conf completed and validated them, on a scratch
	 * port: nb_vls, sl_class (PCP -> SL), sl2vl, vlarb, lossless_mask. */
	struct ibex_conf_port port;
};

/**
 * How the fabric manager routes (ibex-fabric --routes). Up/down is the
 * default and the only deadlock-free choice on any topology; shortest
 * paths over every link is the routing mistake the deadlock scenario
 * needs: on a cycle of switches its routes close a cycle of buffer
 * dependencies (docs/ai-ethernet.md).
 */
enum ibex_fabric_routing {
	IBEX_FABRIC_UPDOWN = 0,
	IBEX_FABRIC_SHORTEST,
};

struct ibex_fabric {
	char name[IBEX_FABRIC_NAME_LEN];
	uint8_t routing;         /**< enum ibex_fabric_routing (the caller's) */
	char origin[IBEX_FABRIC_PATH_LEN]; /**< file name, for messages */
	uint32_t n_nodes, n_links;
	struct ibex_fabric_node *nodes;
	struct ibex_fabric_link *links;
	struct ibex_fabric_lanes lanes;
};

/** Most entries of one kind map (the command line's, the file's). */
#define IBEX_FABRIC_KIND_MAP_MAX 32

/**
 * How a topology is read: what containerlab's kinds are in ibex, and
 * where the warnings about containerlab's keys go (docs/fabric.md,
 * "containerlab's files").
 */
struct ibex_fabric_opts {
	/** "KIND=ROLE,..." with ROLE ibex (a switch) or rank (a traffic
	 * endpoint), as ibex-fabric --kind-map; wins over the file's
	 * `ibex: {kind-map: ...}`. NULL: none. */
	const char *kind_map;
	/** Called with each warning, "origin:line: warning: ..."; NULL:
	 * written to stderr. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/**
 * Parse a topology text. On error writes "origin:line: message" into
 * @p err and returns -EINVAL (-ENOMEM on allocation failure); @p f is then
 * empty. Free a parsed fabric with ibex_fabric_free. Warnings go to
 * stderr; ibex_fabric_parse_opts says where.
 */
int ibex_fabric_parse(struct ibex_fabric *f, const char *text, size_t len,
		      const char *origin, char *err, size_t errlen);

/** ibex_fabric_parse with @p o (NULL: as ibex_fabric_parse). A bad
 * o->kind_map is refused as "--kind-map: message". */
int ibex_fabric_parse_opts(struct ibex_fabric *f, const char *text,
			   size_t len, const char *origin,
			   const struct ibex_fabric_opts *o, char *err,
			   size_t errlen);

/** Read and parse a file; -errno (with a message) when it cannot be read. */
int ibex_fabric_load(struct ibex_fabric *f, const char *path,
		     char *err, size_t errlen);

/** ibex_fabric_load with @p o (NULL: as ibex_fabric_load). */
int ibex_fabric_load_opts(struct ibex_fabric *f, const char *path,
			  const struct ibex_fabric_opts *o, char *err,
			  size_t errlen);

/**
 * Check a kind map "KIND=ROLE,..." (ROLE ibex or rank), as
 * ibex_fabric_opts.kind_map. @return 0, or -EINVAL with the reason in
 * @p err.
 */
int ibex_fabric_kind_map_check(const char *spec, char *err, size_t errlen);

void ibex_fabric_free(struct ibex_fabric *f);

/** A link's delay as a topology file gives it ("500ns", "1.5us", "250ps";
 * a bare number is ns; ibex_parse_time_ps()), at most a second, in
 * picoseconds. @return 0 or -EINVAL. */
int ibex_fabric_parse_delay(const char *s, uint64_t *ps);

/** Index of the node called @p name, or IBEX_FABRIC_NONE. */
uint32_t ibex_fabric_node_find(const struct ibex_fabric *f, const char *name);

/** The other end of link @p l seen from @p e. */
struct ibex_fabric_end ibex_fabric_peer(const struct ibex_fabric *f,
					uint32_t l, struct ibex_fabric_end e);

/** The node at the far end of node @p n's port @p p, or IBEX_FABRIC_NONE
 * when no link is plugged in there. */
static inline uint32_t
ibex_fabric_neighbour(const struct ibex_fabric *f, uint32_t n, uint16_t p)
{
	uint32_t l = f->nodes[n].port[p].link;
	struct ibex_fabric_end e = { .node = n, .port = p };

	return l == IBEX_FABRIC_NONE ? IBEX_FABRIC_NONE :
	       ibex_fabric_peer(f, l, e).node;
}

/* ---- routes ---- */

/** How switch @p sw reaches rank @p dst. */
struct ibex_fabric_route {
	uint16_t n_ports;        /**< members of the ECMP group (>= 1) */
	uint16_t port[IBEX_FABRIC_MAX_ECMP]; /**< equal-cost egress ports */
	uint16_t chosen;         /**< the member this destination uses */
	uint16_t hops;           /**< switch hops to the rank, this one included */
};

struct ibex_fabric_routes {
	uint32_t n_switches, n_ranks;
	uint32_t *sw;            /**< node index of switch i */
	uint32_t *rk;            /**< node index of rank j */
	/** route[i * n_ranks + j]: switch i to rank j */
	struct ibex_fabric_route *route;
	/** flood[node][port]: the port is on the flooding tree */
	bool (*flood)[IBEX_MAX_PORTS];
	uint32_t root;           /**< node index of the tree's root switch */
};

/**
 * Rank the switches, compute every switch's route to every rank and the
 * flooding tree. Sets each node's rank. Refuses (-EINVAL, "origin:line:
 * message" naming a node) a switch that no rank reaches (no up/down order
 * exists for it), a rank unreachable from another, a rank with other than
 * one link, or a link from a rank to a rank.
 */
int ibex_fabric_route(struct ibex_fabric *f, struct ibex_fabric_routes *r,
		      char *err, size_t errlen);

void ibex_fabric_routes_free(struct ibex_fabric_routes *r);

/**
 * Only the first part of ibex_fabric_route(): each node's up/down rank
 * (hops from the nearest rank), what partitioning needs, without the
 * routes' n_switches x n_ranks. @return 0, -EINVAL (a switch no rank
 * reaches, named) or -ENOMEM.
 */
int ibex_fabric_rank(struct ibex_fabric *f, char *err, size_t errlen);

/** Route of switch index @p i to rank index @p j. */
static inline const struct ibex_fabric_route *
ibex_fabric_route_get(const struct ibex_fabric_routes *r, uint32_t i,
		      uint32_t j)
{
	return &r->route[(size_t)i * r->n_ranks + j];
}

/**
 * True if the path from every switch to every rank follows the up/down
 * rule and reaches the rank (a check of the tables, used by the tests).
 */
bool ibex_fabric_routes_legal(const struct ibex_fabric *f,
			      const struct ibex_fabric_routes *r);

/**
 * Write switch node @p node's part in ibex's configuration grammar: a
 * `port NAME speed RATE` line per linked port, an `ecmp ecmpN ports P,P`
 * line per distinct set of equal-cost ports, and an `fdb static MAC` line
 * per rank (`ecmp ecmpN` where it has several ports, else `port NAME`),
 * and `port NAME flood off` for every linked port off the flooding tree.
 * Append it to the switch's own configuration.
 * @return 0, -EINVAL if @p node is not a switch, -EIO on a write error.
 */
int ibex_fabric_render(const struct ibex_fabric *f,
		       const struct ibex_fabric_routes *r, uint32_t node,
		       FILE *out);

#endif /* IBEX_FABRIC_H */
