/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibex configuration grammar.
 *
 * A statement is a keyword followed by words; most words come in
 * <key> <value> pairs. Statements are rows of conf_stmts and keys are rows
 * of the per-statement key tables below, each with its type, field and
 * range, so a new setting is one row here and one row in
 * docs/configuration.md (the doc lists keys in the same order as these
 * tables, which is also the order of the "expected one of" hints).
 *
 * Parsing is done on a copy of each statement's target (a port, a static
 * entry) that is stored only when the whole line parsed, so a bad line
 * leaves the object as it was before that line.
 *
 * Statements may come in any order once their port exists, and any of
 * them may be given again (live commands re-state them on a copy of the
 * running config). So tables that depend on other keys keep what was
 * given (sl2vl_given, vlarb_given, ecn[].given) and are completed from
 * the final lane count and rate by ibex_conf_port_tables() after each
 * parse; consistency between statements is checked only by
 * ibex_conf_validate(), which names the last statement involved.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_cbfc.h"
#include "ibex_conf.h"
#include "ibex_credit.h"
#include "ibex_pkt.h"

/* Separators: spaces and tabs; CR and the rest so CRLF files parse too. */
#define CONF_SEPS " \t\r\n\v\f"
/* A line of n characters holds at most (n + 1) / 2 words. */
#define CONF_MAX_TOKENS (IBEX_CONF_LINE_MAX / 2 + 1)
#define CONF_VID_MIN 1
#define CONF_VID_MAX 4094
#define CONF_KB UINT64_C(1024)
#define CONF_MB (UINT64_C(1024) * 1024)
#define CONF_GB (UINT64_C(1024) * 1024 * 1024)
/* Ethernet header, one 802.1Q tag and FCS around an MTU of payload. */
#define CONF_L2_OVERHEAD 22
/* Rate assumed for a port with neither speed nor shape. */
#define CONF_RATE_DEFAULT UINT64_C(25000000000)

/* Where we are, for messages: "origin:line: what: message". */
struct conf_ctx {
	struct ibex_conf *c;
	const char *origin;
	int lineno;          /* <= 0: not from a line (validate of built objects) */
	char *err;
	size_t errlen;
	char what[64];       /* "port p0", "fdb static", ... or "" */
	/* validate: the static entries seen so far by (mac, vid), the first
	 * of each key's index + 1 (0: free cell); NULL: compare each with
	 * every earlier one */
	uint16_t *static_cell;
	uint32_t static_cells; /* a power of two */
};

enum conf_type {
	CT_U32,      /* decimal integer in [min, max] */
	CT_POW2,     /* like CT_U32 and a power of two */
	CT_VLS,      /* operational VL count: 1, 2, 4, 8 or 15 */
	CT_BOOL,     /* on | off */
	CT_ENUM,     /* one of words[]; words[i] is stored as i */
	CT_RATE,     /* bit/s, see ibex_parse_rate() */
	CT_SIZE,     /* bytes, see ibex_parse_size(); range in bytes */
	CT_PROB,     /* probability 0..1 as a decimal, stored as double */
	CT_FLAG,     /* a word without value: stores min */
	CT_STRING,   /* copied, at most size - 1 characters */
	CT_VLANS,    /* VLAN list into a port's membership bitmap */
	CT_PORT,     /* name of a declared port, stored as its index */
	CT_CUSTOM,   /* parsed by the key's set function */
};

/* 0 in this field means "unset" and passes validation despite min. */
#define CK_ZERO_UNSET 1u
/* CT_SIZE: stored in 64-byte blocks, rounded up. */
#define CK_BLOCKS 2u
/* Restart-only: the running data path cannot take a change of it
 * (ibex_conf_restart_check()); docs/configuration.md says so too. */
#define CK_RESTART 4u
/* With CK_RESTART: 0 means "what runs", so only the data path can tell
 * whether a change is one (switch workers). */
#define CK_RUNNING 8u

/* Port line fields a port key sets when given (struct ibex_conf_port). */
#define CL_VL     1u   /* vl_line */
#define CL_VLS    2u   /* vls_line */
#define CL_CLASS  4u   /* class_line */
#define CL_FC     8u   /* fc_line */
#define CL_FCMODE 16u  /* fc_mode_line */
#define CL_DEV    32u  /* dev_line */

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off;                 /* field in the statement's target */
	size_t size;                /* field width, bytes */
	uint64_t min;
	uint64_t max;
	const char *const *words;   /* CT_ENUM */
	unsigned int flags;         /* CK_* */
	const char *word;           /* a word that stands for word_val */
	uint64_t word_val;
	unsigned int group;         /* keys of one group exclude each other */
	unsigned int lines;         /* CL_*: port lines set when given */
	/* CT_CUSTOM: parse val into obj, or return conf_err() */
	int (*set)(struct conf_ctx *x, const struct conf_key *k, void *obj,
		   const char *val);
};

#define FSIZE(T, f) sizeof(((T *)0)->f)
/* Extra designated initialisers (.word, .group, .lines ...) may follow. */
#define CK(n, t, T, f, lo, hi, fl, ...) \
	{ .name = n, .type = t, .off = offsetof(T, f), .size = FSIZE(T, f), \
	  .min = lo, .max = hi, .flags = fl, __VA_ARGS__ }
#define CK_ENUM(n, T, f, w, ...) \
	{ .name = n, .type = CT_ENUM, .off = offsetof(T, f), \
	  .size = FSIZE(T, f), .words = w, __VA_ARGS__ }
#define CK_FLAG(n, T, f, v, ...) \
	{ .name = n, .type = CT_FLAG, .off = offsetof(T, f), \
	  .size = FSIZE(T, f), .min = v, .max = v, __VA_ARGS__ }
#define CK_FN(n, T, f, fn, ...) \
	{ .name = n, .type = CT_CUSTOM, .off = offsetof(T, f), \
	  .size = FSIZE(T, f), .set = fn, __VA_ARGS__ }

static const char *const conf_on_off[] = { "off", "on", NULL };
/* enum ibex_rx_scatter */
static const char *const conf_scatter[] = { "auto", "on", "off", NULL };
static const char *const conf_down_up[] = { "down", "up", NULL };
/* enum ibex_sl_mode */
static const char *const conf_sl_modes[] = { "pcp", "dscp", NULL };
/* enum ibex_pfc_wd_action */
static const char *const conf_wd_actions[] = {
	"off", "alarm", "forward", "drop", NULL
};

static int set_alpha(struct conf_ctx *x, const struct conf_key *k, void *obj,
		     const char *val);
static int set_arb_table(struct conf_ctx *x, const struct conf_key *k,
			 void *obj, const char *val);
static int set_ecmp_ref(struct conf_ctx *x, const struct conf_key *k,
			void *obj, const char *val);

/* Target of port keys and of the statements that name a port. */
#define CONF_P struct ibex_conf_port

static const struct conf_key conf_switch_keys[] = {
	CK("workers", CT_U32, struct ibex_conf, nb_workers,
	   0, IBEX_MAX_WORKERS, CK_RESTART | CK_RUNNING),
	CK("burst", CT_U32, struct ibex_conf, burst, 1, 256, CK_RESTART),
	CK("tx-drain-us", CT_U32, struct ibex_conf, tx_drain_us, 0, 100000, 0),
	CK("mbufs", CT_U32, struct ibex_conf, mbufs, 1024, 4194304,
	   CK_RESTART),
	CK("vl15-rate", CT_U32, struct ibex_conf, vl15_rate_pps,
	   0, 10000000, 0),
	CK("ctl-socket", CT_STRING, struct ibex_conf, ctl_socket, 0, 0, 0,
	   .word = "none"),
	CK("mbuf-size", CT_SIZE, struct ibex_conf, mbuf_size, 2048, 60 * CONF_KB,
	   CK_RESTART),
	CK("ecmp-seed", CT_U32, struct ibex_conf, ecmp_seed, 0, UINT32_MAX, 0),
};

static const struct conf_key conf_port_keys[] = {
	CK("dev", CT_STRING, CONF_P, dev, 0, 0, CK_RESTART, .lines = CL_DEV),
	CK("pvid", CT_U32, CONF_P, pvid, CONF_VID_MIN, CONF_VID_MAX, 0),
	CK("vlans", CT_VLANS, CONF_P, vlans, 0, 0, 0),
	CK("speed", CT_RATE, CONF_P, speed_bps, 0, UINT64_MAX, 0),
	CK("mtu", CT_U32, CONF_P, mtu, 68, IBEX_CONF_MTU_MAX,
	   CK_ZERO_UNSET | CK_RESTART),
	CK("rx-desc", CT_POW2, CONF_P, rx_desc, 64, 16384, CK_RESTART),
	CK("tx-desc", CT_POW2, CONF_P, tx_desc, 64, 16384, CK_RESTART),
	CK("rx-queues", CT_U32, CONF_P, rx_queues, 1, 64,
	   CK_ZERO_UNSET | CK_RESTART),
	CK("trusted", CT_BOOL, CONF_P, trusted, 0, 1, 0),
	CK_ENUM("admin", CONF_P, admin_up, conf_down_up),
	CK("flood", CT_BOOL, CONF_P, flood, 0, 1, 0),
	CK("vls", CT_VLS, CONF_P, nb_vls, 1, IBEX_VL_DATA_MAX, 0,
	   .lines = CL_VL | CL_VLS),
	CK_ENUM("sl-from", CONF_P, sl_class.mode, conf_sl_modes,
		.lines = CL_VL | CL_CLASS),
	CK_ENUM("bpf-fallback", CONF_P, sl_class.mode, conf_sl_modes,
		.lines = CL_VL | CL_CLASS),
	CK("bpf-jit", CT_BOOL, CONF_P, bpf_jit, 0, 1, 0),
	CK("shape", CT_RATE, CONF_P, shape_bps, 0, UINT64_MAX, 0,
	   .word = "off", .lines = CL_VL),
	CK("vl-queue", CT_SIZE, CONF_P, vl_queue_blocks, IBEX_BLOCK_BYTES,
	   CONF_GB, CK_BLOCKS, .lines = CL_VL),
	CK_ENUM("fc", CONF_P, fc_mode, ibex_fc_mode_names,
		.lines = CL_FC | CL_FCMODE, .flags = CK_RESTART),
	CK_ENUM("rx-scatter", CONF_P, rx_scatter, conf_scatter,
		.flags = CK_RESTART),
	CK("lldp-to", CT_PORT, CONF_P, lldp_to, 0, 0, 0, .word = "none",
	   .word_val = IBEX_PORT_NONE),
	CK("stp-to", CT_PORT, CONF_P, stp_to, 0, 0, 0, .word = "none",
	   .word_val = IBEX_PORT_NONE),
};

static const struct conf_key conf_fdb_keys[] = {
	CK("ageing", CT_U32, struct ibex_conf, fdb_ageing_s, 0, 1000000,
	   CK_RESTART),
	CK("max-entries", CT_U32, struct ibex_conf, fdb_max_entries,
	   1, 16777216, CK_RESTART),
	CK("learning", CT_BOOL, struct ibex_conf, fdb_learning, 0, 1, 0),
};

static const struct conf_key conf_static_keys[] = {
	CK("port", CT_PORT, struct ibex_conf_fdb_static, port, 0, 0, 0,
	   .group = 1),
	CK_FN("ecmp", struct ibex_conf_fdb_static, port, set_ecmp_ref,
	      .group = 1),
	CK("vlan", CT_U32, struct ibex_conf_fdb_static, vid,
	   CONF_VID_MIN, CONF_VID_MAX, 0),
};

/* fdb del MAC vlan VID: only the vlan key, into a scratch entry. */
static const struct conf_key conf_del_keys[] = {
	CK("vlan", CT_U32, struct ibex_conf_fdb_static, vid,
	   CONF_VID_MIN, CONF_VID_MAX, 0),
};

static const struct conf_key conf_buffer_keys[] = {
	CK("total", CT_SIZE, struct ibex_conf, buffer_blocks,
	   64 * CONF_KB, 4 * CONF_GB, CK_BLOCKS | CK_RESTART),
	CK_FN("alpha", struct ibex_conf, buffer_alpha_log2, set_alpha,
	      .flags = CK_RESTART),
};

/* sl <port> default S */
static const struct conf_key conf_sl_keys[] = {
	CK("default", CT_U32, CONF_P,
	   sl_class.map[IBEX_SL_MAP_DEFAULT], 0, IBEX_SL_COUNT - 1, 0),
};

/* vlarb <port> ...: into a copy of the port's struct ibex_vlarb_conf.
 * Rows in the order of the IBEX_CONF_VLARB_* bits (strict and carry share
 * one), see vlarb_given_bits(). */
static const struct conf_key conf_vlarb_keys[] = {
	CK_FN("high", struct ibex_vlarb_conf, high, set_arb_table),
	CK_FN("low", struct ibex_vlarb_conf, low, set_arb_table),
	CK("limit", CT_U32, struct ibex_vlarb_conf, limit,
	   0, IBEX_VLARB_LIMIT_UNBOUNDED, 0,
	   .word = "unbounded", .word_val = IBEX_VLARB_LIMIT_UNBOUNDED),
	CK_FLAG("strict", struct ibex_vlarb_conf, strict, 1, .group = 1),
	CK_FLAG("carry", struct ibex_vlarb_conf, strict, 0, .group = 1),
};

/* lane <port> vl V ...: into a scratch lane, merged into the port. */
struct conf_lane {
	uint8_t lossless;
	uint32_t reserved_blocks;
};

static const struct conf_key conf_lane_keys[] = {
	CK_FLAG("lossless", struct conf_lane, lossless, 1, .group = 1,
		.flags = CK_RESTART),
	CK_FLAG("lossy", struct conf_lane, lossless, 0, .group = 1,
		.flags = CK_RESTART),
	CK("reserved", CT_SIZE, struct conf_lane, reserved_blocks,
	   0, CONF_GB, CK_BLOCKS | CK_RESTART),
};
#define LANE_K_LOSSLESS 0
#define LANE_K_LOSSY 1
#define LANE_K_RESERVED 2

static const struct conf_key conf_credit_keys[] = {
	CK("period-us", CT_U32, CONF_P, credit_period_us, 1, 1000000, 0),
	CK("min-gap-ns", CT_U32, CONF_P, credit_min_gap_ns,
	   0, 1000000000, 0),
	CK("window", CT_SIZE, CONF_P, credit_window_blocks, IBEX_BLOCK_BYTES,
	   (uint64_t)IBEX_CREDIT_WINDOW * IBEX_BLOCK_BYTES,
	   CK_BLOCKS | CK_ZERO_UNSET | CK_RESTART, .word = "auto",
	   .word_val = IBEX_CONF_CREDIT_WINDOW_AUTO),
	CK("delay-ns", CT_U32, CONF_P, credit_delay_ns, 0, 100000000,
	   CK_RESTART),
	CK("rate", CT_RATE, CONF_P, credit_rate_bps, 0, UINT64_MAX,
	   CK_RESTART),
};

static const struct conf_key conf_pfc_keys[] = {
	CK("headroom", CT_SIZE, CONF_P, pfc_headroom_blocks,
	   IBEX_BLOCK_BYTES, CONF_GB, CK_BLOCKS | CK_RESTART, .word = "auto"),
	CK("cable-m", CT_U32, CONF_P, pfc_cable_m, 0, IBEX_CONF_PFC_CABLE_M_MAX,
	   CK_RESTART),
	CK("proc-ns", CT_U32, CONF_P, pfc_proc_ns, 0, 100000000, CK_RESTART),
	CK("xoff", CT_SIZE, CONF_P, pfc_xoff_blocks,
	   IBEX_BLOCK_BYTES, CONF_GB, CK_BLOCKS | CK_RESTART, .word = "dynamic"),
	CK("xon", CT_SIZE, CONF_P, pfc_xon_gap_blocks, 0, CONF_GB,
	   CK_BLOCKS | CK_RESTART),
	CK("quanta", CT_U32, CONF_P, pfc_quanta, 1, IBEX_PFC_QUANTA_MAX, 0),
	CK("refresh-margin-us", CT_U32, CONF_P, pfc_refresh_margin_us,
	   0, 10000000, 0),
	CK_ENUM("watchdog", CONF_P, wd_action, conf_wd_actions),
	CK("detect-ms", CT_U32, CONF_P, wd_detect_ms, 1, 1000000, 0),
	CK("recover-ms", CT_U32, CONF_P, wd_recover_ms, 1, 1000000, 0),
	CK("hw", CT_BOOL, CONF_P, pfc_hw, 0, 1, 0),
};
/* trim <port> size SIZE [dscp D] [vl V] | off */
static const struct conf_key conf_trim_keys[] = {
	CK("size", CT_SIZE, CONF_P, trim_size, IBEX_TRIM_MIN, IBEX_TRIM_MAX, 0),
	CK("dscp", CT_U32, CONF_P, trim_dscp, 0, 63, 0),
	CK("vl", CT_U32, CONF_P, trim_vl, 0, IBEX_VL_DATA_MAX - 1, 0),
};

/* cbfc <port> ...: SAI's CBFC port attributes (docs/cbfc.md). The state
 * machines are built once, at start: every key is restart-only. */
static int set_cbfc_overhead(struct conf_ctx *x, const struct conf_key *k,
			     void *obj, const char *val);
static const struct conf_key conf_cbfc_keys[] = {
	CK("credit-size", CT_U32, CONF_P, cbfc_credit_size,
	   IBEX_CBFC_CREDIT_SIZE_MIN, IBEX_CBFC_CREDIT_SIZE_MAX, CK_RESTART),
	CK_FN("overhead", CONF_P, cbfc_overhead, set_cbfc_overhead,
	      .flags = CK_RESTART),
	CK("cc-timer-us", CT_U32, CONF_P, cbfc_cc_timer_us, 0,
	   IBEX_CBFC_CC_TIMER_US_MAX, CK_RESTART),
	CK("cf-min-spacing", CT_SIZE, CONF_P, cbfc_cf_min_spacing,
	   IBEX_CBFC_CF_MIN_SPACING_MIN, IBEX_CBFC_CF_MAX_SPACING_MAX,
	   CK_RESTART),
	CK("cf-max-spacing", CT_SIZE, CONF_P, cbfc_cf_max_spacing,
	   IBEX_CBFC_CF_MAX_SPACING_MIN, IBEX_CBFC_CF_MAX_SPACING_MAX,
	   CK_RESTART),
	CK("cf-refreshes", CT_U32, CONF_P, cbfc_cf_refreshes, 0, 255,
	   CK_RESTART),
	CK("limit", CT_U32, CONF_P, cbfc_limit, 1, IBEX_CBFC_MASK, CK_RESTART,
	   .word = "auto", .word_val = 0),
	CK("port-limit", CT_U32, CONF_P, cbfc_port_limit, 1, IBEX_CBFC_MASK,
	   CK_RESTART, .word = "none", .word_val = 0),
};

/* cbfc <port> pool N size CREDITS: SAI's credit pool (its size). */
struct conf_cbfc_pool {
	uint32_t size;
};

static const struct conf_key conf_cbfc_pool_keys[] = {
	CK("size", CT_U32, struct conf_cbfc_pool, size, 1, IBEX_CBFC_MASK,
	   CK_RESTART),
};

/* cbfc <port> profile N pool P|port [reserved R] [static T|dynamic N]:
 * SAI's credit profile, whole. Without static or dynamic the VC has its
 * reserved credits only. */
static int set_cbfc_pool_ref(struct conf_ctx *x, const struct conf_key *k,
			     void *obj, const char *val);
static int set_cbfc_dyn_th(struct conf_ctx *x, const struct conf_key *k,
			   void *obj, const char *val);
