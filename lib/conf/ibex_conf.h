/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CONF_H
#define IBEX_CONF_H

/**
 * @file
 * The ibex configuration: one line-oriented grammar for the startup file and
 * for live commands, parsed into a plain, copyable object and validated as a
 * whole. Errors come back as "origin:line: message" so a user can jump to
 * the place. A failed parse or validation never half-applies: callers parse
 * into a copy and swap only on success.
 *
 * The grammar is documented, key by key, in docs/configuration.md.
 *
 *   # comment
 *   switch workers 1 burst 32 tx-drain-us 0 mbufs 16384
 *   port p0 dev net_ring0 pvid 1 vlans 1,10-20 speed 25G mtu 1500
 *   port p1 flood off
 *   fdb ageing 300
 *   fdb max-entries 65536
 *   fdb learning on
 *   fdb static 02:00:00:00:00:01 port p0 vlan 1
 *   ecmp up ports p2,p3
 *   ecmp up adaptive flowlet 20
 *   fdb static 02:00:00:00:00:02 ecmp up vlan 1
 *   port p1 sl-from bpf /etc/ibex/qp.o:ibex bpf-fallback dscp
 *   sl2vl p0 0:0,1:1,7:drop
 *   vlarb p0 high 3:2 low 0:1,1:2 limit 0
 *   lane p0 vl 3 lossless reserved 64KB
 *   pfc p0 headroom auto cable-m 3
 *   ecn p0 vl 3 kmin 100KB kmax 400KB pmax 0.2
 *
 * ibex_conf_parse_line(), _string() and _file() leave every port's tables
 * complete (ibex_conf_port_tables()); ECN curves carry the port's rate but
 * time_hz 0: the data path sets its tick rate before ibex_ecn_params_set()
 * (lib/conf checks them without a clock, ibex_ecn_cfg_check()). Before a
 * config goes to the data path, ibex_conf_finish() completes and validates
 * it once; the data path checks only what depends on what runs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_agg.h"
#include "ibex_buf.h"
#include "ibex_cbfc.h"
#include "ibex_ecmp.h"
#include "ibex_ecn.h"
#include "ibex_pfc.h"
#include "ibex_units.h"
#include "ibex_vl.h"
#include "ibex_vlarb.h"

#define IBEX_DEV_LEN 128
/*
 * Most static FDB entries: one per rank of the largest fabric the
 * generator runs (IBEX_GEN_MAX_RANKS, 16,384), as the fabric manager gives
 * every switch a route to every rank. 256 KiB of the struct; a copy
 * (ibex_conf_copy()) writes only the entries in use, so the rest of a
 * zeroed configuration stays untouched pages.
 */
#define IBEX_CONF_MAX_STATIC 16384
#define IBEX_CONF_ERR_LEN 256
/** Longest statement, in characters, without its newline. */
#define IBEX_CONF_LINE_MAX 4096
/** Longest eBPF object path and section name, with the NUL. */
#define IBEX_CONF_BPF_PATH_LEN 256
#define IBEX_CONF_BPF_SEC_LEN 64

/** Scatter RX (frames over several mbufs) of a port: `rx-scatter`. */
enum ibex_rx_scatter {
	IBEX_RX_SCATTER_AUTO = 0, /**< on when its frames outgrow an mbuf */
	IBEX_RX_SCATTER_ON,       /**< always; the device must offer it */
	IBEX_RX_SCATTER_OFF,      /**< never */
};

/** Largest MTU a port takes, and what an unset `mtu` lets in. */
#define IBEX_CONF_MTU_MAX 9600
/** Bytes of a frame around its MTU of payload, FCS not counted (mbufs
 * hold none): Ethernet header and one 802.1Q tag. */
#define IBEX_CONF_MTU_L2 18

