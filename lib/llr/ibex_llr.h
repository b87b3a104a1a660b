/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_LLR_H
#define IBEX_LLR_H

/**
 * @file
 * Ultra Ethernet link-level retry (UE 1.0 section 5.1, LLR) with SAI's
 * profile attributes and SONiC's counter names: the pure state machines
 * of one port, both directions, no EAL. docs/llr.md has the semantics.
 *
 * The sender numbers each protected frame (19-bit sequence, wrapping at
 * 2^19) and keeps it in a replay buffer bounded in frames and bytes until
 * the receiver acknowledges it. The receiver accepts only the sequence it
 * expects, in order: it acknowledges cumulatively (ACK n: every frame up
 * to n arrived) and asks for a replay from the first frame it misses
 * (NACK n: go back to n). A replay timer replays the buffer when neither
 * comes; a sender that replayed max_replay_count times without progress,
 * or holds a frame older than data_age_timeout, gives up: it flushes the
 * buffer (every frame counted in tx_discard, never silently) and starts
 * again with INIT. INIT carries the next sequence; the receiver answers
 * INIT_ECHO and expects it. While not initialised (INIT) or re-initialising
 * (FLUSH) the sender treats new frames by init_action / flush_action:
 * best_effort (sent unprotected), block (held) or discard (dropped,
 * counted).
 *
 * ACK, NACK, INIT and INIT_ECHO are control ordered sets (CtlOS) on the
 * wire, at least ctlos_spacing byte times apart. Frames are the caller's:
 * it keeps the buffered frames by sequence and resends the ones
 * ibex_llr_tx_replay_next() names. Time (ns) and link byte times are
 * passed in.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Sequence numbers: 19 bits. */
#define IBEX_LLR_SEQ_MOD  (UINT32_C(1) << 19)
#define IBEX_LLR_SEQ_MASK (IBEX_LLR_SEQ_MOD - 1)
/** Most frames outstanding: half the sequence space, so that the receiver
 * tells a duplicate (behind it) from a gap (ahead of it). SAI allows
 * 524,288; ibex refuses more than this. */
#define IBEX_LLR_MAX_FRAMES (IBEX_LLR_SEQ_MOD / 2)
/* SAI's ranges (SAI_PORT_LLR_PROFILE_ATTR_*) */
#define IBEX_LLR_REPLAY_TIMER_MAX 65535   /**< ns */
#define IBEX_LLR_REPLAY_COUNT_MAX 255
#define IBEX_LLR_TIMEOUT_MAX UINT32_C(4290000000) /**< ns */
#define IBEX_LLR_CTLOS_SPACING_MIN 400    /**< bytes */
#define IBEX_LLR_CTLOS_SPACING_MAX 16384
#define IBEX_LLR_CTLOS_SPACING_DEF 2048

/** What the sender does with new frames while not in step with its
 * partner (SAI_PORT_LLR_PROFILE_ATTR_INIT/FLUSH_LLR_FRAME_ACTION). */
enum ibex_llr_action {
	IBEX_LLR_BEST_EFFORT = 0, /**< send them unprotected (SAI default) */
	IBEX_LLR_BLOCK,           /**< hold them */
	IBEX_LLR_DISCARD,         /**< drop them, counted in tx_discard */
};

/** An LLR profile (SONiC's LLR_PROFILE, SAI's port LLR profile). */
struct ibex_llr_profile {
	uint32_t max_frames;      /**< replay buffer, frames (outstanding) */
	uint32_t max_bytes;       /**< and bytes */
	uint32_t replay_timer_ns; /**< replay when nothing comes for this */
	uint32_t replay_count;    /**< replays without progress before a flush */
	uint32_t pcs_lost_ns;     /**< kept and checked, not modelled */
	uint32_t data_age_ns;     /**< oldest buffered frame at most; 0: off */
	uint32_t ctlos_spacing;   /**< byte times between CtlOS */
	uint8_t init_action;      /**< enum ibex_llr_action */
	uint8_t flush_action;
};