#define CONF_PF struct ibex_conf_cbfc_profile
static const struct conf_key conf_cbfc_profile_keys[] = {
	CK_FN("pool", CONF_PF, pool, set_cbfc_pool_ref, .flags = CK_RESTART),
	CK("reserved", CT_U32, CONF_PF, reserved, 0, IBEX_CBFC_MASK,
	   CK_RESTART),
	CK("static", CT_U32, CONF_PF, static_th, 0, IBEX_CBFC_MASK,
	   CK_RESTART, .group = 1),
	CK_FN("dynamic", CONF_PF, dyn_th, set_cbfc_dyn_th,
	      .flags = CK_RESTART, .group = 1),
};
#undef CONF_PF
#define CBFC_PF_K_POOL 0
#define CBFC_PF_K_STATIC 2
#define CBFC_PF_K_DYNAMIC 3

/* cbfc <port> vc V profile N|none: the VC's credit profile (lane V). */
static int set_cbfc_profile_ref(struct conf_ctx *x, const struct conf_key *k,
				void *obj, const char *val);
struct conf_cbfc_vc {
	uint8_t profile;    /* + 1; 0: none */
};

static const struct conf_key conf_cbfc_vc_keys[] = {
	CK_FN("profile", struct conf_cbfc_vc, profile, set_cbfc_profile_ref,
	      .flags = CK_RESTART),
};

#define PFC_K_HEADROOM 0
#define PFC_K_XOFF 3
#define PFC_K_XON 4

/* ecn <port> vl V|all ...: into a scratch struct ibex_conf_ecn, merged
 * into each lane it names; the bits of seen keys are kept in its given. */
static const struct conf_key conf_ecn_keys[] = {
	CK("kmin", CT_SIZE, struct ibex_conf_ecn, cfg.kmin, 0, UINT32_MAX, 0),
	CK("kmax", CT_SIZE, struct ibex_conf_ecn, cfg.kmax, 0, UINT32_MAX, 0),
	CK("pmax", CT_PROB, struct ibex_conf_ecn, cfg.pmax, 0, 0, 0),
	CK_FLAG("instant", struct ibex_conf_ecn, cfg.wq_log, 0, .group = 1),
	CK("ewma", CT_U32, struct ibex_conf_ecn, cfg.wq_log,
	   1, IBEX_ECN_WQ_MAX, 0, .group = 1),
	CK("fecn", CT_BOOL, struct ibex_conf_ecn, fecn, 0, 1, 0),
	CK_FLAG("on", struct ibex_conf_ecn, enabled, 1, .group = 2),
	CK_FLAG("off", struct ibex_conf_ecn, enabled, 0, .group = 2),
};

#define KEYS(t) t, IBEX_ARRAY_SIZE(t)

/* ---- messages ---- */

static int __attribute__((format(printf, 2, 3)))
conf_err(struct conf_ctx *x, const char *fmt, ...)
{
	char msg[512];
	char where[300];
	va_list ap;

	if (x->err == NULL || x->errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->lineno > 0)
		snprintf(where, sizeof(where), "%s:%d", x->origin, x->lineno);
	else
		snprintf(where, sizeof(where), "%s", x->origin);
	snprintf(x->err, x->errlen, "%s: %s%s%s", where, x->what,
		 x->what[0] != '\0' ? ": " : "", msg);
	return -EINVAL;
}

/* "a, b, c" from a key table, for "expected one of" hints. */
static const char *
conf_key_list(const struct conf_key *keys, size_t n, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i > 0 ? ", " : "", keys[i].name);
	return buf;
}

static const char *
conf_word_list(const char *const *words, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; words[i] != NULL && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i > 0 ? ", " : "", words[i]);
	return buf;
}

static void
conf_mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- scalar parsers ---- */

/* Decimal digits only (no sign, base prefix or blanks) in s[0..n). */
static int
conf_u64n(const char *s, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (r > (UINT64_MAX - d) / 10)
			return -ERANGE;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

static int
conf_u64(const char *s, uint64_t *v)
{
	return conf_u64n(s, strlen(s), v);
}

/* Bytes as the grammar writes them: "4KB" when whole, else "4100B". */
static const char *
conf_size_str(uint64_t bytes, char *buf, size_t len)
{
	return ibex_size_str(bytes, buf, len);
}

/* ---- key types ---- */

/* Value a key's field holds in grammar units: bytes for a block field. */
static uint64_t
conf_key_units(const struct conf_key *k, uint64_t v)
{
	return (k->flags & CK_BLOCKS) ? v * IBEX_BLOCK_BYTES : v;
}

static void
conf_store(void *obj, const struct conf_key *k, uint64_t v)
{
	uint8_t *p = (uint8_t *)obj + k->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (k->size) {
	case 1: memcpy(p, &v8, 1); break;
	case 2: memcpy(p, &v16, 2); break;
	case 4: memcpy(p, &v32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t
conf_load(const void *obj, const struct conf_key *k)
{
	const uint8_t *p = (const uint8_t *)obj + k->off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v;

	switch (k->size) {
	case 1: memcpy(&v8, p, 1); return v8;
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v, p, 8); return v;
	}
}

/* Range and power-of-two rules of an integer key; shared by the parser
 * and by validate, which rechecks objects built by code. @p v is in the
 * grammar's units (bytes for a size). */
static int
conf_check_uint(struct conf_ctx *x, const struct conf_key *k, uint64_t v,
		const char *shown)
{
	char lo[24], hi[24];

	if (k->type == CT_SIZE && (v < k->min || v > k->max))
		return conf_err(x, "%s: %s out of range %s..%s", k->name, shown,
				conf_size_str(k->min, lo, sizeof(lo)),
				conf_size_str(k->max, hi, sizeof(hi)));
	if (v < k->min || v > k->max)
		return conf_err(x, "%s: %s out of range %" PRIu64 "..%" PRIu64,
				k->name, shown, k->min, k->max);
	if (k->type == CT_POW2 && (v & (v - 1)) != 0)
		return conf_err(x, "%s: %s is not a power of two",
				k->name, shown);
	if (k->type == CT_VLS && !ibex_vls_valid((unsigned int)v))
		return conf_err(x, "%s: %s is not one of: 1, 2, 4, 8, 15",
				k->name, shown);
	return 0;
}

/* A key's special word (off, auto, dynamic, unbounded, none). */
static bool
conf_is_word(const struct conf_key *k, const char *val)
{
	return k->word != NULL && strcmp(k->word, val) == 0;
}

static int
set_uint(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	uint64_t v;
	int ret;

	if (conf_is_word(k, val)) {
		conf_store(obj, k, k->word_val);
		return 0;
	}
	ret = conf_u64(val, &v);
	if (ret == -EINVAL)
		return conf_err(x, "%s: '%s' is not a number", k->name, val);
	if (ret == -ERANGE)
		v = UINT64_MAX;
	ret = conf_check_uint(x, k, v, val);
	if (ret == 0)
		conf_store(obj, k, v);
	return ret;
}

static int
set_enum(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	const char *const *words = k->type == CT_BOOL ? conf_on_off : k->words;
	char list[128];
	size_t i;

	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], val) == 0) {
			conf_store(obj, k, i);
			return 0;
		}
	}
	return conf_err(x, "%s: '%s' is not one of: %s", k->name, val,
			conf_word_list(words, list, sizeof(list)));
}

static int
set_rate(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	uint64_t v;
	int ret;

	if (conf_is_word(k, val)) {
		conf_store(obj, k, k->word_val);
		return 0;
	}
	ret = ibex_parse_rate(val, &v);
	if (ret == -ERANGE)
		return conf_err(x, "%s: '%s' is too large", k->name, val);
	if (ret < 0)
		return conf_err(x, "%s: '%s' is not a rate (e.g. 25G, 100M, 1.5G)",
				k->name, val);
	ret = conf_check_uint(x, k, v, val);
	if (ret == 0)
		conf_store(obj, k, v);
	return ret;
}

/* Stored in blocks (rounded up) with CK_BLOCKS, else in bytes. */
static int
set_size(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	uint64_t v;
	int ret;

	if (conf_is_word(k, val)) {
		conf_store(obj, k, k->word_val);
		return 0;
	}
	ret = ibex_parse_size(val, &v);
	if (ret == -EINVAL)
		return conf_err(x, "%s: '%s' is not a size (e.g. 1500B, 4KB, "
				"1MB)", k->name, val);
	if (ret < 0)
		v = UINT64_MAX;
	ret = conf_check_uint(x, k, v, val);
	if (ret != 0)
		return ret;
	if (k->flags & CK_BLOCKS)
		v = (v + IBEX_BLOCK_BYTES - 1) / IBEX_BLOCK_BYTES;
	conf_store(obj, k, v);
	return 0;
}

/* A probability: "1", "0", "0.2", "0.015" (no sign, no exponent). The
 * range (above 0, at most 1) is the owner's to check, with its words. */
static int
set_prob(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	const char *p = val + strspn(val, "0123456789");
	const char *frac;
	bool ok = p != val;
	double d;

	if (ok && *p == '.') {
		frac = p + 1;
		p = frac + strspn(frac, "0123456789");
		ok = p != frac;
	}
	if (!ok || *p != '\0')
		return conf_err(x, "%s: '%s' is not a probability (e.g. 0.2)",
				k->name, val);
	d = strtod(val, NULL);
	if (d > 1.0)
		return conf_err(x, "%s: %s is above 1 (a probability, not a "
				"percentage)", k->name, val);
	memcpy((char *)obj + k->off, &d, sizeof(d));
	return 0;
}

static int
set_string(struct conf_ctx *x, const struct conf_key *k, void *obj,
	   const char *val)
{
	size_t n = strlen(val);

	if (conf_is_word(k, val)) {
		((char *)obj)[k->off] = '\0';
		return 0;
	}
	if (n >= k->size)
		return conf_err(x, "%s: '%s' is too long (max %zu characters)",
				k->name, val, k->size - 1);
	memcpy((char *)obj + k->off, val, n + 1);
	return 0;
}

/* One VLAN id of a list, s[0..n). */
static int
vlan_id(struct conf_ctx *x, const char *s, size_t n, uint64_t *vid)
{
	int ret = conf_u64n(s, n, vid);

	if (ret == -EINVAL)
		return conf_err(x, "vlans: '%.*s' is not a VLAN id", (int)n, s);
	if (ret < 0 || *vid < CONF_VID_MIN || *vid > CONF_VID_MAX)
		return conf_err(x, "vlans: %.*s out of range %d..%d", (int)n, s,
				CONF_VID_MIN, CONF_VID_MAX);
	return 0;
}

/* "N" or "N-M" of a list, s[0..n), into bitmap bm. */
static int
vlan_elem(struct conf_ctx *x, const char *s, size_t n, uint64_t *bm)
{
	const char *dash = memchr(s, '-', n);
	uint64_t lo, hi, v;
	int ret;

	if (n == 0)
		return conf_err(x, "vlans: empty element in list");
	if (dash == NULL)
		ret = vlan_id(x, s, n, &lo);
	else
		ret = vlan_id(x, s, dash - s, &lo);
	if (ret == 0 && dash != NULL)
		ret = vlan_id(x, dash + 1, n - (dash - s) - 1, &hi);
	else
		hi = lo;
	if (ret != 0)
		return ret;
	if (lo > hi)
		return conf_err(x, "vlans: range %.*s starts above its end",
				(int)n, s);
	for (v = lo; v <= hi; v++)
		bm[v / 64] |= UINT64_C(1) << (v % 64);
	return 0;
}

/* The list replaces the port's membership (overlaps are fine). */
static int
set_vlans(struct conf_ctx *x, const struct conf_key *k, void *obj,
	  const char *val)
{
	struct ibex_conf_port *p = obj;
	uint64_t bm[IBEX_VLAN_COUNT / 64] = { 0 };
	const char *s = val;
	const char *comma;
	int ret;

	(void)k;
	for (;;) {
		comma = strchr(s, ',');
		ret = vlan_elem(x, s, comma != NULL ? (size_t)(comma - s) :
				strlen(s), bm);
		if (ret != 0)
			return ret;
		if (comma == NULL)
			break;
		s = comma + 1;
	}
	memcpy(p->vlans, bm, sizeof(bm));
	p->vlans_set = true;
	return 0;
}

static int
set_port(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	int idx;

	if (conf_is_word(k, val)) {
		conf_store(obj, k, k->word_val);
		return 0;
	}
	idx = ibex_conf_port_find(x->c, val);
	if (idx < 0)
		return conf_err(x, "unknown port '%s'", val);
	conf_store(obj, k, (uint64_t)idx);
	return 0;
}

/* alpha 1/128 .. 1/2, 1, 2, 4, 8: stored as its log2, -7..3. */
static int
set_alpha(struct conf_ctx *x, const struct conf_key *k, void *obj,
	  const char *val)
{
	static const char *const alphas[] = {
		"1/128", "1/64", "1/32", "1/16", "1/8", "1/4", "1/2",
		"1", "2", "4", "8", NULL
	};
	char list[128];
	int8_t v;
	size_t i;

	for (i = 0; alphas[i] != NULL; i++) {
		if (strcmp(alphas[i], val) == 0) {
			v = (int8_t)((int)i - 7);
			memcpy((char *)obj + k->off, &v, 1);
			return 0;
		}
	}
	return conf_err(x, "%s: '%s' is not one of: %s", k->name, val,
			conf_word_list(alphas, list, sizeof(list)));
}

/* CBFC packet overhead: a signed byte count in SAI's range, -16..127. */
static int
set_cbfc_overhead(struct conf_ctx *x, const struct conf_key *k, void *obj,
		  const char *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' ||
	    v < IBEX_CBFC_OVERHEAD_MIN || v > IBEX_CBFC_OVERHEAD_MAX)
		return conf_err(x, "%s: '%s' is not a byte count in %d..%d",
				k->name, val, IBEX_CBFC_OVERHEAD_MIN,
				IBEX_CBFC_OVERHEAD_MAX);
	((struct ibex_conf_port *)obj)->cbfc_overhead = (int16_t)v;
	return 0;
}

/* A number in lo..hi of a cbfc sub-statement's key. */
static int
conf_cbfc_num(struct conf_ctx *x, const struct conf_key *k, const char *val,
	      long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' || *v < lo || *v > hi)
		return conf_err(x, "%s: '%s' is not a number in %ld..%ld",
				k->name, val, lo, hi);
	return 0;
}

/* A profile's pool: an index, or "port" (the port's credits as one). */
static int
set_cbfc_pool_ref(struct conf_ctx *x, const struct conf_key *k, void *obj,
		  const char *val)
{
	long v;

	if (strcmp(val, "port") == 0) {
		conf_store(obj, k, IBEX_CBFC_PORT_POOL);
		return 0;
	}
	if (conf_cbfc_num(x, k, val, 0, IBEX_CBFC_MAX_POOLS - 1, &v) != 0)
		return conf_err(x, "%s: '%s' is not a pool (0..%u or port)",
				k->name, val, IBEX_CBFC_MAX_POOLS - 1);
	conf_store(obj, k, (uint64_t)v);
	return 0;
}

/* Dynamic threshold: n of 2^n x the pool's free credits. */
static int
set_cbfc_dyn_th(struct conf_ctx *x, const struct conf_key *k, void *obj,
		const char *val)
{
	long v;
	int8_t n;

	if (conf_cbfc_num(x, k, val, IBEX_CBFC_DYN_TH_MIN, IBEX_CBFC_DYN_TH_MAX,
			  &v) != 0)
		return -EINVAL;
	n = (int8_t)v;
	memcpy((char *)obj + k->off, &n, 1);
	return 0;
}

/* A VC's profile, stored + 1 (0: none, so a zeroed port has none). */
static int
set_cbfc_profile_ref(struct conf_ctx *x, const struct conf_key *k, void *obj,
		     const char *val)
{
	long v;

	if (strcmp(val, "none") == 0) {
		conf_store(obj, k, 0);
		return 0;
	}
	if (conf_cbfc_num(x, k, val, 0, IBEX_CBFC_MAX_PROFILES - 1, &v) != 0)
		return conf_err(x, "%s: '%s' is not a profile (0..%u or none)",
				k->name, val, IBEX_CBFC_MAX_PROFILES - 1);
	conf_store(obj, k, (uint64_t)v + 1);
	return 0;
}

/* One number of a list element, s[0..n), in 0..max. */
static int
conf_list_num(struct conf_ctx *x, const char *what, const char *s, size_t n,
	      uint64_t max, uint64_t *v)
{
	int ret = conf_u64n(s, n, v);

	if (ret == -EINVAL)
		return conf_err(x, "%s '%.*s' is not a number", what, (int)n, s);
	if (ret < 0 || *v > max)
		return conf_err(x, "%s %.*s out of range 0..%" PRIu64, what,
				(int)n, s, max);
	return 0;
}

/* A list of "A[-A]:B" elements (a map: pcp2sl, dscp2sl, sl2vl) or
 * "A:B" (an ordered table: vlarb). */
struct conf_list {
	const char *a_name;     /* "PCP", "DSCP", "SL", "VL" */
	const char *b_name;     /* "SL", "VL", "weight" */
	uint64_t a_max;
	uint64_t b_max;
	const char *b_word;     /* a word for b (sl2vl: drop), or NULL */
	uint64_t b_word_val;
	bool ranges;            /* A-A allowed */
};

struct conf_elem {
	uint8_t a_lo, a_hi, b;
};

/* "A[-A]:B" of s[0..n). */
static int
conf_list_elem(struct conf_ctx *x, const struct conf_list *l, const char *s,
	       size_t n, struct conf_elem *e)
{
	const char *colon = memchr(s, ':', n);
	const char *dash;
	uint64_t lo, hi, b;
	size_t na;
	int ret;

	if (n == 0)
		return conf_err(x, "empty element in list");
	if (colon == NULL)
		return conf_err(x, "'%.*s' is not %s:%s", (int)n, s, l->a_name,
				l->b_name);
	na = colon - s;
	dash = l->ranges ? memchr(s, '-', na) : NULL;
	if (dash == NULL) {
		ret = conf_list_num(x, l->a_name, s, na, l->a_max, &lo);
		hi = lo;
	} else {
		ret = conf_list_num(x, l->a_name, s, dash - s, l->a_max, &lo);
		if (ret == 0)
			ret = conf_list_num(x, l->a_name, dash + 1,
					    colon - dash - 1, l->a_max, &hi);
		if (ret == 0 && lo > hi)
			return conf_err(x, "range %.*s starts above its end",
					(int)na, s);
	}
	if (ret != 0)
		return ret;
	s = colon + 1;
	n -= na + 1;
	if (l->b_word != NULL && strlen(l->b_word) == n &&
	    memcmp(l->b_word, s, n) == 0)
		b = l->b_word_val;
	else if ((ret = conf_list_num(x, l->b_name, s, n, l->b_max, &b)) != 0)
		return ret;
	e->a_lo = (uint8_t)lo;
	e->a_hi = (uint8_t)hi;
	e->b = (uint8_t)b;
	return 0;
}

/* Comma-separated elements of the words tok[0..ntok) into e[], at most
 * max of them. @return the count, or a conf_err(). */
static int
conf_list_parse(struct conf_ctx *x, const struct conf_list *l, char **tok,
		int ntok, struct conf_elem *e, unsigned int max)
{
	unsigned int n = 0;
	const char *s, *comma;
	int i, ret;

	for (i = 0; i < ntok; i++) {
		for (s = tok[i];; s = comma + 1) {
			comma = strchr(s, ',');
			if (n == max)
				return conf_err(x, "more than %u entries", max);
			ret = conf_list_elem(x, l, s, comma != NULL ?
					     (size_t)(comma - s) : strlen(s),
					     &e[n]);
			if (ret != 0)
				return ret;
			n++;
			if (comma == NULL)
				break;
		}
	}
	return (int)n;
}