struct ibex_conf_port {
	char name[IBEX_NAME_LEN];  /**< user's name, unique */
	char dev[IBEX_DEV_LEN];    /**< ethdev name; "" = same as name */
	uint16_t pvid;             /**< VLAN of untagged frames (default 1) */
	uint16_t mtu;              /**< 0 = leave the device's */
	uint8_t rx_scatter;        /**< enum ibex_rx_scatter (auto) */
	uint16_t lldp_to;          /**< port LLDP frames go to (IBEX_PORT_NONE) */
	uint16_t stp_to;           /**< port STP BPDUs go to (IBEX_PORT_NONE) */
	uint16_t rx_desc;          /**< RX ring size (default 1024) */
	uint16_t tx_desc;          /**< TX ring size (default 1024) */
	uint16_t rx_queues;        /**< RX queues (RSS); 0 = one per worker,
					as many as the device offers */
	uint64_t speed_bps;        /**< line rate, bit/s; 0 = unset */
	bool trusted;              /**< may send management (VL15) frames */
	bool admin_up;             /**< default true */
	/** Flooded frames (broadcast, multicast, unknown unicast) go out of
	 * it and are flooded when they come in (default true); off: a link
	 * off the fabric's flooding tree (docs/fabric.md). */
	bool flood;
	bool vlans_set;            /**< vlans given; otherwise member of pvid only */
	uint64_t vlans[IBEX_VLAN_COUNT / 64]; /**< membership bitmap */
	int line;                  /**< line that declared it, for messages */

	/* Virtual lanes (docs/virtual-lanes.md). */
	uint8_t nb_vls;            /**< operational data VLs 1, 2, 4, 8, 15 (8) */
	struct ibex_sl_class sl_class; /**< SL from PCP or DSCP (pcp, identity) */
	/** sl-from bpf FILE[:SECTION]: an eBPF classifier ("" = none) in
	 * front of sl_class, which answers its IBEX_BPF_DEFAULT verdicts
	 * (docs/bpf.md). */
	char bpf_file[IBEX_CONF_BPF_PATH_LEN];
	char bpf_section[IBEX_CONF_BPF_SEC_LEN]; /**< "" = its only program */
	bool bpf_jit;              /**< JIT it (on); off: interpret */
	bool sl2vl_set;            /**< sl2vl given; else ibex_sl2vl_default() */
	struct ibex_sl2vl sl2vl;
	bool vlarb_set;            /**< vlarb given; else ibex_vlarb_conf_default() */
	struct ibex_vlarb_conf vlarb;
	uint64_t shape_bps;        /**< egress shaper incl. preamble+IFG; 0 = off */
	uint32_t vl_queue_blocks;  /**< bound of each (port, VL) queue (1024) */
	int vl_line;               /**< last lane statement, for messages */

