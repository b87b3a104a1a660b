/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CBFC_H
#define IBEX_CBFC_H

/**
 * @file
 * Ultra Ethernet credit-based flow control (UE 1.0 section 5.2, CBFC),
 * with SAI's attributes, defaults, ranges and counters (SAI 1.18, "Credit
 * Based Flow Control"): the pure state machines of one port, both
 * directions, no EAL. docs/cbfc.md has the semantics and what the data
 * path does with them.
 *
 * A credit is credit_size bytes of the receiver's buffer; a frame of len
 * bytes costs ceil((len + overhead) / credit_size) credits. Counters are
 * cyclic, 20 bits, per virtual channel (VC, up to 32 a port):
 *
 *   sender    S_CC  credits consumed (+= a frame's credits as it goes)
 *             S_CF  credits freed, as the receiver last reported them
 *             S_CU  in use = S_CC - S_CF; a frame may go while
 *                   S_CU + credits <= S_CL (the VC's limit, or what its
 *                   credit profile allows of its pool), and the port's
 *                   in-use plus it stays within the port's limit
 *   receiver  R_CC  credits consumed (+= as a frame is stored)
 *             R_CF  credits freed (+= as a frame leaves the buffer)
 *
 * Messages: the receiver returns R_CF in CF_Update (one VC each, an 8-byte
 * ordered set on the wire), at least cf_min_spacing and at most
 * cf_max_spacing byte times apart: the sender sets S_CU -= R_CF - S_CF,
 * S_CF = R_CF. Because the counter is cumulative, a lost CF_Update costs
 * nothing once the next one arrives. The sender sends S_CC of every VC
 * in CC_Update (a 64-byte frame) every cc_timer_us: the receiver frees
 * what it never received (R_CF += S_CC - R_CC, R_CC = S_CC), which
 * recovers the credits of frames the link corrupted or dropped. Both rely
 * on the link delivering data and messages in order, as one link does.
 *
 * Counter values that cannot be (a CF_Update freeing more than the VC has
 * in use, a CC_Update claiming more than the receiver's buffer holds) are
 * counted and ignored, never applied.
 *
 * As lib/credit's IB engine: the configuration (struct ibex_cbfc_conf)
 * is checked once (ibex_cbfc_conf_check()) and immutable after; the state
 * of a port has one writer; per-frame functions are static inline, the
 * others housekeeping. Time (ns) and link byte times are passed in.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Cyclic counters: 20 bits. */
#define IBEX_CBFC_MOD  (UINT32_C(1) << 20)
#define IBEX_CBFC_MASK (IBEX_CBFC_MOD - 1)
/** Most VCs a port has (SAI_VIRTUAL_CHANNEL_ATTR_INDEX 0..31). */
#define IBEX_CBFC_MAX_VCS 32
/** Most credit pools and credit profiles of a port (ibex's bounds). */
#define IBEX_CBFC_MAX_POOLS 4
#define IBEX_CBFC_MAX_PROFILES 8
/** Traffic classes and queues the TC -> VC and queue -> VC maps cover. */
#define IBEX_CBFC_MAX_TCS 16

/* SAI's defaults and ranges (SAI_PORT_ATTR_CBFC_*). */
#define IBEX_CBFC_CREDIT_SIZE_DEF 128     /**< SENDER_CREDIT_SIZE, bytes */
#define IBEX_CBFC_CREDIT_SIZE_MIN 16      /**< ibex's bounds */
#define IBEX_CBFC_CREDIT_SIZE_MAX 4096
#define IBEX_CBFC_OVERHEAD_MIN (-16)      /**< PACKET_OVERHEAD, bytes */
#define IBEX_CBFC_OVERHEAD_MAX 127
#define IBEX_CBFC_CC_TIMER_US_DEF 256     /**< CC_MESSAGE_TIMER */
#define IBEX_CBFC_CC_TIMER_US_MAX 250000
#define IBEX_CBFC_CF_MIN_SPACING_DEF 6400 /**< CF_MIN_SPACING, bytes */
#define IBEX_CBFC_CF_MIN_SPACING_MIN 800
#define IBEX_CBFC_CF_MAX_SPACING_DEF 262144 /**< CF_MAX_SPACING, bytes */
#define IBEX_CBFC_CF_MAX_SPACING_MIN 16384
#define IBEX_CBFC_CF_MAX_SPACING_MAX 1048576
#define IBEX_CBFC_CF_MAX_SPACING_STEP 16384
/** Refreshes of a count that stopped moving, on shim frames (ibex's:
 * each costs a frame; three lost in a row at 10^-3 is 10^-9). */