static const struct conf_list conf_arb_list = {
	.a_name = "VL", .b_name = "weight",
	.a_max = IBEX_VL_DATA_MAX - 1, .b_max = 255,
};

/* vlarb high|low V:W,...: replaces that table; "none" empties it. */
static int
set_arb_table(struct conf_ctx *x, const struct conf_key *k, void *obj,
	      const char *val)
{
	struct ibex_vlarb_conf *a = obj;
	bool high = k->off == offsetof(struct ibex_vlarb_conf, high);
	struct ibex_vlarb_entry *t = high ? a->high : a->low;
	struct conf_elem e[IBEX_VLARB_MAX_ENTRIES];
	char *tok = (char *)(uintptr_t)val;
	char what[sizeof(x->what)];
	int n, i;

	if (strcmp(val, "none") == 0) {
		n = 0;
	} else {
		memcpy(what, x->what, sizeof(what));
		snprintf(x->what, sizeof(x->what), "%.40s: %s", what, k->name);
		n = conf_list_parse(x, &conf_arb_list, &tok, 1, e,
				    IBEX_VLARB_MAX_ENTRIES);
		memcpy(x->what, what, sizeof(what));
		if (n < 0)
			return n;
	}
	for (i = 0; i < n; i++) {
		t[i].vl = e[i].a_lo;
		t[i].weight = e[i].b;
	}
	if (high)
		a->nb_high = (uint8_t)n;
	else
		a->nb_low = (uint8_t)n;
	return 0;
}

static int
conf_set(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	switch (k->type) {
	case CT_U32:
	case CT_POW2:
	case CT_VLS:
		return set_uint(x, k, obj, val);
	case CT_BOOL:
	case CT_ENUM:
		return set_enum(x, k, obj, val);
	case CT_RATE:
		return set_rate(x, k, obj, val);
	case CT_SIZE:
		return set_size(x, k, obj, val);
	case CT_PROB:
		return set_prob(x, k, obj, val);
	case CT_FLAG:
		conf_store(obj, k, k->min);
		return 0;
	case CT_STRING:
		return set_string(x, k, obj, val);
	case CT_VLANS:
		return set_vlans(x, k, obj, val);
	case CT_PORT:
		return set_port(x, k, obj, val);
	case CT_CUSTOM:
		return k->set(x, k, obj, val);
	}
	return -EINVAL;
}

static const struct conf_key *
conf_key_find(const struct conf_key *keys, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* <key> <value> pairs (and value-less flags) of tok[0..ntok) into obj. A
 * key may appear once per statement, and of the keys of one group only
 * one; a later statement may set it again. Bit i of *seen (may be NULL)
 * tells that keys[i] was given. */
static int
conf_keys(struct conf_ctx *x, const struct conf_key *keys, size_t nkeys,
	  void *obj, char **tok, int ntok, uint64_t *seen_out)
{
	const struct conf_key *k;
	uint64_t seen = 0;
	char list[512];
	size_t j;
	int i, ret;

	if (seen_out != NULL)
		*seen_out = 0;

	for (i = 0; i < ntok; i++) {
		k = conf_key_find(keys, nkeys, tok[i]);
		if (k == NULL)
			return conf_err(x, "unknown key '%s' (expected one of: %s)",
					tok[i], conf_key_list(keys, nkeys, list,
							      sizeof(list)));
		if (seen & (UINT64_C(1) << (k - keys)))
			return conf_err(x, "duplicate key '%s'", k->name);
		for (j = 0; k->group != 0 && j < nkeys; j++)
			if (keys[j].group == k->group &&
			    (seen & (UINT64_C(1) << j)))
				return conf_err(x, "'%s' and '%s' exclude each "
						"other", keys[j].name, k->name);
		seen |= UINT64_C(1) << (k - keys);
		if (k->type == CT_FLAG) {
			conf_store(obj, k, k->min);
			continue;
		}
		if (i + 1 >= ntok)
			return conf_err(x, "missing value for '%s'", k->name);
		ret = conf_set(x, k, obj, tok[++i]);
		if (ret != 0)
			return ret;
	}
	if (seen_out != NULL)
		*seen_out = seen;
	return 0;
}

/* Copy the fields of the keys in @p seen from src to dst (same type). */
static void
conf_merge(const struct conf_key *keys, size_t nkeys, uint64_t seen,
	   void *dst, const void *src)
{
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (seen & (UINT64_C(1) << i))
			memcpy((char *)dst + keys[i].off,
			       (const char *)src + keys[i].off, keys[i].size);
}

/* ---- ports ---- */

static bool
conf_name_ok(const char *s)
{
	size_t n = strlen(s);
	size_t i;

	if (n == 0 || n >= IBEX_NAME_LEN)
		return false;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      ch == '-'))
			return false;
	}
	return true;
}

/* Without a vlans key a port is a member of its pvid only, whatever the
 * pvid became. */
static void
conf_port_fixup(struct ibex_conf_port *p)
{
	if (p->vlans_set)
		return;
	memset(p->vlans, 0, sizeof(p->vlans));
	p->vlans[p->pvid / 64] |= UINT64_C(1) << (p->pvid % 64);
}

/* Lanes, flow control and ECN as docs/virtual-lanes.md, flow-control.md
 * and ecn.md give them. Tables that depend on other keys (SL->VL on the
 * lane count, the arbiter, ECN on the rate) are filled when not set. */
static void
conf_port_lane_defaults(struct ibex_conf_port *p)
{
	unsigned int v;

	p->nb_vls = 8;
	ibex_sl_class_init(&p->sl_class, IBEX_SL_FROM_PCP);
	p->bpf_jit = true;
	p->vl_queue_blocks = 1024;
	p->fc_mode = IBEX_FC_NONE;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		p->reserved_blocks[v] = 4096 / 64;
		p->ecn[v].enabled = true;
	}
	p->credit_period_us = 50;
	p->credit_min_gap_ns = 2000;
	p->credit_delay_ns = 2050;
	p->pfc_headroom_auto = true;
	p->pfc_cable_m = IBEX_CONF_PFC_CABLE_M;
	p->pfc_proc_ns = 2000;
	p->pfc_xon_gap_blocks = 3072 / 64;
	p->pfc_quanta = 65535;
	p->wd_action = IBEX_PFC_WD_DROP;
	p->wd_detect_ms = 200;
	p->wd_recover_ms = 200;
	p->cbfc_credit_size = IBEX_CBFC_CREDIT_SIZE_DEF;
	p->cbfc_cc_timer_us = IBEX_CBFC_CC_TIMER_US_DEF;
	p->cbfc_cf_min_spacing = IBEX_CBFC_CF_MIN_SPACING_DEF;
	p->cbfc_cf_max_spacing = IBEX_CBFC_CF_MAX_SPACING_DEF;
	p->cbfc_cf_refreshes = IBEX_CBFC_CF_REFRESHES_SHIM;
}

/* Rate of the egress lanes, for ECN curves: the shaper, else the speed. */
static uint64_t
conf_port_egress_bps(const struct ibex_conf_port *p)
{
	return p->shape_bps != 0 ? p->shape_bps :
	       p->speed_bps != 0 ? p->speed_bps : CONF_RATE_DEFAULT;
}

uint64_t
ibex_conf_port_rate_bps(const struct ibex_conf_port *p)
{
	return p->speed_bps != 0 ? p->speed_bps :
	       p->shape_bps != 0 ? p->shape_bps : CONF_RATE_DEFAULT;
}

uint32_t
ibex_conf_port_frame_max(const struct ibex_conf_port *p)
{
	return (p->mtu != 0 ? p->mtu : IBEX_CONF_MTU_MAX) + IBEX_CONF_MTU_L2;
}

uint32_t
ibex_conf_port_frame_bytes(const struct ibex_conf_port *p)
{
	return (p->mtu != 0 ? p->mtu : 1500) + CONF_L2_OVERHEAD;
}

/* The SL->VL table a port runs: the entries sl2vl statements gave over
 * the default of its lane count, so that vls may come later. */
static void
conf_port_sl2vl(const struct ibex_conf_port *p, struct ibex_sl2vl *t)
{
	unsigned int s;

	*t = p->sl2vl;
	if (p->sl2vl_set && p->sl2vl_given == 0)
		return;
	ibex_sl2vl_default(t, p->nb_vls);
	if (!p->sl2vl_set)
		return;
	for (s = 0; s < IBEX_SL_COUNT; s++)
		if (p->sl2vl_given >> s & 1)
			t->vl[s] = p->sl2vl.vl[s];
}

/* The arbiter likewise: parts vlarb statements gave over the default. */
static void
conf_port_vlarb(const struct ibex_conf_port *p, struct ibex_vlarb_conf *a)
{
	const struct ibex_vlarb_conf *g = &p->vlarb;
	uint8_t given = p->vlarb_given;

	*a = *g;
	if ((p->vlarb_set && given == 0) ||
	    ibex_vlarb_conf_default(a, p->nb_vls) != 0 || !p->vlarb_set)
		return;
	if (given & IBEX_CONF_VLARB_HIGH) {
		a->nb_high = g->nb_high;
		memcpy(a->high, g->high, sizeof(a->high));
	}
	if (given & IBEX_CONF_VLARB_LOW) {
		a->nb_low = g->nb_low;
		memcpy(a->low, g->low, sizeof(a->low));
	}
	if (given & IBEX_CONF_VLARB_LIMIT)
		a->limit = g->limit;
	if (given & IBEX_CONF_VLARB_STRICT)
		a->strict = g->strict;
}

/* ECN of one lane: keys ecn statements gave over the default curve of
 * the egress rate, which may be set later than the ecn statement. */
static void
conf_port_ecn(const struct ibex_conf_port *p, unsigned int v,
	      struct ibex_conf_ecn *e)
{
	const struct ibex_conf_ecn *g = &p->ecn[v];
	uint64_t rate = conf_port_egress_bps(p);

	*e = *g;
	if (g->set && g->given == 0) {
		if (e->cfg.rate_bps == 0)
			e->cfg.rate_bps = rate;
		return;
	}
	ibex_ecn_cfg_default(&e->cfg, rate);
	if (g->set)
		conf_merge(KEYS(conf_ecn_keys), g->given, e, g);
}

/* Fill the tables a port did not set from its other keys: call after
 * parsing, before use (ibex_conf_validate() checks the result). */
void
ibex_conf_port_tables(struct ibex_conf_port *p)
{
	struct ibex_vlarb_conf a;
	struct ibex_conf_ecn e;
	struct ibex_sl2vl t;
	unsigned int v;

	conf_port_sl2vl(p, &t);
	p->sl2vl = t;
	conf_port_vlarb(p, &a);
	p->vlarb = a;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		conf_port_ecn(p, v, &e);
		p->ecn[v] = e;
	}
}

int
ibex_conf_vl_prio(const struct ibex_conf_port *p, unsigned int vl)
{
	struct ibex_sl2vl t;
	unsigned int pcp;

	if (p == NULL || vl >= IBEX_VL_DATA_MAX)
		return -1;
	conf_port_sl2vl(p, &t);
	for (pcp = 0; pcp < IBEX_PFC_PRIOS; pcp++)
		if (ibex_sl2vl(&t, p->sl_class.map[IBEX_SL_MAP_PCP + pcp]) ==
		    vl)
			return (int)pcp;
	return -1;
}

uint32_t
ibex_conf_port_headroom_blocks(const struct ibex_conf_port *p)
{
	if (p->fc_mode != IBEX_FC_PFC)
		return 0;
	if (!p->pfc_headroom_auto)
		return p->pfc_headroom_blocks;
	return ibex_buf_headroom_blocks(ibex_conf_port_rate_bps(p) / 1000000,
					p->pfc_cable_m, p->pfc_proc_ns,
					ibex_conf_port_frame_bytes(p));
}

uint32_t
ibex_conf_lane_reserved_blocks(const struct ibex_conf_port *p, unsigned int v)
{
	uint64_t rate;

	if (v >= IBEX_VL_COUNT)
		return 0;
	if ((p->fc_mode != IBEX_FC_CREDIT && p->fc_mode != IBEX_FC_CBFC) ||
	    !(p->lossless_mask >> v & 1) || p->credit_window_blocks == 0)
		return p->reserved_blocks[v];
	if (p->credit_window_blocks != IBEX_CONF_CREDIT_WINDOW_AUTO)
		return p->credit_window_blocks;
	rate = p->credit_rate_bps != 0 ? p->credit_rate_bps :
	       ibex_conf_port_rate_bps(p);
	return ibex_credit_window_blocks(rate / 1000000, p->credit_delay_ns,
					 p->credit_min_gap_ns,
					 ibex_conf_port_frame_bytes(p), NULL);
}

uint64_t
ibex_conf_port_lossless_blocks(const struct ibex_conf_port *p)
{
	unsigned int v, n = p->nb_vls != 0 ? p->nb_vls : IBEX_BUF_MAX_VLS;
	uint64_t sum = 0;

	if (p->fc_mode == IBEX_FC_NONE)
		return 0;
	for (v = 0; v < n && v < IBEX_BUF_MAX_VLS && v < IBEX_VL_COUNT; v++)
		if (p->lossless_mask >> v & 1)
			sum += (uint64_t)ibex_conf_lane_reserved_blocks(p, v) +
			       ibex_conf_port_headroom_blocks(p);
	return sum;
}

int
ibex_conf_buf_conf(const struct ibex_conf *c, struct ibex_buf_conf *b)
{
	unsigned int i, v;

	if (c == NULL || b == NULL || c->nb_ports > IBEX_MAX_PORTS)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->total_blocks = c->buffer_blocks;
	b->alpha_log2 = c->buffer_alpha_log2;
	b->n_ports = (uint8_t)c->nb_ports;
	for (i = 0; i < c->nb_ports; i++) {
		const struct ibex_conf_port *p = &c->ports[i];
		struct ibex_buf_port_conf *pc = &b->port[i];

		pc->mode = p->fc_mode;
		pc->n_vls = p->nb_vls;
		pc->lossless_mask = p->lossless_mask;
		/* one value for readers of the uniform field; lanes use
		 * their own */
		pc->reserved_blocks = ibex_conf_lane_reserved_blocks(p, 0);
		pc->reserved_per_vl = true;
		for (v = 0; v < IBEX_BUF_MAX_VLS && v < IBEX_VL_COUNT; v++)
			pc->reserved_vl[v] =
				ibex_conf_lane_reserved_blocks(p, v);
		pc->headroom_blocks = ibex_conf_port_headroom_blocks(p);
		pc->xoff_blocks = p->pfc_xoff_blocks;
		pc->xon_gap_blocks = p->pfc_xon_gap_blocks;
	}
	return 0;
}

/* Caller checked the lengths of name and dev. */
static void
conf_port_defaults(struct ibex_conf_port *p, const char *name,
		   const char *dev, int line)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->name, name, strlen(name) + 1);
	if (dev == NULL || dev[0] == '\0')
		dev = name;
	memcpy(p->dev, dev, strlen(dev) + 1);
	p->pvid = 1;
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->admin_up = true;
	p->flood = true;
	p->lldp_to = IBEX_PORT_NONE;
	p->stp_to = IBEX_PORT_NONE;
	p->line = line;
	p->dev_line = line;
	p->touch_line = line;
	conf_port_lane_defaults(p);
	conf_port_fixup(p);
}

int
ibex_conf_port_find(const struct ibex_conf *c, const char *name)
{
	uint16_t i;

	for (i = 0; i < c->nb_ports; i++)
		if (strcmp(c->ports[i].name, name) == 0)
			return i;
	return -1;
}

int
ibex_conf_port_add(struct ibex_conf *c, const char *name, const char *dev)
{
	if (c == NULL || name == NULL || !conf_name_ok(name) ||
	    (dev != NULL && strlen(dev) >= IBEX_DEV_LEN))
		return -EINVAL;
	if (ibex_conf_port_find(c, name) >= 0)
		return -EEXIST;
	if (c->nb_ports >= IBEX_MAX_PORTS)
		return -ENOSPC;
	conf_port_defaults(&c->ports[c->nb_ports], name, dev, 0);
	ibex_conf_port_tables(&c->ports[c->nb_ports]);
	c->finished = false;
	return c->nb_ports++;
}

/* Line fields of the CL_* bits of the keys in @p seen. */
static void
conf_port_mark(struct ibex_conf_port *p, const struct conf_key *keys,
	       size_t nkeys, uint64_t seen, int lineno)
{
	unsigned int lines = 0;
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (seen & (UINT64_C(1) << i))
			lines |= keys[i].lines;
	if (lines & CL_VL)
		p->vl_line = lineno;
	if (lines & CL_VLS)
		p->vls_line = lineno;
	if (lines & CL_CLASS)
		p->class_line = lineno;
	if (lines & CL_FC)
		p->fc_line = lineno;
	if (lines & CL_FCMODE)
		p->fc_mode_line = lineno;
	if (lines & CL_DEV)
		p->dev_line = lineno;
	p->touch_line = lineno;
}

/* ---- statements ---- */

static int
conf_missing(struct conf_ctx *x, const struct conf_key *keys, size_t n)
{
	char list[512];

	return conf_err(x, "missing settings (expected one of: %s)",
			conf_key_list(keys, n, list, sizeof(list)));
}

_Static_assert(IBEX_ARRAY_SIZE(conf_switch_keys) <= IBEX_CONF_GLOBAL_KEYS &&
	       IBEX_ARRAY_SIZE(conf_fdb_keys) <= IBEX_CONF_GLOBAL_KEYS,
	       "switch_key_line[], fdb_key_line[] too short");

/* Note @p line for each key of @p seen in @p lines. */
static void
key_lines(int *lines, uint64_t seen, int line)
{
	unsigned int i;

	for (i = 0; i < IBEX_CONF_GLOBAL_KEYS; i++)
		if (seen & (UINT64_C(1) << i))
			lines[i] = line;
}

static int
stmt_switch(struct conf_ctx *x, char **tok, int ntok)
{
	uint64_t seen;
	int ret, i;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_switch_keys));
	ret = conf_keys(x, KEYS(conf_switch_keys), x->c, tok, ntok, &seen);
	if (ret == 0)
		key_lines(x->c->switch_key_line, seen, x->lineno);
	/* A pool size given is a promise to check, not one to size. */
	for (i = 0; ret == 0 && i < ntok; i++)
		if (strcmp(tok[i], "mbufs") == 0)
			x->c->mbufs_line = x->lineno;
	return ret;
}

/*
 * "sl-from bpf FILE[:SECTION]" is the one port key with two values: it is
 * taken out of the <key> <value> pairs (tok[0..*ntok), keys at even
 * positions) before they are parsed, into the port's bpf_file/section.
 * @return 1 when it was there, 0 when not, or conf_err().
 */
static int
conf_port_bpf(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	      int *ntok)
{
	const char *spec, *colon;
	size_t flen;
	int i, j;

	for (i = 0; i + 1 < *ntok; i += 2)
		if (strcmp(tok[i], "sl-from") == 0 &&
		    strcmp(tok[i + 1], "bpf") == 0)
			break;
	if (i + 1 >= *ntok)
		return 0;
	if (i + 2 >= *ntok)
		return conf_err(x, "sl-from bpf: missing FILE[:SECTION]");
	spec = tok[i + 2];
	colon = strrchr(spec, ':');
	flen = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	if (flen == 0 || flen >= sizeof(p->bpf_file) ||
	    (colon != NULL && (colon[1] == '\0' ||
			       strlen(colon + 1) >= sizeof(p->bpf_section))))
		return conf_err(x, "sl-from bpf: '%s' is not FILE[:SECTION] "
				"(file 1..%zu, section 1..%zu characters)",
				spec, sizeof(p->bpf_file) - 1,
				sizeof(p->bpf_section) - 1);
	memcpy(p->bpf_file, spec, flen);
	p->bpf_file[flen] = '\0';
	snprintf(p->bpf_section, sizeof(p->bpf_section), "%s",
		 colon != NULL ? colon + 1 : "");
	for (j = i; j + 3 < *ntok; j++)
		tok[j] = tok[j + 3];
	*ntok -= 3;
	for (j = 0; j < *ntok; j += 2)
		if (strcmp(tok[j], "sl-from") == 0)
			return conf_err(x, "duplicate key 'sl-from'");
	p->class_line = p->vl_line = x->lineno;
	return 1;
}