	/* Flow control (docs/flow-control.md). */
	uint8_t fc_mode;           /**< enum ibex_fc_mode (none) */
	uint16_t lossless_mask;    /**< bit v: VL v lossless (needs fc) */
	uint32_t reserved_blocks[IBEX_VL_COUNT]; /**< per VL (4 KB) */
	uint32_t credit_period_us; /**< periodic credit frame (50) */
	uint32_t credit_min_gap_ns; /**< on-change frames this far apart (2000) */
	uint32_t credit_window_blocks; /**< credit window: the reserved share
					  of each lossless lane; 0: the
					  lanes' own, or
					  IBEX_CONF_CREDIT_WINDOW_AUTO */
	uint32_t credit_delay_ns;  /**< one way, for window auto (2050) */
	uint64_t credit_rate_bps;  /**< for window auto; 0: the port's */
	bool pfc_headroom_auto;    /**< size headroom from the formula (on) */
	uint32_t pfc_cable_m;      /**< for the formula (IBEX_CONF_PFC_CABLE_M) */
	uint32_t pfc_proc_ns;      /**< for the formula (2000) */
	uint32_t pfc_headroom_blocks; /**< when not auto */
	uint32_t pfc_xoff_blocks;  /**< 0 = dynamic */
	uint32_t pfc_xon_gap_blocks; /**< XOFF - XON (3 KB) */
	uint16_t pfc_quanta;       /**< per XOFF (65535) */
	uint32_t pfc_refresh_margin_us; /**< 0 = half the pause */
	bool pfc_hw;               /**< use the NIC's PFC instead (off) */
	uint8_t wd_action;         /**< enum ibex_pfc_wd_action (drop) */
	uint32_t wd_detect_ms;     /**< (200) */
	uint32_t wd_recover_ms;    /**< (200) */
	/* UEC CBFC (`fc cbfc`, `cbfc` statements, docs/cbfc.md), with SAI's
	 * names in the comments (SAI_PORT_ATTR_CBFC_*). */
	uint32_t cbfc_credit_size; /**< SENDER_CREDIT_SIZE, bytes (128) */
	int16_t cbfc_overhead;     /**< PACKET_OVERHEAD, bytes (0) */
	uint32_t cbfc_cc_timer_us; /**< CC_MESSAGE_TIMER (256); 0: off */
	uint32_t cbfc_cf_min_spacing; /**< CF_MIN_SPACING, bytes (6400) */
	uint32_t cbfc_cf_max_spacing; /**< CF_MAX_SPACING, bytes (262144) */
	uint32_t cbfc_cf_refreshes; /**< refreshes of a still count (3);
					 0: forever (ibex's) */
	uint32_t cbfc_limit;       /**< per-VC sender credit limit; 0: auto,
					the lane's reserved share */
	uint32_t cbfc_port_limit;  /**< SENDER_CREDIT_LIMIT; 0: none */
	/* SAI's credit pools and profiles (`cbfc <port> pool|profile|vc`):
	 * a statement gives one pool or profile whole. */
	uint32_t cbfc_pool_size[IBEX_CBFC_MAX_POOLS]; /**< credits; 0: none */
	struct ibex_conf_cbfc_profile {
		uint8_t set;       /**< defined */
		uint8_t pool;      /**< index, or IBEX_CBFC_PORT_POOL */
		uint8_t th_mode;   /**< enum ibex_cbfc_th_mode */
		int8_t dyn_th;     /**< dynamic: n of 2^n, -7..7 */
		uint32_t reserved; /**< credits */
		uint32_t static_th; /**< static: shared credits at most, 0: any */
	} cbfc_profile[IBEX_CBFC_MAX_PROFILES];
	uint8_t cbfc_vc_profile[IBEX_VL_COUNT]; /**< profile + 1; 0: none */
	int fc_line;

	/* UEC packet trimming (`trim`, docs/ai-ethernet.md): a frame a lossy
	 * lane would tail-drop leaves trimmed to trim_size bytes, DSCP
	 * trim_dscp, on lane trim_vl. */
	uint32_t trim_size;        /**< 256..1024, a multiple of 4; 0 = off */
	uint32_t trim_dscp;        /**< (0) */
	uint32_t trim_vl;          /**< (0) */
	int trim_line;

	/* ECN per VL (docs/ecn.md). */
	struct ibex_conf_ecn {
		bool set;          /**< configured; else ibex_ecn_cfg_default() */
		bool enabled;      /**< marking on (default on) */
		bool fecn;         /**< also set BTH FECN on RoCEv2 (off) */
		struct ibex_ecn_cfg cfg;
		int line;
		/** Keys the ecn statements gave (lib/conf private bits);
		 * the others follow the default curve of the port's rate.
		 * 0 with set: cfg was built by code, left as it is. */
		uint16_t given;
	} ecn[IBEX_VL_COUNT];

	/* Where each part was last set, for messages (0 = never). A check
	 * that involves several statements names the last of them. */
	int dev_line;              /**< dev */
	int vls_line;              /**< vls */
	int class_line;            /**< sl-from, pcp2sl, dscp2sl, sl */
	int sl2vl_line;
	int vlarb_line;
	int fc_mode_line;          /**< fc */
	int pfc_line;              /**< pfc statements */
	int cbfc_line;             /**< cbfc statements */
	int cbfc_pool_line[IBEX_CBFC_MAX_POOLS];       /**< cbfc .. pool n */
	int cbfc_profile_line[IBEX_CBFC_MAX_PROFILES]; /**< .. profile n */
	int cbfc_vc_line[IBEX_VL_COUNT];                /**< .. vc v */
	int lane_line[IBEX_VL_COUNT]; /**< lane <port> vl v */
	int touch_line;            /**< last statement naming the port */
	/** SLs an sl2vl statement named; the others follow the default of
	 * nb_vls. 0 with sl2vl_set: the whole table was built by code. */
	uint16_t sl2vl_given;
	/** Parts a vlarb statement gave (IBEX_CONF_VLARB_*); the others
	 * follow the default of nb_vls. 0 with vlarb_set: built by code. */
	uint8_t vlarb_given;
};