#define IBEX_CBFC_CF_REFRESHES_SHIM 3
/** Dynamic shared threshold 2^n of the pool's free credits: n's range. */
#define IBEX_CBFC_DYN_TH_MIN (-7)
#define IBEX_CBFC_DYN_TH_MAX 7
/** A profile's pool: the port's credit limit as one pool. */
#define IBEX_CBFC_PORT_POOL 0xff
/** A VC's profile: none (the receiver's per-VC limit applies). */
#define IBEX_CBFC_NO_PROFILE 0xff

/** How a VC reaches its pool's shared credits
 * (SAI_CBFC_CREDIT_PROFILE_THRESHOLD_MODE_*). */
enum ibex_cbfc_th_mode {
	IBEX_CBFC_TH_NONE = 0, /**< reserved credits only */
	IBEX_CBFC_TH_STATIC,   /**< up to static_th shared credits (0: any) */
	IBEX_CBFC_TH_DYNAMIC,  /**< up to 2^dyn_th x the pool's free credits */
};

/** A credit profile: how the sender shares a pool among VCs. */
struct ibex_cbfc_profile {
	uint8_t pool;          /**< pool index, or IBEX_CBFC_PORT_POOL */
	uint8_t th_mode;       /**< enum ibex_cbfc_th_mode */
	int8_t dyn_th;         /**< DYNAMIC: n of 2^n */
	uint32_t reserved;     /**< credits only this VC uses */
	uint32_t static_th;    /**< STATIC: shared credits at most, 0 = any */
};

/** One port's CBFC configuration (both directions), as SAI gives it. */
struct ibex_cbfc_conf {
	uint16_t credit_size;     /**< bytes */
	int16_t overhead;         /**< bytes added to a frame's length */
	uint8_t n_vcs;            /**< VCs 0..n_vcs-1 exist, 1..32 */
	uint32_t tx_lossless;     /**< VCs whose sender is enabled */
	uint32_t rx_lossless;     /**< VCs whose receiver is enabled */
	uint32_t port_limit;      /**< S_CL_p, credits; 0 = no port limit */
	uint32_t rx_total;        /**< the receiver's buffer, credits: bounds
				       what a CC_Update may free */
	uint32_t cc_timer_us;     /**< CC_Update period; 0 = off (ibex's,
				       for experiments: SAI's is 1..250000) */
	uint32_t cf_min_spacing;  /**< byte times between CF_Updates, least */
	uint32_t cf_max_spacing;  /**< and most (a refresh) */
	uint8_t cf_refreshes;     /**< refreshes of a count that stopped
				       moving: 0 = forever (the PCS's ordered
				       sets cost nothing); N: N, then none
				       until it moves (ibex's, for shim
				       frames, each of which costs a frame) */
	uint32_t vc_limit[IBEX_CBFC_MAX_VCS];  /**< S_CL_vc without profile */
	uint8_t vc_profile[IBEX_CBFC_MAX_VCS]; /**< or IBEX_CBFC_NO_PROFILE */
	uint8_t n_pools;
	uint32_t pool_size[IBEX_CBFC_MAX_POOLS]; /**< credits */
	uint8_t n_profiles;
	struct ibex_cbfc_profile profile[IBEX_CBFC_MAX_PROFILES];
	uint8_t tc_vc[IBEX_CBFC_MAX_TCS];    /**< receiver: TC -> VC */
	uint8_t queue_vc[IBEX_CBFC_MAX_TCS]; /**< sender: queue -> VC */
};

/** Sender state of one VC. */
struct ibex_cbfc_tx_vc {
	uint32_t cc;        /**< S_CC, 20 bits */
	uint32_t cf;        /**< S_CF, 20 bits */
	uint32_t cu;        /**< S_CU = S_CC - S_CF */
	uint32_t limit;     /**< S_CL_vc (no profile) */
	uint32_t reserved;  /**< the profile's (0 without) */
	uint8_t pool;       /**< index into ibex_cbfc_port::pool */
	uint8_t th_mode;
	int8_t dyn_th;
	bool profiled;
	uint32_t static_th;
};