/* The first "port NAME" declares the port; later ones modify it: only
 * the keys they name change, and the port keeps its declaring line. */
static int
stmt_port(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_port p;
	uint64_t seen;
	int idx, ret, bpf;

	if (ntok == 0)
		return conf_err(x, "missing port name");
	if (!conf_name_ok(tok[0]))
		return conf_err(x, "invalid name '%s' (1..%d characters of "
				"A-Z a-z 0-9 _ . -)", tok[0], IBEX_NAME_LEN - 1);
	snprintf(x->what, sizeof(x->what), "port %s", tok[0]);
	idx = ibex_conf_port_find(c, tok[0]);
	if (idx >= 0) {
		p = c->ports[idx];
	} else if (c->nb_ports >= IBEX_MAX_PORTS) {
		return conf_err(x, "too many ports (max %d)", IBEX_MAX_PORTS);
	} else {
		idx = c->nb_ports;
		conf_port_defaults(&p, tok[0], NULL, x->lineno);
	}
	ntok--;
	bpf = conf_port_bpf(x, &p, tok + 1, &ntok);
	if (bpf < 0)
		return bpf;
	ret = conf_keys(x, KEYS(conf_port_keys), &p, tok + 1, ntok, &seen);
	if (ret != 0)
		return ret;
	/* A built-in classifier named replaces the program. */
	if (seen & (UINT64_C(1) << (conf_key_find(KEYS(conf_port_keys),
						   "sl-from") -
				    conf_port_keys)))
		p.bpf_file[0] = p.bpf_section[0] = '\0';
	conf_port_fixup(&p);
	conf_port_mark(&p, KEYS(conf_port_keys), seen, x->lineno);
	c->ports[idx] = p;
	if (idx == c->nb_ports)
		c->nb_ports++;
	return 0;
}

/* "<statement> <port> ...": the port must be declared earlier. The
 * statement works on a copy, stored only when the whole line parsed. */
static int
stmt_on_port(struct conf_ctx *x, char **tok, int ntok,
	     int (*fn)(struct conf_ctx *x, struct ibex_conf_port *p,
		       char **tok, int ntok))
{
	struct ibex_conf_port p;
	char stmt[sizeof(x->what)];
	int idx, ret;

	if (ntok == 0)
		return conf_err(x, "missing port name");
	idx = ibex_conf_port_find(x->c, tok[0]);
	if (idx < 0)
		return conf_err(x, "unknown port '%s'", tok[0]);
	memcpy(stmt, x->what, sizeof(stmt));
	snprintf(x->what, sizeof(x->what), "%.31s %s", stmt, tok[0]);
	p = x->c->ports[idx];
	ret = fn(x, &p, tok + 1, ntok - 1);
	if (ret != 0)
		return ret;
	p.touch_line = x->lineno;
	x->c->ports[idx] = p;
	return 0;
}

/* sl <port> default S */
static int
port_sl(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	int ret;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_sl_keys));
	ret = conf_keys(x, KEYS(conf_sl_keys), p, tok, ntok, NULL);
	if (ret == 0)
		p->class_line = p->vl_line = x->lineno;
	return ret;
}

static const struct conf_list conf_pcp2sl_list = {
	.a_name = "PCP", .b_name = "SL",
	.a_max = IBEX_PFC_PRIOS - 1, .b_max = IBEX_SL_COUNT - 1,
	.ranges = true,
};

static const struct conf_list conf_dscp2sl_list = {
	.a_name = "DSCP", .b_name = "SL",
	.a_max = 63, .b_max = IBEX_SL_COUNT - 1, .ranges = true,
};

static const struct conf_list conf_sl2vl_list = {
	.a_name = "SL", .b_name = "VL",
	.a_max = IBEX_SL_COUNT - 1, .b_max = IBEX_VL_DROP,
	.b_word = "drop", .b_word_val = IBEX_VL_DROP, .ranges = true,
};

/* The elements of a map statement; "missing entries" when none. */
static int
conf_map_parse(struct conf_ctx *x, const struct conf_list *l, char **tok,
	       int ntok, struct conf_elem *e, unsigned int max)
{
	if (ntok == 0)
		return conf_err(x, "missing entries (%s:%s, e.g. 1:%s)",
				l->a_name, l->b_name,
				l->b_word != NULL ? l->b_word : "3");
	return conf_list_parse(x, l, tok, ntok, e, max);
}

/* pcp2sl <port> P[-P]:S,... */
static int
port_pcp2sl(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	    int ntok)
{
	struct conf_elem e[CONF_MAX_TOKENS];
	unsigned int a;
	int i, n;

	n = conf_map_parse(x, &conf_pcp2sl_list, tok, ntok, e,
			   IBEX_ARRAY_SIZE(e));
	for (i = 0; i < n; i++)
		for (a = e[i].a_lo; a <= e[i].a_hi; a++)
			ibex_sl_class_set_pcp(&p->sl_class, a, e[i].b);
	if (n >= 0)
		p->class_line = p->vl_line = x->lineno;
	return n < 0 ? n : 0;
}

/* dscp2sl <port> D[-D]:S,... */
static int
port_dscp2sl(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	     int ntok)
{
	struct conf_elem e[CONF_MAX_TOKENS];
	unsigned int a;
	int i, n;

	n = conf_map_parse(x, &conf_dscp2sl_list, tok, ntok, e,
			   IBEX_ARRAY_SIZE(e));
	for (i = 0; i < n; i++)
		for (a = e[i].a_lo; a <= e[i].a_hi; a++)
			ibex_sl_class_set_dscp(&p->sl_class, a, e[i].b);
	if (n >= 0)
		p->class_line = p->vl_line = x->lineno;
	return n < 0 ? n : 0;
}

/* sl2vl <port> S[-S]:V|drop,...: the SLs named; the others follow the
 * default of the port's lane count, whenever that is set. */
static int
port_sl2vl(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	   int ntok)
{
	struct conf_elem e[CONF_MAX_TOKENS];
	unsigned int a;
	int i, n;

	n = conf_map_parse(x, &conf_sl2vl_list, tok, ntok, e,
			   IBEX_ARRAY_SIZE(e));
	if (n < 0)
		return n;
	if (p->sl2vl_set && p->sl2vl_given == 0)
		p->sl2vl_given = UINT16_MAX;   /* a table built by code */
	for (i = 0; i < n; i++) {
		for (a = e[i].a_lo; a <= e[i].a_hi; a++) {
			p->sl2vl.vl[a] = e[i].b;
			p->sl2vl_given |= (uint16_t)(1u << a);
		}
	}
	p->sl2vl_set = true;
	p->sl2vl_line = p->vl_line = x->lineno;
	return 0;
}

/* vlarb <port> [high V:W,...|none] [low V:W,...|none] [limit N|unbounded]
 * [strict|carry]: the parts given replace those of the port. */
static int
port_vlarb(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	   int ntok)
{
	struct ibex_vlarb_conf a = p->vlarb;
	uint64_t seen;
	uint8_t given;
	int ret;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_vlarb_keys));
	ret = conf_keys(x, KEYS(conf_vlarb_keys), &a, tok, ntok, &seen);
	if (ret != 0)
		return ret;
	/* rows high, low, limit, strict, carry: the last two are one part */
	given = (uint8_t)((seen & 7) | ((seen & 0x18) ? IBEX_CONF_VLARB_STRICT :
					0));
	if (p->vlarb_set && p->vlarb_given == 0)
		p->vlarb_given = IBEX_CONF_VLARB_HIGH | IBEX_CONF_VLARB_LOW |
				 IBEX_CONF_VLARB_LIMIT | IBEX_CONF_VLARB_STRICT;
	p->vlarb = a;
	p->vlarb_given |= given;
	p->vlarb_set = true;
	p->vlarb_line = p->vl_line = x->lineno;
	return 0;
}

/* "vl V" (and "vl all" when allowed: *vl = -1) at the head of tok. */
static int
conf_vl_arg(struct conf_ctx *x, char **tok, int ntok, bool all, int *vl)
{
	uint64_t v = 0;
	int ret;

	if (ntok < 2 || strcmp(tok[0], "vl") != 0)
		return conf_err(x, "expected 'vl <0-14%s>'", all ? "|all" : "");
	if (all && strcmp(tok[1], "all") == 0) {
		*vl = -1;
		return 0;
	}
	ret = conf_u64(tok[1], &v);
	if (ret == -EINVAL)
		return conf_err(x, "vl: '%s' is not a number", tok[1]);
	if (ret < 0 || v >= IBEX_VL_DATA_MAX)
		return conf_err(x, "vl: %s out of range 0..%d (VL15 is "
				"management)", tok[1], IBEX_VL_DATA_MAX - 1);
	*vl = (int)v;
	return 0;
}

/* lane <port> vl V [lossless|lossy] [reserved SIZE] */
static int
port_lane(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	struct conf_lane l;
	uint64_t seen;
	int vl = 0, ret;

	ret = conf_vl_arg(x, tok, ntok, false, &vl);
	if (ret != 0)
		return ret;
	if (ntok == 2)
		return conf_missing(x, KEYS(conf_lane_keys));
	l.lossless = p->lossless_mask >> vl & 1;
	l.reserved_blocks = p->reserved_blocks[vl];
	ret = conf_keys(x, KEYS(conf_lane_keys), &l, tok + 2, ntok - 2, &seen);
	if (ret != 0)
		return ret;
	p->lossless_mask = (uint16_t)((p->lossless_mask & ~(1u << vl)) |
				      ((unsigned int)l.lossless << vl));
	p->reserved_blocks[vl] = l.reserved_blocks;
	p->lane_line[vl] = p->fc_line = x->lineno;
	return 0;
}

/* credit <port> [period-us N] [min-gap-ns N] [window auto|SIZE]
 * [delay-ns N] [rate R] */
static int
port_credit(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	    int ntok)
{
	int ret;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_credit_keys));
	ret = conf_keys(x, KEYS(conf_credit_keys), p, tok, ntok, NULL);
	if (ret == 0)
		p->fc_line = x->lineno;
	return ret;
}

/* "pool N", "profile N" or "vc V" at the head of tok: N in 0..n-1. */
static int
cbfc_index(struct conf_ctx *x, char **tok, int ntok, unsigned int n,
	   const char *hint, unsigned int *i)
{
	uint64_t v = 0;
	int ret;

	if (ntok < 2)
		return conf_err(x, "%s: missing its number (0..%u%s)", tok[0],
				n - 1, hint);
	ret = conf_u64(tok[1], &v);
	if (ret == -EINVAL)
		return conf_err(x, "%s: '%s' is not a number", tok[0], tok[1]);
	if (ret < 0 || v >= n)
		return conf_err(x, "%s: %s out of range 0..%u%s", tok[0], tok[1],
				n - 1, hint);
	*i = (unsigned int)v;
	return 0;
}

/* Is the rest of a sub-statement the word "none" alone? */
static bool
cbfc_none(char **tok, int ntok)
{
	return ntok == 3 && strcmp(tok[2], "none") == 0;
}

/* cbfc <port> pool N size CREDITS | none */
static int
cbfc_pool(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	struct conf_cbfc_pool pl = { 0 };
	unsigned int i = 0;
	int ret;

	ret = cbfc_index(x, tok, ntok, IBEX_CBFC_MAX_POOLS, "", &i);
	if (ret != 0)
		return ret;
	if (ntok == 2)
		return conf_missing(x, KEYS(conf_cbfc_pool_keys));
	if (!cbfc_none(tok, ntok)) {
		ret = conf_keys(x, KEYS(conf_cbfc_pool_keys), &pl, tok + 2,
				ntok - 2, NULL);
		if (ret != 0)
			return ret;
	}
	p->cbfc_pool_size[i] = pl.size;
	p->cbfc_pool_line[i] = x->lineno;
	return 0;
}

/* cbfc <port> profile N pool P|port [reserved R] [static T|dynamic N]
 * | none: the whole profile. */
static int
cbfc_profile(struct conf_ctx *x, struct ibex_conf_port *p, char **tok,
	     int ntok)
{
	struct ibex_conf_cbfc_profile f;
	unsigned int i = 0;
	uint64_t seen = 0;
	int ret;

	ret = cbfc_index(x, tok, ntok, IBEX_CBFC_MAX_PROFILES, "", &i);
	if (ret != 0)
		return ret;
	if (ntok == 2)
		return conf_missing(x, KEYS(conf_cbfc_profile_keys));
	memset(&f, 0, sizeof(f));
	if (!cbfc_none(tok, ntok)) {
		ret = conf_keys(x, KEYS(conf_cbfc_profile_keys), &f, tok + 2,
				ntok - 2, &seen);
		if (ret != 0)
			return ret;
		if (!(seen & (UINT64_C(1) << CBFC_PF_K_POOL)))
			return conf_err(x, "profile %u: missing its pool "
					"(pool <n>|port)", i);
		f.set = 1;
		f.th_mode = (seen & (UINT64_C(1) << CBFC_PF_K_STATIC)) ?
			IBEX_CBFC_TH_STATIC :
			(seen & (UINT64_C(1) << CBFC_PF_K_DYNAMIC)) ?
			IBEX_CBFC_TH_DYNAMIC : IBEX_CBFC_TH_NONE;
	}
	p->cbfc_profile[i] = f;
	p->cbfc_profile_line[i] = x->lineno;
	return 0;
}

/* cbfc <port> vc V profile N|none */
static int
cbfc_vc(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	struct conf_cbfc_vc vc = { 0 };
	unsigned int v = 0;
	int ret;

	ret = cbfc_index(x, tok, ntok, IBEX_VL_DATA_MAX,
			 ": a VC is a lane, VL15 is management", &v);
	if (ret != 0)
		return ret;
	if (ntok == 2)
		return conf_missing(x, KEYS(conf_cbfc_vc_keys));
	ret = conf_keys(x, KEYS(conf_cbfc_vc_keys), &vc, tok + 2, ntok - 2,
			NULL);
	if (ret != 0)
		return ret;
	p->cbfc_vc_profile[v] = vc.profile;
	p->cbfc_vc_line[v] = x->lineno;
	return 0;
}

/* cbfc <port> [credit-size B] [overhead B] [cc-timer-us N]
 * [cf-min-spacing SIZE] [cf-max-spacing SIZE] [cf-refreshes N]
 * [limit auto|N]
 * [port-limit none|N], or one pool, profile or VC (above) */
static int
port_cbfc(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	char list[512];
	int ret;

	/* the keys, and the words that start a pool, profile or VC */
	conf_key_list(KEYS(conf_cbfc_keys), list, sizeof(list));
	if (ntok == 0)
		return conf_err(x, "missing settings (expected one of: %s, "
				"pool, profile, vc)", list);
	if (strcmp(tok[0], "pool") == 0)
		ret = cbfc_pool(x, p, tok, ntok);
	else if (strcmp(tok[0], "profile") == 0)
		ret = cbfc_profile(x, p, tok, ntok);
	else if (strcmp(tok[0], "vc") == 0)
		ret = cbfc_vc(x, p, tok, ntok);
	else if (conf_key_find(KEYS(conf_cbfc_keys), tok[0]) == NULL)
		return conf_err(x, "unknown key '%s' (expected one of: %s, "
				"pool, profile, vc)", tok[0], list);
	else
		ret = conf_keys(x, KEYS(conf_cbfc_keys), p, tok, ntok, NULL);
	if (ret == 0)
		p->cbfc_line = p->fc_line = x->lineno;
	return ret;
}

/* pfc <port> <key> <value>...: headroom auto|SIZE, cable-m, proc-ns,
 * xoff dynamic|SIZE, xon SIZE, quanta, refresh-margin-us, watchdog,
 * detect-ms, recover-ms, hw. With a static XOFF, xon is the level XON is
 * sent at and the stored gap is xoff - xon; with a dynamic XOFF it is the
 * gap below the moving threshold. */
static int
port_pfc(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	char a[24], b[24];
	uint64_t seen;
	int ret;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_pfc_keys));
	ret = conf_keys(x, KEYS(conf_pfc_keys), p, tok, ntok, &seen);
	if (ret != 0)
		return ret;
	if (seen & (UINT64_C(1) << PFC_K_HEADROOM))
		p->pfc_headroom_auto = p->pfc_headroom_blocks == 0;
	if ((seen & (UINT64_C(1) << PFC_K_XON)) && p->pfc_xoff_blocks != 0) {
		if (p->pfc_xon_gap_blocks >= p->pfc_xoff_blocks)
			return conf_err(x, "xon %s is not below xoff %s",
				conf_size_str((uint64_t)p->pfc_xon_gap_blocks *
					      IBEX_BLOCK_BYTES, a, sizeof(a)),
				conf_size_str((uint64_t)p->pfc_xoff_blocks *
					      IBEX_BLOCK_BYTES, b, sizeof(b)));
		p->pfc_xon_gap_blocks = p->pfc_xoff_blocks -
					p->pfc_xon_gap_blocks;
	}
	p->pfc_line = p->fc_line = x->lineno;
	return 0;
}

/* ecn <port> vl V|all [kmin SIZE] [kmax SIZE] [pmax P] [instant|ewma W]
 * [fecn on|off] [on|off]: the keys given, on each lane named; the
 * others keep what earlier statements gave or follow the default curve. */
static int
port_ecn(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	struct ibex_conf_ecn e;
	uint64_t seen, all;
	int vl = 0, v, lo, hi, ret;

	ret = conf_vl_arg(x, tok, ntok, true, &vl);
	if (ret != 0)
		return ret;
	if (ntok == 2)
		return conf_missing(x, KEYS(conf_ecn_keys));
	memset(&e, 0, sizeof(e));
	ret = conf_keys(x, KEYS(conf_ecn_keys), &e, tok + 2, ntok - 2, &seen);
	if (ret != 0)
		return ret;
	lo = vl < 0 ? 0 : vl;
	hi = vl < 0 ? IBEX_VL_DATA_MAX - 1 : vl;
	/* a curve built by code counts as given whole */
	all = (UINT64_C(1) << IBEX_ARRAY_SIZE(conf_ecn_keys)) - 1;
	for (v = lo; v <= hi; v++) {
		struct ibex_conf_ecn *t = &p->ecn[v];

		if (t->set && t->given == 0)
			t->given = (uint16_t)all;
		conf_merge(KEYS(conf_ecn_keys), seen, t, &e);
		t->given |= (uint16_t)seen;
		t->set = true;
		t->line = x->lineno;
	}
	p->vl_line = x->lineno;
	return 0;
}

/* trim <port> size SIZE [dscp D] [vl V] | trim <port> off */
static int
port_trim(struct conf_ctx *x, struct ibex_conf_port *p, char **tok, int ntok)
{
	uint64_t seen;
	int ret;

	if (ntok == 1 && strcmp(tok[0], "off") == 0) {
		p->trim_size = 0;
		p->trim_line = x->lineno;
		return 0;
	}
	if (ntok == 0)
		return conf_missing(x, KEYS(conf_trim_keys));
	ret = conf_keys(x, KEYS(conf_trim_keys), p, tok, ntok, &seen);
	if (ret != 0)
		return ret;
	if (!(seen & 1) && p->trim_size == 0)
		return conf_err(x, "trim needs a size (%u..%u bytes, a "
				"multiple of 4)", IBEX_TRIM_MIN, IBEX_TRIM_MAX);
	if (p->trim_size % 4 != 0)
		return conf_err(x, "trim size %u is not a multiple of 4",
				p->trim_size);
	p->trim_line = x->lineno;
	return 0;
}