/** Parts of struct ibex_conf_port::vlarb_given. */
#define IBEX_CONF_VLARB_HIGH   1u
#define IBEX_CONF_VLARB_LOW    2u
#define IBEX_CONF_VLARB_LIMIT  4u
#define IBEX_CONF_VLARB_STRICT 8u

struct ibex_conf_fdb_static {
	uint8_t mac[6];
	uint16_t vid;
	/** index into ibex_conf.ports, or IBEX_EGRESS_ECMP | index into
	 * ibex_conf.ecmp (`fdb static MAC ecmp NAME`) */
	uint16_t port;
	int line;
};

/** `ecmp NAME ports P,P,...`: a group of equal-cost egress ports. */
struct ibex_conf_ecmp {
	char name[IBEX_NAME_LEN];
	uint16_t n;
	uint16_t ports[IBEX_ECMP_MAX_MEMBERS]; /**< indices into ibex_conf.ports */
	uint8_t mode;              /**< enum ibex_ecmp_mode: `adaptive packet|flowlet` */
	uint32_t flowlet_us;       /**< flowlet gap (IBEX_CONF_FLOWLET_US) */
	int line;
};

/** Flowlet gap of `adaptive flowlet` without one, microseconds. */
#define IBEX_CONF_FLOWLET_US 20

/** `aggregation job` defaults: slot indices, elements a packet. */
#define IBEX_CONF_AGG_SLOTS 64
#define IBEX_CONF_AGG_ELEMENTS 256

/** `aggregation job ID children P,P,... parent P|root ...`: this switch's
 * part in one in-network all-reduce tree (docs/aggregation.md). Child k
 * is the k-th port listed: its contributions must come in on that port
 * and its results go out on it. A port may be listed twice (two children
 * behind one link). */
struct ibex_conf_agg_job {
	uint32_t id;
	uint16_t n_children;
	uint16_t children[IBEX_AGG_MAX_CHILDREN]; /**< port indices */
	uint16_t parent;           /**< port to the parent; IBEX_PORT_NONE: root */
	uint16_t up_child;         /**< this switch's child index at its parent */
	uint16_t slots;            /**< slot indices (IBEX_CONF_AGG_SLOTS) */
	uint16_t elements;         /**< elements a packet at most */
	int line;
};

/** Most keys of the `switch` and `fdb` statements (their lines are kept). */
#define IBEX_CONF_GLOBAL_KEYS 24

struct ibex_conf {
	/* switch */
	uint16_t nb_workers;       /**< 0 = one per worker lcore given to EAL */
	uint16_t burst;            /**< RX/TX burst, 1..256 (default 32) */
	uint32_t tx_drain_us;      /**< 0 = flush TX every iteration */
	uint32_t mbufs;            /**< mbuf pool size (default 16384) */
	int mbufs_line;            /**< `switch mbufs` given there; 0: sized
					from the config (docs/configuration.md) */
	uint32_t mbuf_size;        /**< data room of an mbuf, bytes (2048) */
	uint32_t vl15_rate_pps;    /**< management frames per ingress port (1000) */
	/* shared buffer (docs/flow-control.md) */
	uint32_t buffer_blocks;    /**< total (8 MB) */
	int8_t buffer_alpha_log2;  /**< dynamic threshold (-3: 1/8) */
	/* control plane */
	char ctl_socket[108];      /**< unix socket path ("" = none) */
	/* ports */
	uint16_t nb_ports;
	struct ibex_conf_port ports[IBEX_MAX_PORTS];
	/* fdb */
	uint32_t fdb_max_entries;  /**< default 65536 */
	uint32_t fdb_ageing_s;     /**< default 300; 0 = never */
	bool fdb_learning;         /**< default on */
	uint16_t nb_static;
	struct ibex_conf_fdb_static statics[IBEX_CONF_MAX_STATIC];
	/* ECMP groups, in the order they were first named */
	uint16_t nb_ecmp;
	struct ibex_conf_ecmp ecmp[IBEX_MAX_ECMP_GROUPS];
	uint32_t ecmp_seed;        /**< `switch ecmp-seed`: the flow hash's seed */
	/* in-network aggregation (docs/aggregation.md) */
	uint64_t agg_pool_bytes;   /**< `aggregation pool`: slot memory of each
					worker; 0 = no aggregation */
	int agg_pool_line;
	uint16_t nb_agg_jobs;
	struct ibex_conf_agg_job agg_jobs[IBEX_MAX_AGG_JOBS];
	/* where it came from */
	char origin[256];
	int buffer_line;           /**< last buffer statement */
	/** The line that last set each `switch` and `fdb` key (index: the
	 * grammar's key tables), for a restart-only one's message. */
	int switch_key_line[IBEX_CONF_GLOBAL_KEYS];
	int fdb_key_line[IBEX_CONF_GLOBAL_KEYS];
	/** ibex_conf_finish() completed and validated it, and no parse has
	 * changed it since (a change by code must finish it again): what the
	 * data path takes. */
	bool finished;
};