/** A named profile of SONiC's sample lookup (speed, cable). */
struct ibex_llr_preset {
	const char *name;
	struct ibex_llr_profile p;
};

/** The presets, NULL-name terminated: "200g-5m", "200g-40m", "400g-5m",
 * "400g-40m", "800g-40m". */
extern const struct ibex_llr_preset ibex_llr_presets[];

/** The preset called @p name, or NULL. */
const struct ibex_llr_profile *ibex_llr_preset(const char *name);

/** The port's counters, SAI's names (SAI_PORT_STAT_LLR_*); one writer. */
struct ibex_llr_stats {
	uint64_t tx_init_ctl_os, tx_init_echo_ctl_os;
	uint64_t tx_ack_ctl_os, tx_nack_ctl_os;
	uint64_t tx_discard;       /**< frames given up or dropped by action */
	uint64_t tx_ok;            /**< protected frames sent the first time */
	uint64_t tx_poisoned;
	uint64_t tx_replay;        /**< frames sent again */
	uint64_t rx_init_ctl_os, rx_init_echo_ctl_os;
	uint64_t rx_ack_ctl_os, rx_nack_ctl_os;
	uint64_t rx_ack_nack_seq_error; /**< naming frames never sent: ignored */
	uint64_t rx_ok, rx_poisoned, rx_bad;
	uint64_t rx_expected_seq_good, rx_expected_seq_poisoned;
	uint64_t rx_expected_seq_bad;
	uint64_t rx_missing_seq, rx_duplicate_seq;
	uint64_t rx_replay;        /**< expected frames that came by replay */
	/* ibex's own */
	uint64_t tx_unprotected;   /**< sent without LLR (best_effort) */
	uint64_t tx_held;          /**< offers refused: buffer full or block */
	uint64_t flushes;          /**< the sender gave up and re-initialised */
};

/** Sender states. */
enum ibex_llr_tx_state {
	IBEX_LLR_TX_INIT = 0, /**< INIT sent, no echo yet */
	IBEX_LLR_TX_ACTIVE,   /**< in step: frames are protected */
	IBEX_LLR_TX_FLUSH,    /**< gave up; INIT sent again, no echo yet */
};

/** One buffered frame's bookkeeping (the caller keeps the frame). */
struct ibex_llr_slot {
	uint32_t len;
	uint64_t sent_ns;         /**< first sent */
};

/** Sender. */
struct ibex_llr_tx {
	struct ibex_llr_profile p;
	uint8_t state;            /**< enum ibex_llr_tx_state */
	bool replaying;
	bool init_due;            /**< an INIT is to be sent */
	uint32_t next_seq;        /**< the next new frame's */
	uint32_t oldest;          /**< first unacknowledged */
	uint32_t replay_seq;      /**< next to resend while replaying */
	uint32_t init_seq;        /**< carried by the last INIT */
	uint32_t frames, bytes;   /**< outstanding */
	uint32_t replays;         /**< since the last progress */
	uint64_t progress_ns;     /**< last ACK/NACK that freed, or replay */
	uint64_t init_ns;         /**< when the last INIT went */
	struct ibex_llr_slot *slot; /**< max_frames, by seq % max_frames */
};

/** Receiver. */
struct ibex_llr_rx {
	bool synced;              /**< an INIT set expected */
	bool ack_due, nack_due, echo_due, nacked;
	bool ctlos_sent;          /**< the port sent a CtlOS (spacing applies) */
	uint32_t expected;
	uint32_t echo_seq;
	uint64_t last_ctlos_bytes;
};

/** LLR of one port, both directions. */
struct ibex_llr_port {
	struct ibex_llr_tx tx;
	struct ibex_llr_rx rx;
	struct ibex_llr_stats st;
};

/** CtlOS kinds. */
enum ibex_llr_ctl {
	IBEX_LLR_CTL_NONE = 0,
	IBEX_LLR_CTL_INIT,
	IBEX_LLR_CTL_INIT_ECHO,
	IBEX_LLR_CTL_ACK,
	IBEX_LLR_CTL_NACK,
};