#define STMT_ON_PORT(name, fn) \
	static int \
	stmt_##name(struct conf_ctx *x, char **tok, int ntok) \
	{ \
		return stmt_on_port(x, tok, ntok, fn); \
	}

STMT_ON_PORT(sl, port_sl)
STMT_ON_PORT(pcp2sl, port_pcp2sl)
STMT_ON_PORT(dscp2sl, port_dscp2sl)
STMT_ON_PORT(sl2vl, port_sl2vl)
STMT_ON_PORT(vlarb, port_vlarb)
STMT_ON_PORT(lane, port_lane)
STMT_ON_PORT(credit, port_credit)
STMT_ON_PORT(pfc, port_pfc)
STMT_ON_PORT(cbfc, port_cbfc)
STMT_ON_PORT(ecn, port_ecn)
STMT_ON_PORT(trim, port_trim)

/* buffer [total SIZE] [alpha A] */
static int
stmt_buffer(struct conf_ctx *x, char **tok, int ntok)
{
	int ret;

	if (ntok == 0)
		return conf_missing(x, KEYS(conf_buffer_keys));
	ret = conf_keys(x, KEYS(conf_buffer_keys), x->c, tok, ntok, NULL);
	if (ret == 0)
		x->c->buffer_line = x->lineno;
	return ret;
}

/* ---- ECMP groups ---- */

int
ibex_conf_ecmp_find(const struct ibex_conf *c, const char *name)
{
	uint16_t i;

	for (i = 0; i < c->nb_ecmp; i++)
		if (strcmp(c->ecmp[i].name, name) == 0)
			return i;
	return -1;
}

uint16_t
ibex_conf_egress_port(const struct ibex_conf *c, uint16_t egress)
{
	if (!ibex_egress_is_ecmp(egress))
		return egress;
	return c->ecmp[egress & 0xff].ports[0];
}

const char *
ibex_conf_egress_name(const struct ibex_conf *c, uint16_t egress)
{
	if (ibex_egress_is_ecmp(egress))
		return (egress & 0xff) < c->nb_ecmp ?
		       c->ecmp[egress & 0xff].name : "?";
	return egress < c->nb_ports ? c->ports[egress].name : "?";
}

/* `ecmp NAME` in an fdb static line: the group, as an egress. */
static int
set_ecmp_ref(struct conf_ctx *x, const struct conf_key *k, void *obj,
	     const char *val)
{
	int g = ibex_conf_ecmp_find(x->c, val);
	uint16_t egress;

	if (g < 0)
		return conf_err(x, "unknown ecmp group '%s' (an 'ecmp %s ports "
				"...' line must come first)", val, val);
	egress = (uint16_t)(IBEX_EGRESS_ECMP | g);
	memcpy((char *)obj + k->off, &egress, sizeof(egress));
	return 0;
}

/* The ports of "P,P,...", each a declared port, none twice. */
static int
ecmp_ports(struct conf_ctx *x, char *list, struct ibex_conf_ecmp *e)
{
	char *save = NULL, *t;
	uint16_t i;
	int idx;

	e->n = 0;
	for (t = strtok_r(list, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		idx = ibex_conf_port_find(x->c, t);
		if (idx < 0)
			return conf_err(x, "unknown port '%s'", t);
		for (i = 0; i < e->n; i++)
			if (e->ports[i] == idx)
				return conf_err(x, "port %s named twice", t);
		if (e->n >= IBEX_ECMP_MAX_MEMBERS)
			return conf_err(x, "more than %d members",
					IBEX_ECMP_MAX_MEMBERS);
		e->ports[e->n++] = (uint16_t)idx;
	}
	if (e->n == 0)
		return conf_err(x, "missing ports");
	return 0;
}

/* ecmp del NAME: only when no static entry names the group; the later
 * groups move down one, and the entries naming them follow. */
static int
stmt_ecmp_del(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	uint16_t i, g;
	int idx;

	if (ntok != 1)
		return conf_err(x, "expected 'ecmp del <group>'");
	idx = ibex_conf_ecmp_find(c, tok[0]);
	if (idx < 0)
		return conf_err(x, "unknown ecmp group '%s'", tok[0]);
	g = (uint16_t)idx;
	for (i = 0; i < c->nb_static; i++)
		if (c->statics[i].port == (IBEX_EGRESS_ECMP | g))
			return conf_err(x, "group %s is in use by the fdb "
					"static entry of line %d", tok[0],
					c->statics[i].line);
	for (i = 0; i < c->nb_static; i++)
		if (ibex_egress_is_ecmp(c->statics[i].port) &&
		    (c->statics[i].port & 0xff) > g)
			c->statics[i].port--;
	memmove(&c->ecmp[g], &c->ecmp[g + 1],
		(size_t)(c->nb_ecmp - g - 1) * sizeof(c->ecmp[0]));
	c->nb_ecmp--;
	return 0;
}

/* "adaptive hash|packet|flowlet [GAP_US]": how group @p e chooses. */
static int
ecmp_adaptive(struct conf_ctx *x, char **tok, int ntok,
	      struct ibex_conf_ecmp *e)
{
	uint64_t us = IBEX_CONF_FLOWLET_US;
	unsigned int m;

	if (ntok < 1 || ntok > 2 || (ntok == 2 && strcmp(tok[0], "flowlet")))
		return conf_err(x, "expected 'adaptive hash|packet|flowlet "
				"[<gap-us>]'");
	for (m = IBEX_ECMP_HASH; m <= IBEX_ECMP_FLOWLET; m++)
		if (strcmp(tok[0], ibex_ecmp_mode_name(m)) == 0)
			break;
	if (m > IBEX_ECMP_FLOWLET)
		return conf_err(x, "adaptive: '%s' is not hash, packet or "
				"flowlet", tok[0]);
	e->mode = (uint8_t)m;
	if (ntok == 2 && (conf_u64(tok[1], &us) != 0 || us < 1 ||
			  us > 1000000))
		return conf_err(x, "adaptive flowlet: gap '%s' is not 1.."
				"1000000 microseconds", tok[1]);
	e->flowlet_us = (uint32_t)us;
	return 0;
}

/* ecmp NAME ports P,P,... [adaptive ...]: a new group, or new members
 * for one; ecmp NAME adaptive ...: how an existing group chooses. */
static int
stmt_ecmp(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_ecmp e = { .line = x->lineno,
				    .flowlet_us = IBEX_CONF_FLOWLET_US };
	int idx, ret;

	snprintf(x->what, sizeof(x->what), "ecmp");
	if (ntok > 0 && strcmp(tok[0], "del") == 0)
		return stmt_ecmp_del(x, tok + 1, ntok - 1);
	if (ntok == 0)
		return conf_err(x, "missing group name");
	snprintf(x->what, sizeof(x->what), "ecmp %s", tok[0]);
	if (!conf_name_ok(tok[0]))
		return conf_err(x, "invalid group name '%s'", tok[0]);
	if (ntok >= 2 && strcmp(tok[1], "adaptive") == 0) {
		idx = ibex_conf_ecmp_find(c, tok[0]);
		if (idx < 0)
			return conf_err(x, "unknown ecmp group '%s'", tok[0]);
		e = c->ecmp[idx];
		ret = ecmp_adaptive(x, tok + 2, ntok - 2, &e);
		if (ret == 0)
			c->ecmp[idx] = e;
		return ret;
	}
	if (ntok < 3 || strcmp(tok[1], "ports") != 0 ||
	    (ntok > 3 && strcmp(tok[3], "adaptive") != 0))
		return conf_err(x, "expected 'ecmp %s ports <port>,<port>... "
				"[adaptive hash|packet|flowlet [<gap-us>]]'",
				tok[0]);
	ret = ecmp_ports(x, tok[2], &e);
	if (ret == 0 && ntok > 3)
		ret = ecmp_adaptive(x, tok + 4, ntok - 4, &e);
	if (ret != 0)
		return ret;
	snprintf(e.name, sizeof(e.name), "%s", tok[0]);
	idx = ibex_conf_ecmp_find(c, tok[0]);
	if (idx < 0) {
		if (c->nb_ecmp >= IBEX_MAX_ECMP_GROUPS)
			return conf_err(x, "too many ecmp groups (max %d)",
					IBEX_MAX_ECMP_GROUPS);
		idx = c->nb_ecmp++;
	}
	c->ecmp[idx] = e;
	return 0;
}

/* ---- in-network aggregation ---- */

int
ibex_conf_agg_find(const struct ibex_conf *c, uint32_t id)
{
	uint16_t i;

	for (i = 0; i < c->nb_agg_jobs; i++)
		if (c->agg_jobs[i].id == id)
			return i;
	return -1;
}

/* A number in [lo, hi] for key @p key of an aggregation statement. */
static int
agg_number(struct conf_ctx *x, const char *key, const char *val, uint64_t lo,
	   uint64_t hi, uint64_t *v)
{
	if (conf_u64(val, v) != 0 || *v < lo || *v > hi)
		return conf_err(x, "%s '%s' is not %" PRIu64 "..%" PRIu64, key,
				val, lo, hi);
	return 0;
}

/* "P,P,...": the children, in child-index order. */
static int
agg_children(struct conf_ctx *x, char *list, struct ibex_conf_agg_job *j)
{
	char *save = NULL, *t;
	int idx;

	j->n_children = 0;
	memset(j->children, 0, sizeof(j->children));
	for (t = strtok_r(list, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		idx = ibex_conf_port_find(x->c, t);
		if (idx < 0)
			return conf_err(x, "unknown port '%s'", t);
		if (j->n_children >= IBEX_AGG_MAX_CHILDREN)
			return conf_err(x, "more than %d children",
					IBEX_AGG_MAX_CHILDREN);
		j->children[j->n_children++] = (uint16_t)idx;
	}
	if (j->n_children == 0)
		return conf_err(x, "missing children");
	return 0;
}

/* The words after "aggregation job ID": children, parent and the
 * optional keys, in any order. */
static int
agg_job_keys(struct conf_ctx *x, char **tok, int ntok,
	     struct ibex_conf_agg_job *j)
{
	bool parent = false;
	uint64_t v;
	int i, idx, ret = 0;

	for (i = 0; ret == 0 && i < ntok; i += 2) {
		const char *k = tok[i], *val = i + 1 < ntok ? tok[i + 1] : NULL;

		if (val == NULL)
			return conf_err(x, "'%s' needs a value", k);
		if (strcmp(k, "children") == 0) {
			ret = agg_children(x, tok[i + 1], j);
		} else if (strcmp(k, "parent") == 0) {
			parent = true;
			if (strcmp(val, "root") == 0) {
				j->parent = IBEX_PORT_NONE;
				continue;
			}
			idx = ibex_conf_port_find(x->c, val);
			if (idx < 0)
				return conf_err(x, "unknown port '%s'", val);
			j->parent = (uint16_t)idx;
		} else if (strcmp(k, "up-child") == 0) {
			ret = agg_number(x, k, val, 0, IBEX_AGG_MAX_CHILDREN - 1,
					 &v);
			j->up_child = (uint16_t)v;
		} else if (strcmp(k, "slots") == 0) {
			ret = agg_number(x, k, val, 1, IBEX_AGG_MAX_SLOTS, &v);
			j->slots = (uint16_t)v;
		} else if (strcmp(k, "elements") == 0) {
			ret = agg_number(x, k, val, 1, IBEX_AGG_MAX_ELEMS, &v);
			j->elements = (uint16_t)v;
		} else {
			return conf_err(x, "unknown key '%s' (children, parent, "
					"up-child, slots, elements)", k);
		}
	}
	if (ret == 0 && j->n_children == 0)
		return conf_err(x, "missing 'children <port>,<port>...'");
	if (ret == 0 && !parent)
		return conf_err(x, "missing 'parent <port>|root'");
	return ret;
}

/* aggregation pool SIZE | aggregation job ID children P,P,...
 * parent P|root [up-child N] [slots N] [elements N] | aggregation del ID */
static int
stmt_aggregation(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_agg_job j = { .line = x->lineno,
		.slots = IBEX_CONF_AGG_SLOTS,
		.elements = IBEX_CONF_AGG_ELEMENTS };
	uint64_t v;
	int idx, ret;

	snprintf(x->what, sizeof(x->what), "aggregation");
	if (ntok == 2 && strcmp(tok[0], "pool") == 0) {
		if (ibex_parse_size(tok[1], &v) != 0 ||
		    (v != 0 && v < 4096) || v > (UINT64_C(1) << 40))
			return conf_err(x, "pool '%s' is not 0 or a size from "
					"4K to 1T", tok[1]);
		c->agg_pool_bytes = v;
		c->agg_pool_line = x->lineno;
		return 0;
	}
	if (ntok < 2 || (strcmp(tok[0], "job") && strcmp(tok[0], "del")))
		return conf_err(x, "expected 'aggregation pool <size>', "
				"'aggregation job <id> children <port>,... "
				"parent <port>|root [up-child <n>] [slots <n>] "
				"[elements <n>]' or 'aggregation del <id>'");
	snprintf(x->what, sizeof(x->what), "aggregation %s %s", tok[0],
		 tok[1]);
	if (conf_u64(tok[1], &v) != 0 || v > UINT32_MAX)
		return conf_err(x, "job id '%s' is not 0..%u", tok[1],
				UINT32_MAX);
	idx = ibex_conf_agg_find(c, (uint32_t)v);
	if (strcmp(tok[0], "del") == 0) {
		if (ntok != 2)
			return conf_err(x, "expected 'aggregation del <id>'");
		if (idx < 0)
			return conf_err(x, "no aggregation job %s", tok[1]);
		memmove(&c->agg_jobs[idx], &c->agg_jobs[idx + 1],
			(size_t)(c->nb_agg_jobs - idx - 1) *
				sizeof(c->agg_jobs[0]));
		c->nb_agg_jobs--;
		return 0;
	}
	j.id = (uint32_t)v;
	ret = agg_job_keys(x, tok + 2, ntok - 2, &j);
	if (ret != 0)
		return ret;
	if (idx < 0) {
		if (c->nb_agg_jobs >= IBEX_MAX_AGG_JOBS)
			return conf_err(x, "too many aggregation jobs (max %d)",
					IBEX_MAX_AGG_JOBS);
		idx = c->nb_agg_jobs++;
	}
	c->agg_jobs[idx] = j;
	return 0;
}

/* fdb static MAC port NAME [vlan VID]: the vlan defaults to the pvid the
 * port has when this line is read, so the port must come first. */
static int
stmt_fdb_static(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_fdb_static s = {
		.port = IBEX_PORT_NONE, .line = x->lineno,
	};
	int ret;

	snprintf(x->what, sizeof(x->what), "fdb static");
	if (ntok == 0)
		return conf_err(x, "missing MAC address");
	if (ibex_mac_parse(tok[0], s.mac) != 0)
		return conf_err(x, "invalid MAC address '%s'", tok[0]);
	if (s.mac[0] & 1)
		return conf_err(x, "%s is a group (multicast) address", tok[0]);
	ret = conf_keys(x, KEYS(conf_static_keys), &s, tok + 1, ntok - 1,
			NULL);
	if (ret != 0)
		return ret;
	if (s.port == IBEX_PORT_NONE)
		return conf_err(x, "missing 'port <name>' or 'ecmp <group>'");
	if (s.vid == 0)
		s.vid = c->ports[ibex_conf_egress_port(c, s.port)].pvid;
	if (c->nb_static >= IBEX_CONF_MAX_STATIC)
		return conf_err(x, "too many static entries (max %d)",
				IBEX_CONF_MAX_STATIC);
	c->statics[c->nb_static++] = s;
	return 0;
}

/* fdb del MAC vlan VID: removes the static entries of (MAC, VID). */
static int
stmt_fdb_del(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_fdb_static s = { .vid = 0 };
	uint16_t i, n = 0;
	char mac[18];
	int ret;

	snprintf(x->what, sizeof(x->what), "fdb del");
	if (ntok == 0)
		return conf_err(x, "missing MAC address");
	if (ibex_mac_parse(tok[0], s.mac) != 0)
		return conf_err(x, "invalid MAC address '%s'", tok[0]);
	ret = conf_keys(x, KEYS(conf_del_keys), &s, tok + 1, ntok - 1, NULL);
	if (ret != 0)
		return ret;
	if (s.vid == 0)
		return conf_err(x, "missing 'vlan <vid>'");
	for (i = 0; i < c->nb_static; i++) {
		if (c->statics[i].vid == s.vid &&
		    memcmp(c->statics[i].mac, s.mac, 6) == 0)
			continue;
		c->statics[n++] = c->statics[i];
	}
	if (n == c->nb_static) {
		conf_mac_str(s.mac, mac, sizeof(mac));
		return conf_err(x, "%s vlan %u is not a static entry", mac,
				s.vid);
	}
	c->nb_static = n;
	return 0;
}

static int
stmt_fdb(struct conf_ctx *x, char **tok, int ntok)
{
	char list[256];
	uint64_t seen;
	int ret;

	if (ntok > 0 && strcmp(tok[0], "static") == 0)
		return stmt_fdb_static(x, tok + 1, ntok - 1);
	if (ntok > 0 && strcmp(tok[0], "del") == 0)
		return stmt_fdb_del(x, tok + 1, ntok - 1);
	conf_key_list(KEYS(conf_fdb_keys), list, sizeof(list));
	if (ntok == 0)
		return conf_err(x, "missing settings (expected one of: "
				"static, del, %s)", list);
	if (conf_key_find(KEYS(conf_fdb_keys), tok[0]) == NULL)
		return conf_err(x, "unknown key '%s' (expected one of: "
				"static, del, %s)", tok[0], list);
	ret = conf_keys(x, KEYS(conf_fdb_keys), x->c, tok, ntok, &seen);
	if (ret == 0)
		key_lines(x->c->fdb_key_line, seen, x->lineno);
	return ret;
}

struct conf_stmt {
	const char *name;
	int (*parse)(struct conf_ctx *x, char **tok, int ntok);
};

/* In the order of docs/configuration.md and of the "expected" hint. */
static const struct conf_stmt conf_stmts[] = {
	{ "switch", stmt_switch },
	{ "port", stmt_port },
	{ "fdb", stmt_fdb },
	{ "ecmp", stmt_ecmp },
	{ "buffer", stmt_buffer },
	{ "sl", stmt_sl },
	{ "pcp2sl", stmt_pcp2sl },
	{ "dscp2sl", stmt_dscp2sl },
	{ "sl2vl", stmt_sl2vl },
	{ "vlarb", stmt_vlarb },
	{ "lane", stmt_lane },
	{ "credit", stmt_credit },
	{ "pfc", stmt_pfc },
	{ "cbfc", stmt_cbfc },
	{ "ecn", stmt_ecn },
	{ "trim", stmt_trim },
	{ "aggregation", stmt_aggregation },
};

/* ---- lines ---- */

/* Split buf in place into words, up to a '#' comment. */
static int
conf_tokens(char *buf, char **tok)
{
	char *hash = strchr(buf, '#');
	char *save = NULL;
	char *t;
	int n = 0;

	if (hash != NULL)
		*hash = '\0';
	for (t = strtok_r(buf, CONF_SEPS, &save); t != NULL;
	     t = strtok_r(NULL, CONF_SEPS, &save))
		tok[n++] = t;
	return n;
}

const char *
ibex_conf_statement_name(unsigned int i)
{
	return i < IBEX_ARRAY_SIZE(conf_stmts) ? conf_stmts[i].name : NULL;
}

static int
conf_dispatch(struct conf_ctx *x, char **tok, int ntok)
{
	char list[256];
	size_t i, used;

	for (i = 0; i < IBEX_ARRAY_SIZE(conf_stmts); i++) {
		if (strcmp(conf_stmts[i].name, tok[0]) == 0) {
			snprintf(x->what, sizeof(x->what), "%s", tok[0]);
			return conf_stmts[i].parse(x, tok + 1, ntok - 1);
		}
	}
	for (i = 0, used = 0; i < IBEX_ARRAY_SIZE(conf_stmts) &&
	     used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i > 0 ? ", " : "", conf_stmts[i].name);
	return conf_err(x, "unknown statement '%s' (expected one of: %s)",
			tok[0], list);
}

/* One statement of n characters at s (not NUL-terminated). *stmt, when
 * not NULL, is set when the line held a statement (not blank or a
 * comment). */
static int
conf_line(struct ibex_conf *c, const char *s, size_t n, const char *origin,
	  int lineno, bool *stmt, char *err, size_t errlen)
{
	char buf[IBEX_CONF_LINE_MAX + 1];
	char *tok[CONF_MAX_TOKENS];
	struct conf_ctx x = {
		.c = c, .origin = origin != NULL ? origin : "",
		.lineno = lineno, .err = err, .errlen = errlen,
	};
	int ntok;

	if (n > IBEX_CONF_LINE_MAX)
		return conf_err(&x, "line too long (max %d characters)",
				IBEX_CONF_LINE_MAX);
	memcpy(buf, s, n);
	buf[n] = '\0';
	ntok = conf_tokens(buf, tok);
	if (stmt != NULL)
		*stmt = ntok != 0;
	return ntok == 0 ? 0 : conf_dispatch(&x, tok, ntok);
}

/* The one completion step: every port's tables from its other keys.
 * After a parse (so a parsed object reads complete) and in
 * ibex_conf_finish(); an object changed since is not finished. */
static int
conf_tables_all(struct ibex_conf *c)
{
	uint16_t i;

	for (i = 0; i < c->nb_ports && i < IBEX_MAX_PORTS; i++)
		ibex_conf_port_tables(&c->ports[i]);
	c->finished = false;
	return 0;
}

static void
conf_set_origin(struct ibex_conf *c, const char *origin)
{
	snprintf(c->origin, sizeof(c->origin), "%s",
		 origin != NULL ? origin : "");
}

void
ibex_conf_init(struct ibex_conf *c)
{
	memset(c, 0, sizeof(*c));
	ibex_conf_init_zeroed(c);
}

/* Copy bytes [@p from, @p to) of @p src into @p dst. */
static void
conf_copy_span(struct ibex_conf *dst, const struct ibex_conf *src,
	       size_t from, size_t to)
{
	memcpy((char *)dst + from, (const char *)src + from, to - from);
}

void
ibex_conf_copy(struct ibex_conf *dst, const struct ibex_conf *src)
{
	const size_t ports = offsetof(struct ibex_conf, ports);
	const size_t ports_end = ports + sizeof(src->ports);
	const size_t statics = offsetof(struct ibex_conf, statics);
	const size_t statics_end = statics + sizeof(src->statics);
	unsigned int n = src->nb_ports > dst->nb_ports ? src->nb_ports :
			 dst->nb_ports;
	unsigned int k = src->nb_static > dst->nb_static ? src->nb_static :
			 dst->nb_static;

	_Static_assert(offsetof(struct ibex_conf, ports) <
		       offsetof(struct ibex_conf, statics),
		       "ibex_conf_copy() copies the ports, then the statics");
	if (n > IBEX_MAX_PORTS)
		n = IBEX_MAX_PORTS;
	if (k > IBEX_CONF_MAX_STATIC)
		k = IBEX_CONF_MAX_STATIC;
	conf_copy_span(dst, src, 0, ports);
	memcpy(dst->ports, src->ports, n * sizeof(src->ports[0]));
	conf_copy_span(dst, src, ports_end, statics);
	memcpy(dst->statics, src->statics, k * sizeof(src->statics[0]));
	conf_copy_span(dst, src, statics_end, sizeof(*src));
}

void
ibex_conf_init_zeroed(struct ibex_conf *c)
{
	c->nb_workers = 0;
	c->burst = 32;
	c->tx_drain_us = 0;
	c->mbufs = 16384;
	c->mbuf_size = 2048;
	c->fdb_max_entries = 65536;
	c->fdb_ageing_s = 300;
	c->fdb_learning = true;
	c->vl15_rate_pps = 1000;
	c->buffer_blocks = (8u << 20) / 64;
	c->buffer_alpha_log2 = -3;
}

int
ibex_conf_parse_line(struct ibex_conf *c, const char *line,
		     const char *origin, int lineno, char *err, size_t errlen)
{
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || line == NULL)
		return -EINVAL;
	if (c->origin[0] == '\0')
		conf_set_origin(c, origin);
	ret = conf_line(c, line, strlen(line), origin, lineno, NULL, err,
			errlen);
	return ret != 0 ? ret : conf_tables_all(c);
}

int
ibex_conf_parse_string(struct ibex_conf *c, const char *text,
		       const char *origin, char *err, size_t errlen)
{
	const char *s = text;
	const char *nl;
	int lineno = 0;
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || text == NULL)
		return -EINVAL;
	conf_set_origin(c, origin);
	while (*s != '\0') {
		nl = strchr(s, '\n');
		ret = conf_line(c, s, nl != NULL ? (size_t)(nl - s) : strlen(s),
				origin, ++lineno, NULL, err, errlen);
		if (ret != 0)
			return ret;
		if (nl == NULL)
			break;
		s = nl + 1;
	}
	return conf_tables_all(c);
}