/** Fill @p c with the documented defaults and no ports. */
void ibex_conf_init(struct ibex_conf *c);

/**
 * ibex_conf_init() on memory already zero (calloc, rte_zmalloc): the
 * defaults alone, nothing else written, so the pages of the ports a
 * switch does not have (2.7 KB each, IBEX_MAX_PORTS of them) are never
 * touched and cost no resident memory (ibex-fabric: thousands of
 * switches in one process).
 */
void ibex_conf_init_zeroed(struct ibex_conf *c);

/**
 * What memcpy(@p dst, @p src, sizeof(*src)) gives, writing only the port
 * entries either has: a port is only ever added, its entry set whole, so
 * every conf's entries past its nb_ports are zero (ibex_conf_init(),
 * ibex_conf_init_zeroed()). @p dst is a conf, or zeroed memory.
 */
void ibex_conf_copy(struct ibex_conf *dst, const struct ibex_conf *src);

/**
 * Parse one statement (one line, without its newline) into @p c.
 * On error writes "origin:line: message" into @p err and returns -EINVAL;
 * @p c may then be partly changed, so parse into a scratch copy.
 */
int ibex_conf_parse_line(struct ibex_conf *c, const char *line,
			 const char *origin, int lineno,
			 char *err, size_t errlen);

/** Parse a whole text (many lines). Stops at the first error. */
int ibex_conf_parse_string(struct ibex_conf *c, const char *text,
			   const char *origin, char *err, size_t errlen);

/**
 * The first word of statement @p i of the grammar (0, 1, ...), in the
 * order of docs/configuration.md; NULL past the last. ibex-ctl knows its
 * commands by them.
 */
const char *ibex_conf_statement_name(unsigned int i);

/** Read and parse a file; origin is its path. -errno on I/O errors too. */
int ibex_conf_parse_file(struct ibex_conf *c, const char *path,
			 char *err, size_t errlen);

/** What ibex_conf_parse_file_stat() saw of the file itself. */
struct ibex_conf_file_stat {
	unsigned int lines;        /**< lines read */
	unsigned int statements;   /**< lines that held a statement */
	bool unterminated;         /**< the last line has no newline */
};

/**
 * ibex_conf_parse_file(), telling also how many lines held a statement
 * and whether the file ended with a newline (a file cut short while being
 * written does not): the reload checks of lib/ctl. A line with a NUL byte
 * is refused as "path:line: NUL byte ...". @p st may be NULL.
 */
int ibex_conf_parse_file_stat(struct ibex_conf *c, const char *path,
			      struct ibex_conf_file_stat *st,
			      char *err, size_t errlen);

/**
 * Check the object as a whole (references, limits, consistency), with
 * its tables as they are (a parse leaves them complete; ibex_conf_finish()
 * completes them first). Errors name the line of the offending statement.
 */
int ibex_conf_validate(const struct ibex_conf *c, char *err, size_t errlen);