/** Receiver state of one VC. */
struct ibex_cbfc_rx_vc {
	uint32_t cc;        /**< R_CC, 20 bits */
	uint32_t cf;        /**< R_CF, 20 bits */
	uint32_t cf_sent;   /**< R_CF in the last CF_Update of this VC */
	uint64_t cf_bytes;  /**< byte time of that CF_Update */
	uint8_t refreshes_left; /**< cf_refreshes: refreshes still due */
	bool unsent;        /**< the last one did not go: due again */
};

/** What a pool has left to share (sender side). */
struct ibex_cbfc_pool {
	uint32_t shared;    /**< size less the reserved credits on it */
	uint32_t used;      /**< shared credits in use */
};

/** Counters with SAI's names (sai_port_stat_t, sai_virtual_channel_stat_t)
 * and ibex's own; one writer. */
struct ibex_cbfc_vc_stats {
	uint64_t sender_credits_consumed;   /**< 64-bit totals */
	uint64_t sender_credits_freed;
	uint32_t sender_credits_used_watermark;
	uint64_t receiver_credits_consumed;
	uint64_t receiver_credits_freed;
	uint64_t tx_blocked;      /**< frames the send rule held back */
	uint64_t leaked_recovered; /**< credits a CC_Update freed */
};

struct ibex_cbfc_stats {
	uint32_t sender_credits_used_watermark;
	uint64_t cc_update_tx, cc_update_rx;
	uint64_t cf_update_tx, cf_update_rx;
	uint64_t cf_update_bad;   /**< freed more than was in use: ignored */
	uint64_t cc_update_bad;   /**< claimed more than rx_total: ignored */
	uint64_t link_resets;     /**< ibex_cbfc_link_reset() */
	struct ibex_cbfc_vc_stats vc[IBEX_CBFC_MAX_VCS];
};

/** CBFC of one port, both directions. */
struct ibex_cbfc_port {
	uint8_t n_vcs;
	uint8_t credit_shift;     /**< credit_size = 1 << shift, or 0xff */
	uint16_t credit_size;
	int16_t overhead;
	uint32_t tx_lossless, rx_lossless;
	uint32_t port_limit, rx_total;
	uint32_t cu;              /**< S_CU_p: the port's credits in use */
	uint64_t cc_period_ns;    /**< 0: no CC_Update */
	uint64_t next_cc_ns;
	uint32_t cf_min_spacing, cf_max_spacing;
	uint8_t cf_refreshes;
	uint64_t last_cf_bytes;   /**< byte time of the last CF_Update */
	uint8_t cf_next;          /**< round robin over the receiver's VCs */
	struct ibex_cbfc_pool pool[IBEX_CBFC_MAX_POOLS + 1]; /**< last: port */
	struct ibex_cbfc_tx_vc tx[IBEX_CBFC_MAX_VCS];
	struct ibex_cbfc_rx_vc rx[IBEX_CBFC_MAX_VCS];
	struct ibex_cbfc_stats st;
};

/** A CC_Update's content: S_CC of the VCs in @p vcs. */
struct ibex_cbfc_cc_update {
	uint32_t vcs;
	uint32_t cc[IBEX_CBFC_MAX_VCS];
};

/** A CF_Update's content. */
struct ibex_cbfc_cf_update {
	uint8_t vc;
	uint32_t cf;
};

/** a mod 2^20. */
static inline uint32_t
ibex_cbfc_mod(uint32_t a)
{
	return a & IBEX_CBFC_MASK;
}

/** SAI's defaults: 128-byte credits, overhead 0, CC_Update every 256 us,
 * CF_Update spacing 6,400..262,144 bytes, @p n_vcs VCs, none lossless,
 * no limits, TC/queue i -> VC i (mod n_vcs). */
void ibex_cbfc_conf_default(struct ibex_cbfc_conf *c, unsigned int n_vcs);

/** Check @p c against SAI's ranges and itself. @return 0, or -EINVAL
 * with the reason in @p err. */
int ibex_cbfc_conf_check(const struct ibex_cbfc_conf *c, char *err,
			 size_t errlen);

/** Start a port from a checked @p c at time @p now_ns (the first
 * CC_Update falls due one period later). @return 0, or -EINVAL when @p c
 * does not pass ibex_cbfc_conf_check(). */