/*
 * Read one line of @p f into @p buf (room for IBEX_CONF_LINE_MAX + 2
 * characters and a NUL), without its newline. *n is its length, up to
 * IBEX_CONF_LINE_MAX + 1: a longer line is cut there and conf_line() says
 * it is too long, with its number. *nl tells whether a newline ended it,
 * *nul whether it held a NUL byte. @return false at the end of the file.
 */
static bool
conf_read_line(FILE *f, char *buf, size_t *n, bool *nl, bool *nul)
{
	int ch = EOF;

	*n = 0;
	*nl = false;
	*nul = false;
	while (*n <= IBEX_CONF_LINE_MAX && (ch = getc(f)) != EOF) {
		if (ch == '\n') {
			*nl = true;
			break;
		}
		*nul |= ch == '\0';
		buf[(*n)++] = (char)ch;
	}
	buf[*n] = '\0';
	return *n > 0 || ch != EOF;
}

int
ibex_conf_parse_file_stat(struct ibex_conf *c, const char *path,
			  struct ibex_conf_file_stat *st,
			  char *err, size_t errlen)
{
	char buf[IBEX_CONF_LINE_MAX + 3];
	struct ibex_conf_file_stat s = { 0 };
	bool nl, nul, stmt;
	int ret = 0;
	size_t n;
	FILE *f;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || path == NULL)
		return -EINVAL;
	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: cannot open: %s", path,
				 strerror(-ret));
		return ret;
	}
	conf_set_origin(c, path);
	errno = 0;
	while (ret == 0 && conf_read_line(f, buf, &n, &nl, &nul)) {
		s.lines++;
		s.unterminated = !nl;
		/* A NUL would cut the line short unseen: a binary file, or
		 * one being written. */
		if (nul) {
			if (err != NULL && errlen > 0)
				snprintf(err, errlen, "%s:%u: NUL byte in the "
					 "line (not a text file?)", path,
					 s.lines);
			ret = -EINVAL;
			break;
		}
		ret = conf_line(c, buf, n, path, (int)s.lines, &stmt, err,
				errlen);
		s.statements += stmt;
		errno = 0;
	}
	if (ret == 0 && ferror(f)) {
		/* errno as the failed read left it (a directory: EISDIR) */
		ret = errno != 0 ? -errno : -EIO;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s:%u: read error: %s", path,
				 s.lines + 1, strerror(-ret));
	}
	fclose(f);
	if (st != NULL)
		*st = s;
	return ret != 0 ? ret : conf_tables_all(c);
}

int
ibex_conf_parse_file(struct ibex_conf *c, const char *path,
		     char *err, size_t errlen)
{
	return ibex_conf_parse_file_stat(c, path, NULL, err, errlen);
}

/* ---- validate ---- */

/* Keys of a table hold values the parser would have accepted. */
static int
check_ranges(struct conf_ctx *x, const struct conf_key *keys, size_t n,
	     const void *obj)
{
	const char *const *words;
	char shown[24], list[128];
	uint64_t v;
	size_t i, nw;
	int ret;

	for (i = 0; i < n; i++) {
		const struct conf_key *k = &keys[i];

		if (k->type == CT_BOOL || k->type == CT_ENUM) {
			words = k->type == CT_BOOL ? conf_on_off : k->words;
			for (nw = 0; words[nw] != NULL; nw++)
				;
			v = conf_load(obj, k);
			if (v >= nw)
				return conf_err(x, "%s: %" PRIu64 " is not one "
						"of: %s", k->name, v,
						conf_word_list(words, list,
							       sizeof(list)));
			continue;
		}
		if (k->type != CT_U32 && k->type != CT_POW2 &&
		    k->type != CT_VLS && k->type != CT_SIZE)
			continue;
		v = conf_load(obj, k);
		if ((v == 0 && (k->flags & CK_ZERO_UNSET)) ||
		    (k->word != NULL && v == k->word_val))
			continue;
		v = conf_key_units(k, v);
		if (k->type == CT_SIZE)
			conf_size_str(v, shown, sizeof(shown));
		else
			snprintf(shown, sizeof(shown), "%" PRIu64, v);
		ret = conf_check_uint(x, k, v, shown);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
check_globals(struct conf_ctx *x, const struct ibex_conf *c)
{
	int ret;

	snprintf(x->what, sizeof(x->what), "switch");
	ret = check_ranges(x, KEYS(conf_switch_keys), c);
	if (ret != 0)
		return ret;
	if (memchr(c->ctl_socket, '\0', sizeof(c->ctl_socket)) == NULL)
		return conf_err(x, "ctl-socket: not terminated");
	snprintf(x->what, sizeof(x->what), "fdb");
	ret = check_ranges(x, KEYS(conf_fdb_keys), c);
	if (ret != 0)
		return ret;
	snprintf(x->what, sizeof(x->what), "buffer");
	x->lineno = c->buffer_line;
	ret = check_ranges(x, KEYS(conf_buffer_keys), c);
	if (ret != 0)
		return ret;
	if (c->buffer_alpha_log2 < -7 || c->buffer_alpha_log2 > 3)
		return conf_err(x, "alpha: 2^%d out of range 1/128..8",
				c->buffer_alpha_log2);
	x->lineno = 0;
	x->what[0] = '\0';
	if (c->nb_ports > IBEX_MAX_PORTS)
		return conf_err(x, "%u ports, max %d", c->nb_ports,
				IBEX_MAX_PORTS);
	if (c->nb_static > IBEX_CONF_MAX_STATIC)
		return conf_err(x, "%u static entries, max %d", c->nb_static,
				IBEX_CONF_MAX_STATIC);
	return 0;
}

static int
lmax(int a, int b)
{
	return a > b ? a : b;
}

/* Report at @p line, or at the port's declaring line when unknown. */
static void
check_at(struct conf_ctx *x, const struct ibex_conf_port *p, int line)
{
	x->lineno = line > 0 ? line : p->line;
}

/* Names and devs unique. Of two ports on one dev, the one whose dev was
 * set last is at fault: a later statement took a dev already in use. */
static int
check_port_unique(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_port *p = &c->ports[i];
	const struct ibex_conf_port *a, *b;
	int pl, ql;
	uint16_t j;

	for (j = 0; j < i; j++) {
		const struct ibex_conf_port *q = &c->ports[j];

		if (strcmp(p->name, q->name) == 0)
			return conf_err(x, "name is already used (line %d)",
					q->line);
		if (strcmp(ibex_conf_port_dev(p), ibex_conf_port_dev(q)) != 0)
			continue;
		pl = p->dev_line > 0 ? p->dev_line : p->line;
		ql = q->dev_line > 0 ? q->dev_line : q->line;
		a = ql > pl ? q : p;
		b = ql > pl ? p : q;
		x->lineno = lmax(pl, ql);
		snprintf(x->what, sizeof(x->what), "port %s", a->name);
		return conf_err(x, "dev '%s' is already used by port %s "
				"(line %d)", ibex_conf_port_dev(a), b->name,
				lmax(b == p ? pl : ql, 0));
	}
	return 0;
}

/* Lanes: classifier, SL->VL and arbiter against the lane count, and
 * every lane the table feeds drains through the arbiter. @p q has its
 * tables filled. */
static int
check_port_vl(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	char msg[IBEX_CONF_ERR_LEN];
	uint32_t stuck;

	if (ibex_sl_class_validate(&q->sl_class, msg, sizeof(msg)) != 0) {
		check_at(x, q, q->class_line);
		return conf_err(x, "classifier: %s", msg);
	}
	if (ibex_sl2vl_validate(&q->sl2vl, q->nb_vls, msg, sizeof(msg)) != 0) {
		check_at(x, q, lmax(q->sl2vl_line, q->vls_line));
		return conf_err(x, "sl2vl: %s (vls %u)", msg, q->nb_vls);
	}
	if (ibex_vlarb_conf_validate(&q->vlarb, q->nb_vls, msg,
				     sizeof(msg)) != 0) {
		check_at(x, q, lmax(q->vlarb_line, q->vls_line));
		return conf_err(x, "%s (vls %u)", msg, q->nb_vls);
	}
	stuck = ibex_sl2vl_used(&q->sl2vl) &
		~ibex_vlarb_conf_served(&q->vlarb);
	if (stuck != 0) {
		check_at(x, q, lmax(lmax(q->sl2vl_line, q->vlarb_line),
				    q->vls_line));
		return conf_err(x, "VL %d is in the SL->VL table but has no "
				"vlarb entry of non-zero weight: its frames "
				"could never leave", __builtin_ctz(stuck));
	}
	if (q->vl_queue_blocks < ibex_blocks(ibex_conf_port_frame_bytes(q))) {
		check_at(x, q, q->vl_line);
		return conf_err(x, "vl-queue %u blocks holds less than one "
				"frame of %u bytes", q->vl_queue_blocks,
				ibex_conf_port_frame_bytes(q));
	}
	return 0;
}

/* Lossless lanes: they exist, flow control can hold them, and on a PFC
 * port a priority reaches each of them. */
static int
check_port_lossless(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	uint32_t frame = ibex_blocks(ibex_conf_port_frame_bytes(q));
	int last = q->fc_mode_line;
	unsigned int v, n = 0;
	char sz[24];

	for (v = 0; v < IBEX_VL_COUNT; v++) {
		if (q->lossless_mask >> v & 1) {
			n++;
			last = lmax(last, q->lane_line[v]);
		}
	}
	if (q->fc_mode == IBEX_FC_PFC && n > IBEX_PFC_PRIOS) {
		check_at(x, q, last);
		return conf_err(x, "%u lossless VLs; PFC has %d priorities", n,
				IBEX_PFC_PRIOS);
	}
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		if (!(q->lossless_mask >> v & 1))
			continue;
		if (v >= q->nb_vls) {
			check_at(x, q, lmax(q->lane_line[v], q->vls_line));
			return conf_err(x, "lane vl %u is lossless but the port "
					"runs %u VLs (0..%u)", v, q->nb_vls,
					q->nb_vls - 1u);
		}
		if (q->fc_mode == IBEX_FC_NONE) {
			check_at(x, q, lmax(q->lane_line[v], q->fc_mode_line));
			return conf_err(x, "lane vl %u is lossless but the port "
					"has fc none (lossless needs fc credit, "
					"cbfc or pfc)", v);
		}
		if ((q->fc_mode == IBEX_FC_CREDIT ||
		     q->fc_mode == IBEX_FC_CBFC) &&
		    ibex_conf_lane_reserved_blocks(q, v) < frame) {
			check_at(x, q, lmax(q->lane_line[v], q->fc_mode_line));
			return conf_err(x, "lane vl %u: reserved %s is less than "
					"one frame of %u bytes, which credits "
					"could then never cover", v,
					conf_size_str((uint64_t)
						ibex_conf_lane_reserved_blocks(
							q, v) *
						IBEX_BLOCK_BYTES, sz,
						sizeof(sz)),
					ibex_conf_port_frame_bytes(q));
		}
		if (q->fc_mode == IBEX_FC_PFC && ibex_conf_vl_prio(q, v) < 0) {
			check_at(x, q, lmax(lmax(q->lane_line[v], q->class_line),
					    lmax(lmax(q->sl2vl_line,
						      q->vls_line),
						 q->fc_mode_line)));
			return conf_err(x, "lane vl %u is lossless but no PCP "
					"reaches it (PCP -> SL -> VL), so PFC "
					"cannot pause it", v);
		}
	}
	return 0;
}

/* Bytes of the buffer one CBFC credit may stand for: a frame of c
 * credits is at most c x size - overhead bytes, charged in whole blocks.
 * Exact when the size is a multiple of a block and the overhead not
 * negative; else a bound. */
static uint32_t
cbfc_credit_charge(const struct ibex_conf_port *p)
{
	uint32_t cs = p->cbfc_credit_size;

	if (cs % IBEX_BLOCK_BYTES == 0 && p->cbfc_overhead >= 0)
		return cs;
	return cs + IBEX_BLOCK_BYTES - 1 +
	       (uint32_t)(p->cbfc_overhead < 0 ? -p->cbfc_overhead : 0);
}

/* The pools and profiles the statements define (the last defined of
 * each sets the count: a gap is refused by ibex_cbfc_conf_check() as a
 * pool of no credits, and before that by check_cbfc_pools()). */
static void
cbfc_conf_pools(const struct ibex_conf_port *p, struct ibex_cbfc_conf *c)
{
	const struct ibex_conf_cbfc_profile *f;
	unsigned int i;

	for (i = 0; i < IBEX_CBFC_MAX_POOLS; i++) {
		c->pool_size[i] = p->cbfc_pool_size[i];
		if (p->cbfc_pool_size[i] != 0)
			c->n_pools = (uint8_t)(i + 1);
	}
	for (i = 0; i < IBEX_CBFC_MAX_PROFILES; i++) {
		f = &p->cbfc_profile[i];
		if (!f->set)
			continue;
		c->n_profiles = (uint8_t)(i + 1);
		c->profile[i].pool = f->pool;
		c->profile[i].th_mode = f->th_mode;
		c->profile[i].dyn_th = f->dyn_th;
		c->profile[i].reserved = f->reserved;
		c->profile[i].static_th = f->static_th;
	}
	for (i = 0; i < c->n_vcs && i < IBEX_VL_COUNT; i++)
		if (p->cbfc_vc_profile[i] != 0)
			c->vc_profile[i] = (uint8_t)(p->cbfc_vc_profile[i] - 1);
}

/* The most credits VC @p v's profile lets it hold: its reserved and all
 * its pool (0 without a profile). A bound on what it has in flight. */
static uint32_t
cbfc_vc_most(const struct ibex_cbfc_conf *c, unsigned int v)
{
	const struct ibex_cbfc_profile *f;
	uint64_t most;

	if (c->vc_profile[v] >= c->n_profiles)
		return 0;
	f = &c->profile[c->vc_profile[v]];
	most = (uint64_t)f->reserved + (f->pool < c->n_pools ?
					c->pool_size[f->pool] : c->port_limit);
	return most < IBEX_CBFC_MASK ? (uint32_t)most : IBEX_CBFC_MASK;
}

int
ibex_conf_port_cbfc(const struct ibex_conf_port *p, struct ibex_cbfc_conf *c,
		    char *err, size_t errlen)
{
	uint32_t charge = cbfc_credit_charge(p), own;
	unsigned int v;

	ibex_cbfc_conf_default(c, p->nb_vls != 0 ? p->nb_vls : 1);
	c->credit_size = (uint16_t)p->cbfc_credit_size;
	c->overhead = p->cbfc_overhead;
	c->cc_timer_us = p->cbfc_cc_timer_us;
	c->cf_min_spacing = p->cbfc_cf_min_spacing;
	c->cf_max_spacing = p->cbfc_cf_max_spacing;
	c->cf_refreshes = (uint8_t)p->cbfc_cf_refreshes;
	c->port_limit = p->cbfc_port_limit;
	c->tx_lossless = c->rx_lossless = p->lossless_mask &
		(uint32_t)((UINT64_C(1) << c->n_vcs) - 1);
	cbfc_conf_pools(p, c);
	/* What a CC_Update may free: at most what the peer may have in
	 * flight on a VC (the largest limit), never what it may not. */
	c->rx_total = 1;
	for (v = 0; v < c->n_vcs; v++) {
		if (!(c->tx_lossless >> v & 1))
			continue;
		own = (uint32_t)((uint64_t)ibex_conf_lane_reserved_blocks(p, v) *
				 IBEX_BLOCK_BYTES / charge);
		c->vc_limit[v] = p->cbfc_limit != 0 ? p->cbfc_limit : own;
		/* What a CC_Update may free: what the peer may have in
		 * flight on the VC. */
		if (c->vc_limit[v] > c->rx_total)
			c->rx_total = c->vc_limit[v];
		if (own > c->rx_total)
			c->rx_total = own;
		if (cbfc_vc_most(c, v) > c->rx_total)
			c->rx_total = cbfc_vc_most(c, v);
	}
	return ibex_cbfc_conf_check(c, err, errlen);
}

/* Every lossless VC's limit holds the port's largest frame: a frame of
 * more credits could never pass the send rule, and its lane would wait
 * for good behind it. */
static int
check_cbfc_frame(struct conf_ctx *x, const struct ibex_conf_port *q,
		 const struct ibex_cbfc_conf *cc)
{
	struct ibex_cbfc_port p;
	uint32_t frame = ibex_conf_port_frame_bytes(q), need;
	unsigned int v;

	if (ibex_cbfc_port_init(&p, cc, 0) < 0)
		return conf_err(x, "cbfc: refused");
	need = ibex_cbfc_credits(&p, frame);
	for (v = 0; v < cc->n_vcs; v++) {
		if (!(cc->tx_lossless >> v & 1) || ibex_cbfc_tx_ok(&p, v, need))
			continue;
		if (p.tx[v].profiled) {
			check_at(x, q, lmax(q->cbfc_vc_line[v],
					    q->cbfc_profile_line[cc->vc_profile[v]]));
			return conf_err(x, "cbfc vc %u: profile %u lets no "
					"%u-byte frame (%u credits of %u bytes) "
					"go, even with its pool unused", v,
					cc->vc_profile[v], frame, need,
					cc->credit_size);
		}
		if (cc->port_limit != 0 && cc->port_limit < need)
			return conf_err(x, "cbfc port-limit %u holds no %u-byte "
					"frame (%u credits of %u bytes)",
					cc->port_limit, frame, need,
					cc->credit_size);
		return conf_err(x, "lane vl %u: a limit of %u credits "
				"holds no %u-byte frame (%u credits of "
				"%u bytes): give the lane more reserved, "
				"or cbfc limit", v, cc->vc_limit[v],
				frame, need, cc->credit_size);
	}
	return 0;
}

/* Pools and profiles numbered from 0 without a gap (@p set: is entry i
 * defined), each reported at the later of the two statements. */
static int
check_cbfc_gaps(struct conf_ctx *x, const struct ibex_conf_port *q,
		const char *what, unsigned int n, const int *line,
		bool (*set)(const struct ibex_conf_port *, unsigned int))
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (set(q, i))
			continue;
		for (j = i + 1; j < n && !set(q, j); j++)
			;
		if (j == n)
			return 0;
		check_at(x, q, lmax(line[i], line[j]));
		return conf_err(x, "cbfc %s %u: %ss are numbered from 0, and "
				"%s %u is not defined", what, j, what, what, i);
	}
	return 0;
}