/**
 * The one step between a configuration and its users, once per change:
 * complete every port's tables from its other keys (ibex_conf_port_tables():
 * SL->VL for its lanes, the default arbiter, ECN curves for its rate) and
 * validate the whole (ibex_conf_validate()). On success the object is
 * finished (struct ibex_conf::finished): the data path builds its tables
 * from it as it is, and `show` reads those tables; nothing downstream
 * completes or validates it again.
 * @return 0, or -EINVAL with "origin:line: message" in @p err.
 */
int ibex_conf_finish(struct ibex_conf *c, char *err, size_t errlen);

/**
 * Can a running data path of config @p a take finished config @p b live?
 * Not when ports are added, removed, renamed or moved, nor when a key the
 * key tables mark restart-only differs (docs/configuration.md lists them:
 * switch burst, mbufs, mbuf-size; fdb ageing, max-entries; buffer; port
 * dev, mtu, rx/tx-desc, rx-queues, rx-scatter, fc; lane lossless and
 * reserved; pfc headroom, cable-m, proc-ns, xoff, xon). `switch workers`
 * 0 means what runs: the data path compares that itself.
 * @return 0, or -ENOTSUP with the settings named in @p err.
 */
int ibex_conf_restart_check(const struct ibex_conf *a,
			    const struct ibex_conf *b, char *err,
			    size_t errlen);

/** Index of the port called @p name, or -1. */
int ibex_conf_port_find(const struct ibex_conf *c, const char *name);

/** Index of aggregation job @p id in c->agg_jobs, or -1. */
int ibex_conf_agg_find(const struct ibex_conf *c, uint32_t id);

/** Index of ECMP group @p name, or -1. */
int ibex_conf_ecmp_find(const struct ibex_conf *c, const char *name);

/** A static entry's egress (a port or IBEX_EGRESS_ECMP | group) as a port:
 * the port itself, or the group's first member. */
uint16_t ibex_conf_egress_port(const struct ibex_conf *c, uint16_t egress);

/** The name of an egress: the port's or the group's ("?" when unknown). */
const char *ibex_conf_egress_name(const struct ibex_conf *c, uint16_t egress);

/** Add a port with defaults (used when the file declares none).
 * @return its index or -ENOSPC / -EEXIST. */
int ibex_conf_port_add(struct ibex_conf *c, const char *name, const char *dev);

/**
 * What a port would carry differently after a change from @p a to @p b:
 * the settings that differ, compared as the data path uses them
 * (complete tables; not the lines or statements they came from). Their
 * names go to @p buf as a comma-separated list ("pvid, vlans, fc, ecn",
 * key and statement names of docs/configuration.md; may be NULL).
 * @return the number of differences, 0 when the port stays as it is.
 */
unsigned int ibex_conf_port_diff(const struct ibex_conf_port *a,
				 const struct ibex_conf_port *b,
				 char *buf, size_t len);

/**
 * Fill the tables a port left unset (SL->VL for its lane count, the default
 * arbiter, ECN curves for its rate); idempotent. Parsing and
 * ibex_conf_finish() call it for every port: users of a config need not.
 */
void ibex_conf_port_tables(struct ibex_conf_port *p);

/** VLAN membership test. */
static inline bool
ibex_conf_port_in_vlan(const struct ibex_conf_port *p, uint16_t vid)
{
	return (p->vlans[vid / 64] >> (vid % 64)) & 1;
}

/** The ethdev a port opens: its dev, or its name when dev is "". */
static inline const char *
ibex_conf_port_dev(const struct ibex_conf_port *p)
{
	return p->dev[0] != '\0' ? p->dev : p->name;
}

/* Rates and sizes of the grammar: ibex_parse_rate() and ibex_parse_size()
 * of ibex_units.h, the syntax every ibex tool shares. */

/**
 * Link rate of a port for flow control (PFC quanta, headroom): its speed,
 * else its shaper rate, else 25 Gb/s.
 */
uint64_t ibex_conf_port_rate_bps(const struct ibex_conf_port *p);

/**
 * Largest frame a port carries, bytes: its MTU (1500 when unset) plus
 * Ethernet header, one 802.1Q tag and FCS (22 bytes).
 */