int ibex_cbfc_port_init(struct ibex_cbfc_port *p,
			const struct ibex_cbfc_conf *c, uint64_t now_ns);

/**
 * The link went down: start both directions' counters again at 0, as UE
 * initialises them when a link comes up (its peer, restarted or
 * reconnected, starts at 0 too). S_CC, S_CF and S_CU of every VC, the
 * pools' use, R_CC and R_CF go to 0; the configuration and the counters
 * stay (link_resets counts it). Frames the receiver still holds from
 * before keep their room: R_CF stays at 0 until they leave
 * (ibex_cbfc_rx_held() never moves it back), so the new sender's credits
 * come back only as the buffer drains. A frame sent after the reset that
 * the link still lost leaks, and the next CC_Update recovers it.
 */
void ibex_cbfc_link_reset(struct ibex_cbfc_port *p, uint64_t now_ns);

/** Ethernet's shortest frame without FCS: a shorter one is padded to it
 * on the wire, and counted so at both ends. */
#define IBEX_CBFC_FRAME_MIN 60

/** Per frame: the credits a frame of @p len bytes (without FCS, at least
 * IBEX_CBFC_FRAME_MIN) costs (at least 1). */
static inline uint32_t
ibex_cbfc_credits(const struct ibex_cbfc_port *p, uint32_t len)
{
	int32_t b;
	uint32_t n;

	if (len < IBEX_CBFC_FRAME_MIN)
		len = IBEX_CBFC_FRAME_MIN;
	b = (int32_t)len + p->overhead;

	if (b <= 0)
		return 1;
	n = p->credit_shift != 0xff ?
		((uint32_t)b + p->credit_size - 1) >> p->credit_shift :
		((uint32_t)b + p->credit_size - 1) / p->credit_size;
	return n;
}

/** Is @p vc lossless at the sender (under the send rule)? */
static inline bool
ibex_cbfc_tx_gated(const struct ibex_cbfc_port *p, unsigned int vc)
{
	return (p->tx_lossless >> vc) & 1;
}

/** Shared credits a VC holds with @p cu in use. */
static inline uint32_t
ibex_cbfc_shared_of(const struct ibex_cbfc_tx_vc *t, uint32_t cu)
{
	return cu > t->reserved ? cu - t->reserved : 0;
}

/** The profile's rule: may @p t, with @p cu in use, take @p n more? */
bool ibex_cbfc_profile_allows(const struct ibex_cbfc_port *p,
			      const struct ibex_cbfc_tx_vc *t, uint32_t n);

/** Credits @p vc could take now under the send rule (a gauge for views:
 * its limit or its profile's share of its pool, and the port's limit). */
uint32_t ibex_cbfc_tx_room(const struct ibex_cbfc_port *p, unsigned int vc);

/** The send rule for @p n credits on @p vc, without taking them. */
static inline bool
ibex_cbfc_tx_ok(const struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	const struct ibex_cbfc_tx_vc *t = &p->tx[vc];

	if (!ibex_cbfc_tx_gated(p, vc))
		return true;
	if (p->port_limit != 0 && p->cu + n > p->port_limit)
		return false;
	if (!t->profiled)
		return t->cu + n <= t->limit;
	return ibex_cbfc_profile_allows(p, t, n);
}

/** ibex_cbfc_tx_take() for a VC with a profile, a port with a limit, or
 * a frame the VC's limit holds back. */
bool ibex_cbfc_tx_take_slow(struct ibex_cbfc_port *p, unsigned int vc,
			    uint32_t n);

/* Count @p n credits consumed on @p vc (the send rule passed). */
static inline void
ibex_cbfc_tx_consume(struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	struct ibex_cbfc_tx_vc *t = &p->tx[vc];
	struct ibex_cbfc_vc_stats *s = &p->st.vc[vc];

	t->cc = ibex_cbfc_mod(t->cc + n);
	t->cu += n;
	p->cu += n;
	s->sender_credits_consumed += n;
	if (t->cu > s->sender_credits_used_watermark)
		s->sender_credits_used_watermark = t->cu;
	if (p->cu > p->st.sender_credits_used_watermark)
		p->st.sender_credits_used_watermark = p->cu;
}

/**
 * Per frame at the sender: check the send rule for a frame of @p n
 * credits on @p vc and, when it may go, count it consumed. A best-effort
 * VC is not gated and counts nothing. @return true when it may go. The
 * common case (a VC of its own limit, no port limit, room) inline.
 */