static bool
cbfc_pool_set(const struct ibex_conf_port *q, unsigned int i)
{
	return q->cbfc_pool_size[i] != 0;
}

static bool
cbfc_profile_set(const struct ibex_conf_port *q, unsigned int i)
{
	return q->cbfc_profile[i].set;
}

/* What each profile and VC names exists. */
static int
check_cbfc_refs(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	const struct ibex_conf_cbfc_profile *f;
	unsigned int i, pf;

	for (i = 0; i < IBEX_CBFC_MAX_PROFILES; i++) {
		f = &q->cbfc_profile[i];
		if (!f->set)
			continue;
		check_at(x, q, q->cbfc_profile_line[i]);
		if (f->pool == IBEX_CBFC_PORT_POOL && q->cbfc_port_limit == 0)
			return conf_err(x, "cbfc profile %u: pool port shares "
					"the port's credits, but the port has "
					"no port-limit", i);
		if (f->pool != IBEX_CBFC_PORT_POOL &&
		    q->cbfc_pool_size[f->pool] == 0) {
			check_at(x, q, lmax(q->cbfc_profile_line[i],
					    q->cbfc_pool_line[f->pool]));
			return conf_err(x, "cbfc profile %u: pool %u is not "
					"defined", i, f->pool);
		}
	}
	for (i = 0; i < IBEX_VL_COUNT; i++) {
		if (q->cbfc_vc_profile[i] == 0)
			continue;
		pf = q->cbfc_vc_profile[i] - 1u;
		check_at(x, q, lmax(q->cbfc_vc_line[i], q->vls_line));
		if (i >= q->nb_vls)
			return conf_err(x, "cbfc vc %u: the port has VCs 0..%u "
					"(vls %u)", i, q->nb_vls - 1u,
					q->nb_vls);
		check_at(x, q, lmax(q->cbfc_vc_line[i], q->lane_line[i]));
		if (!(q->lossless_mask >> i & 1))
			return conf_err(x, "cbfc vc %u: lane vl %u is not "
					"lossless: a profile shares credits "
					"among lossless VCs", i, i);
		if (!q->cbfc_profile[pf].set) {
			check_at(x, q, lmax(q->cbfc_vc_line[i],
					    q->cbfc_profile_line[pf]));
			return conf_err(x, "cbfc vc %u: profile %u is not "
					"defined", i, pf);
		}
	}
	return 0;
}

/* The pools, profiles and VCs' profiles of a CBFC port, each refusal at
 * the statements involved; ibex_cbfc_conf_check() does the sums. */
static int
check_cbfc_pools(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	int ret;

	ret = check_cbfc_gaps(x, q, "pool", IBEX_CBFC_MAX_POOLS,
			      q->cbfc_pool_line, cbfc_pool_set);
	if (ret == 0)
		ret = check_cbfc_gaps(x, q, "profile", IBEX_CBFC_MAX_PROFILES,
				      q->cbfc_profile_line, cbfc_profile_set);
	if (ret == 0)
		ret = check_cbfc_refs(x, q);
	return ret;
}

/* The CBFC settings of a CBFC port, against SAI's ranges and the lanes. */
static int
check_port_cbfc(struct conf_ctx *x, const struct ibex_conf *c,
		const struct ibex_conf_port *q)
{
	struct ibex_cbfc_conf cc;
	char why[160];
	unsigned int v;

	if (q->fc_mode != IBEX_FC_CBFC)
		return 0;
	check_at(x, q, lmax(q->cbfc_line, q->fc_mode_line));
	if (c->nb_workers > 1)
		return conf_err(x, "fc cbfc runs on one worker (switch "
				"workers %u): several workers are not "
				"implemented yet", c->nb_workers);
	/* Several RX queues (RSS) would let a CC_Update overtake the data it
	 * counts: the receiver would free their credits twice. */
	if (q->rx_queues > 1)
		return conf_err(x, "fc cbfc needs one RX queue (rx-queues %u): "
				"a CC_Update must not pass the frames it counts",
				q->rx_queues);
	for (v = 0; v < q->nb_vls && v < IBEX_VL_COUNT; v++)
		if ((q->lossless_mask >> v & 1) && q->cbfc_limit == 0 &&
		    (uint64_t)ibex_conf_lane_reserved_blocks(q, v) *
		    IBEX_BLOCK_BYTES < cbfc_credit_charge(q)) {
			check_at(x, q, lmax(lmax(q->cbfc_line, q->lane_line[v]),
					    q->fc_mode_line));
			return conf_err(x, "lane vl %u: its reserved share "
					"holds no %u-byte credit (limit auto)",
					v, q->cbfc_credit_size);
		}
	if (check_cbfc_pools(x, q) != 0)
		return -EINVAL;
	check_at(x, q, lmax(q->cbfc_line, q->fc_mode_line));
	if (ibex_conf_port_cbfc(q, &cc, why, sizeof(why)) < 0)
		return conf_err(x, "cbfc: %s", why);
	return check_cbfc_frame(x, q, &cc);
}

/* PFC timing and thresholds of a PFC port. */
static int
check_port_pfc(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	uint64_t rate_mbps = ibex_conf_port_rate_bps(q) / 1000000;
	uint64_t pause_ns;
	char a[24], b[24];

	if (q->fc_mode != IBEX_FC_PFC)
		return 0;
	check_at(x, q, lmax(q->pfc_line, q->fc_mode_line));
	if (rate_mbps == 0)
		return conf_err(x, "speed below 1 Mb/s: PFC needs the rate");
	pause_ns = ibex_pfc_quanta_to_ns(q->pfc_quanta, rate_mbps);
	if ((uint64_t)q->pfc_refresh_margin_us * 1000 >= pause_ns)
		return conf_err(x, "refresh-margin-us %u is not below the "
				"pause of %u quanta (%" PRIu64 " ns at %" PRIu64
				" Mb/s)", q->pfc_refresh_margin_us,
				q->pfc_quanta, pause_ns, rate_mbps);
	if (q->pfc_xoff_blocks != 0 &&
	    q->pfc_xon_gap_blocks >= q->pfc_xoff_blocks)
		return conf_err(x, "xon gap %s is not below xoff %s",
				conf_size_str((uint64_t)q->pfc_xon_gap_blocks *
					      IBEX_BLOCK_BYTES, a, sizeof(a)),
				conf_size_str((uint64_t)q->pfc_xoff_blocks *
					      IBEX_BLOCK_BYTES, b, sizeof(b)));
	return 0;
}

/* Trimmed frames leave on a lossy lane the port has. */
static int
check_port_trim(struct conf_ctx *x, const struct ibex_conf_port *p)
{
	if (p->trim_size == 0)
		return 0;
	x->lineno = p->trim_line;
	if (p->trim_vl >= p->nb_vls)
		return conf_err(x, "trim vl %u: the port has %u VLs", p->trim_vl,
				p->nb_vls);
	if (p->lossless_mask >> p->trim_vl & 1)
		return conf_err(x, "trim vl %u is lossless: trimmed frames take "
				"a lossy lane", p->trim_vl);
	return 0;
}

/* Every data lane's ECN curve, as the data path will build it with
 * whatever clock it runs on (ibex_ecn_cfg_check(): no clock here). */
static int
check_port_ecn(struct conf_ctx *x, const struct ibex_conf_port *q)
{
	const char *msg = NULL;
	unsigned int v;

	for (v = 0; v < IBEX_VL_DATA_MAX; v++) {
		if (ibex_ecn_cfg_check(&q->ecn[v].cfg, &msg) == 0)
			continue;
		check_at(x, q, q->ecn[v].line);
		if (msg == NULL)
			msg = "invalid";
		if (strncmp(msg, "ecn: ", 5) == 0)
			msg += 5;
		return conf_err(x, "ecn vl %u: %s", v, msg);
	}
	return 0;
}

static int
check_port(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_port *p = &c->ports[i];
	int ret;

	x->lineno = p->line;
	snprintf(x->what, sizeof(x->what), "port %s", p->name);
	if (!conf_name_ok(p->name))
		return conf_err(x, "invalid name");
	ret = check_ranges(x, KEYS(conf_port_keys), p);
	if (ret == 0)
		ret = check_ranges(x, KEYS(conf_credit_keys), p);
	if (ret == 0)
		ret = check_ranges(x, KEYS(conf_pfc_keys), p);
	if (ret == 0)
		ret = check_ranges(x, KEYS(conf_cbfc_keys), p);
	if (ret == 0)
		ret = check_port_unique(x, c, i);
	if (ret != 0)
		return ret;
	if (ibex_conf_port_in_vlan(p, 0) || ibex_conf_port_in_vlan(p, 4095))
		return conf_err(x, "vlans include reserved id 0 or 4095");
	if (!ibex_conf_port_in_vlan(p, p->pvid))
		return conf_err(x, "pvid %u is not in its vlans", p->pvid);
	if (p->lldp_to == i || p->stp_to == i)
		return conf_err(x, "%s names the port itself",
				p->lldp_to == i ? "lldp-to" : "stp-to");
	if ((p->lldp_to != IBEX_PORT_NONE && p->lldp_to >= c->nb_ports) ||
	    (p->stp_to != IBEX_PORT_NONE && p->stp_to >= c->nb_ports))
		return conf_err(x, "lldp-to/stp-to names no port");
	/* the tables as complete as ibex_conf_finish() leaves them */
	ret = check_port_vl(x, p);
	if (ret == 0)
		ret = check_port_lossless(x, p);
	if (ret == 0)
		ret = check_port_pfc(x, p);
	if (ret == 0)
		ret = check_port_cbfc(x, c, p);
	if (ret == 0)
		ret = check_port_ecn(x, p);
	if (ret == 0)
		ret = check_port_trim(x, p);
	return ret;
}

/* Blocks ibex_buf_init() carves off the top for reserved and headroom. */
static uint64_t
conf_buf_carved(const struct ibex_buf_conf *b)
{
	uint64_t carved = 0;
	unsigned int p, v, n;

	for (p = 0; p < b->n_ports; p++) {
		const struct ibex_buf_port_conf *pc = &b->port[p];

		n = pc->n_vls != 0 ? pc->n_vls : IBEX_BUF_MAX_VLS;
		for (v = 0; v < n && v < IBEX_BUF_MAX_VLS; v++) {
			carved += pc->reserved_per_vl ? pc->reserved_vl[v] :
							pc->reserved_blocks;
			if (pc->mode == IBEX_FC_PFC && (pc->lossless_mask >> v & 1))
				carved += pc->headroom_blocks;
		}
	}
	return carved;
}

uint64_t
ibex_conf_buffer_carved_blocks(const struct ibex_conf *c)
{
	struct ibex_buf_conf bc;

	if (ibex_conf_buf_conf(c, &bc) != 0)
		return 0;
	return conf_buf_carved(&bc);
}

/* Reserved shares and headroom fit the buffer: build the layout the data
 * path will build. Named at the last statement that could have changed
 * it (a buffer statement or one naming a port). */
static int
check_buffer(struct conf_ctx *x, const struct ibex_conf *c)
{
	struct ibex_buf_conf bc;
	struct ibex_buf *b;
	char need[24], have[24];
	int line = c->buffer_line;
	uint16_t i;
	int ret;

	if (c->nb_ports == 0)
		return 0;
	for (i = 0; i < c->nb_ports; i++)
		line = lmax(line, c->ports[i].touch_line);
	x->lineno = line;
	snprintf(x->what, sizeof(x->what), "buffer");
	ret = ibex_conf_buf_conf(c, &bc);
	if (ret != 0)
		return conf_err(x, "cannot lay out the buffer");
	b = malloc(sizeof(*b));
	if (b == NULL) {
		conf_err(x, "out of memory");
		return -ENOMEM;
	}
	ret = ibex_buf_init(b, &bc);
	free(b);
	if (ret == -ENOSPC)
		return conf_err(x, "reserved and headroom need %s, more than "
				"total %s",
				conf_size_str(conf_buf_carved(&bc) *
					      IBEX_BLOCK_BYTES, need,
					      sizeof(need)),
				conf_size_str((uint64_t)c->buffer_blocks *
					      IBEX_BLOCK_BYTES, have,
					      sizeof(have)));
	if (ret != 0)
		return conf_err(x, "cannot lay out the buffer");
	return 0;
}

static int
static_dup_err(struct conf_ctx *x, const struct ibex_conf *c,
	       const struct ibex_conf_fdb_static *t)
{
	return conf_err(x, "already on %s %s (line %d)",
			ibex_egress_is_ecmp(t->port) ? "ecmp group" : "port",
			ibex_conf_egress_name(c, t->port), t->line);
}

static bool
static_same_key(const struct ibex_conf_fdb_static *a,
		const struct ibex_conf_fdb_static *b)
{
	return a->vid == b->vid && memcmp(a->mac, b->mac, 6) == 0;
}

/* Validate's index of the static entries (struct conf_ctx): a fabric
 * switch holds one per rank, and comparing 10,000 entries pairwise on
 * each of 1,440 switches took longer than the run. Without memory, the
 * pairwise check. */
static void
static_index_init(struct conf_ctx *x, const struct ibex_conf *c)
{
	uint32_t n = 64;

	while (n < 2u * c->nb_static)
		n *= 2;
	x->static_cell = calloc(n, sizeof(*x->static_cell));
	x->static_cells = x->static_cell != NULL ? n : 0;
}

static uint32_t
static_hash(const struct ibex_conf_fdb_static *s)
{
	uint32_t h = 2166136261u ^ s->vid; /* FNV-1a */
	unsigned int k;

	for (k = 0; k < 6; k++)
		h = (h ^ s->mac[k]) * 16777619u;
	return h;
}

/* A (mac, vid) may be listed twice only with the same port. Every entry
 * of a key before @p i has the first one's port (else it was refused),
 * so the first is the one to compare with. */
static int
check_static_dup(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_fdb_static *s = &c->statics[i];
	uint32_t m, cell;
	uint16_t j;

	if (x->static_cell == NULL) {
		for (j = 0; j < i; j++)
			if (static_same_key(&c->statics[j], s) &&
			    c->statics[j].port != s->port)
				return static_dup_err(x, c, &c->statics[j]);
		return 0;
	}
	m = x->static_cells - 1;
	for (cell = static_hash(s) & m; x->static_cell[cell] != 0;
	     cell = (cell + 1) & m) {
		const struct ibex_conf_fdb_static *t =
			&c->statics[x->static_cell[cell] - 1];

		if (static_same_key(t, s))
			return t->port != s->port ? static_dup_err(x, c, t) : 0;
	}
	x->static_cell[cell] = (uint16_t)(i + 1);
	return 0;
}

/* The table's room and the duplicates, for entry @p i of any kind. */
static int
check_static_count(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	if (i >= c->fdb_max_entries)
		return conf_err(x, "more static entries than fdb "
				"max-entries %u", c->fdb_max_entries);
	return check_static_dup(x, c, i);
}

/* Every member of the entry's group carries its VLAN. */
static int
check_static_ecmp(struct conf_ctx *x, const struct ibex_conf *c,
		  const struct ibex_conf_fdb_static *s)
{
	const struct ibex_conf_ecmp *e;
	uint16_t i;

	if ((s->port & 0xff) >= c->nb_ecmp)
		return conf_err(x, "ecmp group %u does not exist",
				s->port & 0xff);
	e = &c->ecmp[s->port & 0xff];
	for (i = 0; i < e->n; i++)
		if (!ibex_conf_port_in_vlan(&c->ports[e->ports[i]], s->vid))
			return conf_err(x, "port %s of ecmp group %s is not a "
					"member of vlan %u",
					c->ports[e->ports[i]].name, e->name,
					s->vid);
	return 0;
}