uint32_t ibex_conf_port_frame_bytes(const struct ibex_conf_port *p);

/**
 * Longest frame a port takes in or sends out, bytes without FCS: its MTU
 * (IBEX_CONF_MTU_MAX when unset) plus IBEX_CONF_MTU_L2. Longer frames are
 * dropped as IBEX_R_MTU.
 */
uint32_t ibex_conf_port_frame_max(const struct ibex_conf_port *p);

/**
 * PFC headroom of each lossless VL of a port, blocks: pfc headroom SIZE,
 * or with headroom auto ibex_buf_headroom_blocks() at
 * ibex_conf_port_rate_bps() with cable-m, proc-ns and
 * ibex_conf_port_frame_bytes(). 0 unless the port runs fc pfc.
 */
uint32_t ibex_conf_port_headroom_blocks(const struct ibex_conf_port *p);

/** `credit <port> window auto`. */
#define IBEX_CONF_CREDIT_WINDOW_AUTO UINT32_MAX

struct ibex_cbfc_conf;
/**
 * The CBFC configuration of a port with `fc cbfc` (docs/cbfc.md): SAI's
 * attributes from its `cbfc` statements, a VC per lane (VC v is VL v),
 * the lossless lanes lossless at both ends, and per VC the sender's
 * limit: `cbfc limit`, or auto, what the lane's reserved share holds of
 * the frames its credits may stand for (the peer configured alike).
 * @return 0, or -EINVAL with the reason in @p err
 * (ibex_cbfc_conf_check()).
 */
int ibex_conf_port_cbfc(const struct ibex_conf_port *p,
			struct ibex_cbfc_conf *c, char *err, size_t errlen);

/**
 * Reserved share of lane @p v of a port, blocks: on a credit port's
 * lossless lane with `credit window`, the window (window auto:
 * ibex_credit_window_blocks() at credit rate, else
 * ibex_conf_port_rate_bps(), with delay-ns, min-gap-ns and
 * ibex_conf_port_frame_bytes()); else the lane's `reserved`.
 */
uint32_t ibex_conf_lane_reserved_blocks(const struct ibex_conf_port *p,
					unsigned int v);

/**
 * Blocks one buffer slice may hold on the lossless lanes of a port, which
 * no frame may be dropped from: each lossless lane below its VL count its
 * reserved share plus its headroom (ibex_conf_port_headroom_blocks()). A
 * frame costs at least one block, so it is also the most frames, and
 * mbufs, those lanes may hold. 0 unless the port has flow control.
 */
uint64_t ibex_conf_port_lossless_blocks(const struct ibex_conf_port *p);

/** The cable a PFC port's headroom formula assumes unless told, and the
 * longest it takes (metres). */
#define IBEX_CONF_PFC_CABLE_M 10
#define IBEX_CONF_PFC_CABLE_M_MAX 100000

/**
 * Blocks the buffer layout of @p c carves off for reserved shares and
 * PFC headroom (what ibex_conf_validate() checks fits `buffer total`),
 * once the ports' tables are complete (ibex_conf_port_tables()); 0 for a
 * configuration it cannot lay out.
 */
uint64_t ibex_conf_buffer_carved_blocks(const struct ibex_conf *c);

/**
 * The buffer layout of a configuration: total and alpha from `buffer`,
 * per port its fc mode, lanes, lossless mask, per-VL reserved shares,
 * headroom (ibex_conf_port_headroom_blocks()), XOFF and XON gap.
 * Pure; the result goes to ibex_buf_init().
 * @return 0, or -EINVAL for more than IBEX_MAX_PORTS ports.
 */
int ibex_conf_buf_conf(const struct ibex_conf *c, struct ibex_buf_conf *b);

/**
 * PFC priority of a VL of a port: the lowest PCP whose SL (PCP table of
 * the port's classifier) maps to @p vl through its SL->VL table (the
 * table as ibex_conf_port_tables() completes it).
 * @return 0..7, or -1 when no PCP reaches @p vl.
 */
int ibex_conf_vl_prio(const struct ibex_conf_port *p, unsigned int vl);

#endif /* IBEX_CONF_H */