static inline bool
ibex_cbfc_tx_take(struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	const struct ibex_cbfc_tx_vc *t = &p->tx[vc];

	if (!ibex_cbfc_tx_gated(p, vc))
		return true;
	if (__builtin_expect(t->profiled || p->port_limit != 0 ||
			     t->cu + n > t->limit, 0))
		return ibex_cbfc_tx_take_slow(p, vc, n);
	ibex_cbfc_tx_consume(p, vc, n);
	return true;
}

/** Per frame at the receiver: a frame of @p n credits was stored on
 * @p vc. */
static inline void
ibex_cbfc_rx_stored(struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	if (!((p->rx_lossless >> vc) & 1))
		return;
	p->rx[vc].cc = ibex_cbfc_mod(p->rx[vc].cc + n);
	p->st.vc[vc].receiver_credits_consumed += n;
}

/** Per frame at the receiver: a frame of @p n credits left the buffer of
 * @p vc (sent on, or dropped after it was stored). */
static inline void
ibex_cbfc_rx_freed(struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	if (!((p->rx_lossless >> vc) & 1))
		return;
	p->rx[vc].cf = ibex_cbfc_mod(p->rx[vc].cf + n);
	p->st.vc[vc].receiver_credits_freed += n;
}

/**
 * The receiver's buffer holds @p held credits of @p vc: R_CF = R_CC -
 * held, but never back (a bound on what is held may move by more than a
 * frame's credits as one arrives). For a data path that knows what its
 * buffer holds rather than each frame's release, as ibex's does: frames
 * dropped before they were stored are freed with it.
 */
void ibex_cbfc_rx_held(struct ibex_cbfc_port *p, unsigned int vc,
		       uint32_t held);

/** The sender applies a CF_Update. @return 0, or -EINVAL when it frees
 * more than the VC has in use or names a VC that is not lossless (counted
 * in cf_update_bad, nothing changed). */
int ibex_cbfc_cf_apply(struct ibex_cbfc_port *p,
		       const struct ibex_cbfc_cf_update *u);

/**
 * The receiver's next CF_Update, at link byte time @p now_bytes (bytes
 * the link could have carried since it started: its transmitted bytes
 * and idle alike). Due when cf_min_spacing byte times have passed since
 * the last one, for a VC that had none for cf_max_spacing byte times (a
 * refresh, for one that was lost, whatever the other VCs send), else for
 * a VC whose R_CF moved since it was last sent (round robin). @return true and fills @p u (counted sent) when
 * one is due.
 */
bool ibex_cbfc_cf_next(struct ibex_cbfc_port *p, uint64_t now_bytes,
		       struct ibex_cbfc_cf_update *u);

/** The CF_Update @p u that ibex_cbfc_cf_next() gave did not go (the
 * port refused the frame): it is due again at once, not counted sent. */
void ibex_cbfc_cf_unsent(struct ibex_cbfc_port *p,
			 const struct ibex_cbfc_cf_update *u);

/** Is the sender's CC_Update due at @p now_ns? */
static inline bool
ibex_cbfc_cc_due(const struct ibex_cbfc_port *p, uint64_t now_ns)
{
	return p->cc_period_ns != 0 && now_ns >= p->next_cc_ns;
}

/** Build the sender's CC_Update (S_CC of every lossless VC) and schedule
 * the next one a period after @p now_ns. When it does not go, call
 * ibex_cbfc_cc_unsent(). */
void ibex_cbfc_cc_build(struct ibex_cbfc_port *p, uint64_t now_ns,
			struct ibex_cbfc_cc_update *u);

/** The CC_Update built at @p now_ns did not go: due again at once, not
 * counted sent. */
void ibex_cbfc_cc_unsent(struct ibex_cbfc_port *p, uint64_t now_ns);

/** The receiver applies a CC_Update: per VC it names and receives,
 * R_CF += S_CC - R_CC and R_CC = S_CC. A VC whose difference exceeds the
 * receiver's buffer (rx_total) is left alone and counted in
 * cc_update_bad. @return the credits recovered. */
uint32_t ibex_cbfc_cc_apply(struct ibex_cbfc_port *p,
			    const struct ibex_cbfc_cc_update *u);

#endif /* IBEX_CBFC_H */