static int
check_static(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_fdb_static *s = &c->statics[i];
	char mac[18];
	int ret;

	conf_mac_str(s->mac, mac, sizeof(mac));
	x->lineno = s->line;
	snprintf(x->what, sizeof(x->what), "fdb static %s vlan %u", mac,
		 s->vid);
	if (s->vid < CONF_VID_MIN || s->vid > CONF_VID_MAX)
		return conf_err(x, "vlan %u out of range %d..%d", s->vid,
				CONF_VID_MIN, CONF_VID_MAX);
	if (ibex_egress_is_ecmp(s->port)) {
		ret = check_static_ecmp(x, c, s);
	} else if (s->port >= c->nb_ports) {
		ret = conf_err(x, "port %u does not exist", s->port);
	} else if (!ibex_conf_port_in_vlan(&c->ports[s->port], s->vid)) {
		ret = conf_err(x, "port %s is not a member of vlan %u",
			       c->ports[s->port].name, s->vid);
	} else {
		ret = 0;
	}
	return ret != 0 ? ret : check_static_count(x, c, i);
}

/* Members that exist, none twice (a group built by code, not parsed). */
static int
check_ecmp(struct conf_ctx *x, const struct ibex_conf *c, uint16_t g)
{
	const struct ibex_conf_ecmp *e = &c->ecmp[g];
	uint64_t seen = 0;
	uint16_t i;

	x->lineno = e->line;
	snprintf(x->what, sizeof(x->what), "ecmp %s", e->name);
	if (e->n == 0 || e->n > IBEX_ECMP_MAX_MEMBERS)
		return conf_err(x, "%u members (1..%d)", e->n,
				IBEX_ECMP_MAX_MEMBERS);
	for (i = 0; i < e->n; i++) {
		if (e->ports[i] >= c->nb_ports)
			return conf_err(x, "port %u does not exist",
					e->ports[i]);
		if ((seen >> e->ports[i]) & 1)
			return conf_err(x, "port %s named twice",
					c->ports[e->ports[i]].name);
		seen |= UINT64_C(1) << e->ports[i];
	}
	return 0;
}

/* An aggregation job: its ports exist, its parent is not a child, and
 * the switch has a pool for it. */
static int
check_agg_job(struct conf_ctx *x, const struct ibex_conf *c, uint16_t k)
{
	const struct ibex_conf_agg_job *j = &c->agg_jobs[k];
	uint16_t i;

	x->lineno = j->line;
	snprintf(x->what, sizeof(x->what), "aggregation job %u", j->id);
	if (c->agg_pool_bytes == 0)
		return conf_err(x, "no slot memory: add 'aggregation pool "
				"<size>'");
	if (j->n_children == 0 || j->n_children > IBEX_AGG_MAX_CHILDREN)
		return conf_err(x, "%u children (1..%d)", j->n_children,
				IBEX_AGG_MAX_CHILDREN);
	if (j->slots == 0 || j->elements == 0 ||
	    j->elements > IBEX_AGG_MAX_ELEMS)
		return conf_err(x, "slots %u, elements %u (1..%d)", j->slots,
				j->elements, IBEX_AGG_MAX_ELEMS);
	if (j->parent != IBEX_PORT_NONE && j->parent >= c->nb_ports)
		return conf_err(x, "parent port %u does not exist", j->parent);
	for (i = 0; i < j->n_children; i++) {
		if (j->children[i] >= c->nb_ports)
			return conf_err(x, "port %u does not exist",
					j->children[i]);
		if (j->children[i] == j->parent)
			return conf_err(x, "port %s is both a child and the "
					"parent", c->ports[j->parent].name);
	}
	return 0;
}

int
ibex_conf_validate(const struct ibex_conf *c, char *err, size_t errlen)
{
	struct conf_ctx x = { .err = err, .errlen = errlen };
	uint16_t i;
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL)
		return -EINVAL;
	x.origin = c->origin[0] != '\0' ? c->origin : "<config>";
	ret = check_globals(&x, c);
	for (i = 0; ret == 0 && i < c->nb_ports; i++)
		ret = check_port(&x, c, i);
	for (i = 0; ret == 0 && i < c->nb_ecmp; i++)
		ret = check_ecmp(&x, c, i);
	if (ret == 0 && c->nb_static > 64)
		static_index_init(&x, c);
	for (i = 0; ret == 0 && i < c->nb_static; i++)
		ret = check_static(&x, c, i);
	free(x.static_cell);
	for (i = 0; ret == 0 && i < c->nb_agg_jobs; i++)
		ret = check_agg_job(&x, c, i);
	if (ret == 0)
		ret = check_buffer(&x, c);
	return ret;
}

/* A (mac, vid) listed twice on the same port is one entry: keep the
 * first, so `add fdb` repeated, or a file that says it twice, holds it
 * once and counts once against fdb max-entries. On another port it stays,
 * for validate to refuse. In one pass with an index, as a fabric switch
 * lists one entry per rank; without memory, left as is (a duplicate is
 * harmless to the tables). */
static void
conf_statics_dedupe(struct ibex_conf *c)
{
	uint32_t cells = 64, m, cell;
	uint16_t *index, i, n = 0;

	while (cells < 2u * c->nb_static)
		cells *= 2;
	index = calloc(cells, sizeof(*index));
	if (index == NULL)
		return;
	m = cells - 1;
	for (i = 0; i < c->nb_static; i++) {
		const struct ibex_conf_fdb_static *s = &c->statics[i];
		bool dup = false;

		for (cell = static_hash(s) & m; index[cell] != 0;
		     cell = (cell + 1) & m) {
			const struct ibex_conf_fdb_static *t =
				&c->statics[index[cell] - 1];

			if (static_same_key(t, s)) {
				dup = t->port == s->port;
				break;
			}
		}
		if (dup)
			continue;
		/* (a same key on another port stays unindexed) */
		if (index[cell] == 0)
			index[cell] = (uint16_t)(n + 1);
		c->statics[n++] = *s;
	}
	c->nb_static = n;
	free(index);
}

int
ibex_conf_finish(struct ibex_conf *c, char *err, size_t errlen)
{
	int ret;

	if (c == NULL)
		return -EINVAL;
	conf_tables_all(c);
	if (c->nb_static > 1)
		conf_statics_dedupe(c);
	ret = ibex_conf_validate(c, err, errlen);
	c->finished = ret == 0;
	return ret;
}

/* ---- restart-only settings ---- */

static void diff_note(char *buf, size_t len, unsigned int *n,
		      const char *prefix, const char *name);

/* Append the CK_RESTART keys of a table whose fields differ between
 * @p a and @p b to @p buf, each as "<prefix> <key>". */
static void
restart_keys_at(const struct conf_key *keys, size_t nkeys, const void *a,
		const void *b, const char *prefix, char *buf, size_t len,
		unsigned int *n, const int *lines, int *line);

static void
restart_keys(const struct conf_key *keys, size_t nkeys, const void *a,
	     const void *b, const char *prefix, char *buf, size_t len,
	     unsigned int *n)
{
	restart_keys_at(keys, nkeys, a, b, prefix, buf, len, n, NULL, NULL);
}

/* The same, and the first of @p lines (per key, in @p b; 0: not set
 * there) of a key that differs into *@p line when it holds none yet. */
static void
restart_keys_at(const struct conf_key *keys, size_t nkeys, const void *a,
		const void *b, const char *prefix, char *buf, size_t len,
		unsigned int *n, const int *lines, int *line)
{
	const char *pa = a, *pb = b;
	size_t i, j;

	for (i = 0; i < nkeys; i++) {
		const struct conf_key *k = &keys[i];

		if (!(k->flags & CK_RESTART))
			continue;
		/* keys of one field (lossless/lossy) are named once */
		for (j = 0; j < i && keys[j].off != k->off; j++)
			;
		if (j < i || memcmp(pa + k->off, pb + k->off, k->size) == 0)
			continue;
		if ((k->flags & CK_RUNNING) &&
		    (conf_load(a, k) == 0 || conf_load(b, k) == 0))
			continue;
		diff_note(buf, len, n, prefix, k->name);
		if (lines != NULL && *line <= 0)
			*line = lines[i];
	}
}

/* The cbfc pools, profiles and VCs' profiles that differ, each as the
 * statement that sets it ("cbfc pool 1"): all restart-only, as every
 * cbfc key (the state machines are built once). */
static void
cbfc_pools_diff(const struct ibex_conf_port *a, const struct ibex_conf_port *b,
		char *buf, size_t len, unsigned int *n)
{
	char what[24];
	unsigned int i;

	for (i = 0; i < IBEX_CBFC_MAX_POOLS; i++) {
		if (a->cbfc_pool_size[i] == b->cbfc_pool_size[i])
			continue;
		snprintf(what, sizeof(what), "pool %u", i);
		diff_note(buf, len, n, "cbfc", what);
	}
	for (i = 0; i < IBEX_CBFC_MAX_PROFILES; i++) {
		if (memcmp(&a->cbfc_profile[i], &b->cbfc_profile[i],
			   sizeof(a->cbfc_profile[i])) == 0)
			continue;
		snprintf(what, sizeof(what), "profile %u", i);
		diff_note(buf, len, n, "cbfc", what);
	}
	for (i = 0; i < IBEX_VL_COUNT; i++) {
		if (a->cbfc_vc_profile[i] == b->cbfc_vc_profile[i])
			continue;
		snprintf(what, sizeof(what), "vc %u", i);
		diff_note(buf, len, n, "cbfc", what);
	}
}

/* The restart-only settings of one port that differ, into @p buf. */
static unsigned int
restart_port(const struct ibex_conf_port *a, const struct ibex_conf_port *b,
	     char *buf, size_t len)
{
	unsigned int n = 0, v;

	buf[0] = '\0';
	restart_keys(KEYS(conf_port_keys), a, b, "", buf, len, &n);
	restart_keys(KEYS(conf_credit_keys), a, b, "credit", buf, len, &n);
	restart_keys(KEYS(conf_pfc_keys), a, b, "pfc", buf, len, &n);
	restart_keys(KEYS(conf_cbfc_keys), a, b, "cbfc", buf, len, &n);
	cbfc_pools_diff(a, b, buf, len, &n);
	if (a->pfc_headroom_auto != b->pfc_headroom_auto &&
	    strstr(buf, "pfc headroom") == NULL)
		diff_note(buf, len, &n, "pfc", "headroom");
	/* lane statements: compared per VL as the statement sets them */
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		struct conf_lane la = {
			.lossless = (uint8_t)(a->lossless_mask >> v & 1),
			.reserved_blocks = a->reserved_blocks[v],
		};
		struct conf_lane lb = {
			.lossless = (uint8_t)(b->lossless_mask >> v & 1),
			.reserved_blocks = b->reserved_blocks[v],
		};
		char pre[16];

		snprintf(pre, sizeof(pre), "lane vl %u", v);
		restart_keys(KEYS(conf_lane_keys), &la, &lb, pre, buf, len,
			     &n);
	}
	return n;
}

int
ibex_conf_restart_check(const struct ibex_conf *a, const struct ibex_conf *b,
			char *err, size_t errlen)
{
	char what[256];
	unsigned int n = 0, m;
	int line = 0;
	uint16_t p;

	if (b->nb_ports != a->nb_ports) {
		snprintf(err, errlen, "ports cannot be added or removed live "
			 "(%u running, %u in the new config)", a->nb_ports,
			 b->nb_ports);
		return -ENOTSUP;
	}
	for (p = 0; p < b->nb_ports; p++) {
		const struct ibex_conf_port *pa = &a->ports[p], *pb = &b->ports[p];

		if (strcmp(pa->name, pb->name) != 0 ||
		    strcmp(ibex_conf_port_dev(pa), ibex_conf_port_dev(pb)) != 0) {
			snprintf(err, errlen, "%s:%d: port %s: ports cannot be "
				 "renamed or moved live", b->origin, pb->line,
				 pb->name);
			return -ENOTSUP;
		}
		n = restart_port(pa, pb, what, sizeof(what));
		if (n == 0)
			continue;
		snprintf(err, errlen, "%s:%d: port %s: %s %s a restart (live: "
			 "credit timers, pfc quanta and watchdog, lanes' "
			 "queues, classes and ECN)", b->origin, pb->line,
			 pb->name, what, n == 1 ? "needs" : "need");
		return -ENOTSUP;
	}
	what[0] = '\0';
	n = 0;
	restart_keys_at(KEYS(conf_switch_keys), a, b, "switch", what,
			sizeof(what), &n, b->switch_key_line, &line);
	restart_keys_at(KEYS(conf_fdb_keys), a, b, "fdb", what, sizeof(what),
			&n, b->fdb_key_line, &line);
	m = n;
	restart_keys(KEYS(conf_buffer_keys), a, b, "buffer", what,
		     sizeof(what), &n);
	if (n > m && line <= 0)
		line = b->buffer_line;
	/* The workers' slot memory is allocated once, at start. */
	if (a->agg_pool_bytes != b->agg_pool_bytes) {
		diff_note(what, sizeof(what), &n, "aggregation", "pool");
		if (line <= 0)
			line = b->agg_pool_line;
	}
	if (n == 0)
		return 0;
	/* The line of the first that differs; none when no line of the
	 * new config sets it (a live statement, or left out). */
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s %s a restart", b->origin,
			 line, what, n == 1 ? "needs" : "need");
	else
		snprintf(err, errlen, "%s %s a restart", what,
			 n == 1 ? "needs" : "need");
	return -ENOTSUP;
}

/* ---- what a port carries ---- */

/* Add @p name to the comma-separated list of differences. */
static void
diff_note(char *buf, size_t len, unsigned int *n, const char *prefix,
	  const char *name)
{
	size_t used = buf != NULL && len > 0 ? strlen(buf) : 0;

	if (buf != NULL && used < len)
		snprintf(buf + used, len - used, "%s%s%s%s",
			 *n > 0 ? ", " : "", prefix, prefix[0] != '\0' ? " " : "",
			 name);
	(*n)++;
}

/* The keys of a table whose fields differ between @p a and @p b. */
static void
diff_keys(const struct conf_key *keys, size_t nkeys, const void *a,
	  const void *b, const char *prefix, char *buf, size_t len,
	  unsigned int *n)
{
	const char *pa = a, *pb = b;
	size_t i, j;

	for (i = 0; i < nkeys; i++) {
		/* keys of one field (lossless/lossy) are named once */
		for (j = 0; j < i && keys[j].off != keys[i].off; j++)
			;
		if (j == i && memcmp(pa + keys[i].off, pb + keys[i].off,
				     keys[i].size) != 0)
			diff_note(buf, len, n, prefix, keys[i].name);
	}
}

/* The port as the data path sees it: complete tables, and nothing of
 * where its settings came from (lines, what a statement gave). A field
 * added to struct ibex_conf_port that only records provenance belongs
 * here, or every reload that names no port is refused. */
static void
diff_effective(const struct ibex_conf_port *p, struct ibex_conf_port *q)
{
	unsigned int v;

	memcpy(q, p, sizeof(*q));
	q->line = q->vl_line = q->fc_line = 0;
	q->dev_line = q->vls_line = q->class_line = 0;
	q->sl2vl_line = q->vlarb_line = q->fc_mode_line = q->pfc_line = 0;
	q->cbfc_line = 0;
	memset(q->cbfc_pool_line, 0, sizeof(q->cbfc_pool_line));
	memset(q->cbfc_profile_line, 0, sizeof(q->cbfc_profile_line));
	memset(q->cbfc_vc_line, 0, sizeof(q->cbfc_vc_line));
	q->touch_line = 0;
	memset(q->lane_line, 0, sizeof(q->lane_line));
	q->vlans_set = q->sl2vl_set = q->vlarb_set = false;
	q->sl2vl_given = 0;
	q->vlarb_given = 0;
	/* Entries past a table's length are not used. */
	memset(q->vlarb.high + q->vlarb.nb_high, 0,
	       sizeof(q->vlarb.high[0]) *
	       (IBEX_VLARB_MAX_ENTRIES - q->vlarb.nb_high));
	memset(q->vlarb.low + q->vlarb.nb_low, 0,
	       sizeof(q->vlarb.low[0]) *
	       (IBEX_VLARB_MAX_ENTRIES - q->vlarb.nb_low));
	/* Field by field: a copy of a small struct need not keep its
	 * padding, which memcmp would see. */
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		struct ibex_conf_ecn e = q->ecn[v];
		struct ibex_conf_ecn *f = &q->ecn[v];

		memset(f, 0, sizeof(*f));
		f->enabled = e.enabled;
		f->fecn = e.fecn;
		f->cfg.kmin = e.cfg.kmin;
		f->cfg.kmax = e.cfg.kmax;
		f->cfg.pmax = e.cfg.pmax;
		f->cfg.wq_log = e.cfg.wq_log;
		f->cfg.rate_bps = e.cfg.rate_bps;
		f->cfg.avpkt = e.cfg.avpkt;
		f->cfg.time_hz = e.cfg.time_hz;
	}
}

unsigned int
ibex_conf_port_diff(const struct ibex_conf_port *a,
		    const struct ibex_conf_port *b, char *buf, size_t len)
{
	struct ibex_conf_port *x, *y;
	unsigned int n = 0, v;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	x = malloc(2 * sizeof(*x));
	if (x == NULL) {
		diff_note(buf, len, &n, "", "(out of memory: not compared)");
		return n;
	}
	y = x + 1;
	diff_effective(a, x);
	diff_effective(b, y);
	diff_keys(KEYS(conf_port_keys), x, y, "", buf, len, &n);
	if (memcmp(x->sl_class.map, y->sl_class.map, sizeof(x->sl_class.map)))
		diff_note(buf, len, &n, "", "pcp2sl/dscp2sl/sl");
	if (memcmp(&x->sl2vl, &y->sl2vl, sizeof(x->sl2vl)) != 0)
		diff_note(buf, len, &n, "", "sl2vl");
	if (memcmp(&x->vlarb, &y->vlarb, sizeof(x->vlarb)) != 0)
		diff_note(buf, len, &n, "", "vlarb");
	if (x->lossless_mask != y->lossless_mask ||
	    memcmp(x->reserved_blocks, y->reserved_blocks,
		   sizeof(x->reserved_blocks)) != 0)
		diff_note(buf, len, &n, "", "lane");
	diff_keys(KEYS(conf_credit_keys), x, y, "credit", buf, len, &n);
	diff_keys(KEYS(conf_trim_keys), x, y, "trim", buf, len, &n);
	if (x->pfc_headroom_auto != y->pfc_headroom_auto)
		diff_note(buf, len, &n, "pfc", "headroom auto");
	diff_keys(KEYS(conf_pfc_keys), x, y, "pfc", buf, len, &n);
	diff_keys(KEYS(conf_cbfc_keys), x, y, "cbfc", buf, len, &n);
	cbfc_pools_diff(x, y, buf, len, &n);
	for (v = 0; v < IBEX_VL_COUNT; v++)
		if (memcmp(&x->ecn[v], &y->ecn[v], sizeof(x->ecn[v])) != 0)
			break;
	if (v < IBEX_VL_COUNT)
		diff_note(buf, len, &n, "", "ecn");
	/* Whatever the lists above do not name yet. */
	if (n == 0 && memcmp(x, y, sizeof(*x)) != 0)
		diff_note(buf, len, &n, "", "other settings");
	free(x);
	return n;
}