/** A new frame's fate (ibex_llr_tx_frame()). */
enum ibex_llr_verdict {
	IBEX_LLR_SEND = 0,        /**< protected: send it with *seq, keep it */
	IBEX_LLR_SEND_PLAIN,      /**< send it unprotected (best_effort) */
	IBEX_LLR_HOLD,            /**< not now: offer it again later */
	IBEX_LLR_DROP,            /**< discard action: free it (counted) */
};

/** What the receiver does with a frame (ibex_llr_rx_frame()). */
enum ibex_llr_rx_verdict {
	IBEX_LLR_DELIVER = 0,
	IBEX_LLR_REJECT,          /**< bad, a duplicate or after a gap */
};

/** a mod 2^19. */
static inline uint32_t
ibex_llr_seq(uint32_t a)
{
	return a & IBEX_LLR_SEQ_MASK;
}

/** Check @p p against SAI's ranges. @return 0, or -EINVAL with the
 * reason in @p err. */
int ibex_llr_profile_check(const struct ibex_llr_profile *p, char *err,
			   size_t errlen);

/** Start a port with profile @p p (checked) at @p now_ns, its first
 * sequence @p seq0: the sender in INIT with an INIT due. @return 0,
 * -EINVAL for a bad profile, -ENOMEM. */
int ibex_llr_port_init(struct ibex_llr_port *l, const struct ibex_llr_profile *p,
		       uint32_t seq0, uint64_t now_ns);

/** Start @p l again at @p now_ns with first sequence @p seq0, as
 * ibex_llr_port_init() with its profile but keeping its buffer (nothing
 * allocated) and its counters: a link whose partner came back up. The
 * frames it had outstanding are given up, counted in tx_discard. */
void ibex_llr_port_reset(struct ibex_llr_port *l, uint32_t seq0,
			 uint64_t now_ns);

/** Free what ibex_llr_port_init() allocated. */
void ibex_llr_port_free(struct ibex_llr_port *l);

/** The sender is offered a new frame of @p len bytes at @p now_ns: its
 * fate, and with IBEX_LLR_SEND its sequence in @p seq. */
enum ibex_llr_verdict ibex_llr_tx_frame(struct ibex_llr_port *l, uint32_t len,
					uint64_t now_ns, uint32_t *seq);

/** A buffered frame to send again before any new one, at @p now_ns:
 * @return true with its sequence in @p seq. */
bool ibex_llr_tx_replay_next(struct ibex_llr_port *l, uint64_t now_ns,
			     uint32_t *seq);

/** The sender's timers at @p now_ns: the replay timer, the data age and
 * the INIT's repetition. */
void ibex_llr_tx_tick(struct ibex_llr_port *l, uint64_t now_ns);

/** A CtlOS from the partner (kind, sequence) at @p now_ns. @return 0,
 * or -EINVAL when it names frames never sent (counted, ignored). */
int ibex_llr_ctl_rx(struct ibex_llr_port *l, enum ibex_llr_ctl kind,
		    uint32_t seq, uint64_t now_ns);

/** The receiver gets a frame: protected (@p llr, with sequence @p seq) or
 * not; @p good false when its FCS failed (the sequence cannot be trusted:
 * a NACK for the one expected, once per gap). */
enum ibex_llr_rx_verdict ibex_llr_rx_frame(struct ibex_llr_port *l,
					   uint32_t seq, bool llr, bool good);

/** The port's next CtlOS at link byte time @p now_bytes (both functions:
 * the sender's INIT, the receiver's INIT_ECHO, NACK and ACK, in that
 * order), ctlos_spacing byte times after the last. @return its kind
 * (IBEX_LLR_CTL_NONE: nothing due) and its sequence in @p seq. */
enum ibex_llr_ctl ibex_llr_ctl_next(struct ibex_llr_port *l,
				    uint64_t now_bytes, uint32_t *seq);

#endif /* IBEX_LLR_H */
