/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEXLINK_H
#define IBEXLINK_H

/**
 * @file
 * net_ibexlink: a vdev PMD whose ports come in pairs joined by an emulated
 * wire (line rate, propagation delay, faults, an optional MAC that obeys
 * 802.1Qbb PFC, optional UEC link-level retry). docs/fabric.md describes
 * the model and its limits, docs/llr.md the link-level retry.
 *
 *   --vdev net_ibexlink0,rate=100G,delay=500ns
 *   --vdev net_ibexlink1,peer=net_ibexlink0
 *
 * Either device may name the other with peer=; the pair forms when the
 * second one is probed. Every other key sets the device's own sending
 * direction; a key one device leaves out it takes from its peer, else the
 * default.
 */

/** The device at the other end of the wire. */
#define IBEXLINK_ARG_PEER       "peer"
/** Line rate in bit/s with K, M, G or T (decimal): 100G (default), 2.5G. */
#define IBEXLINK_ARG_RATE       "rate"
/** Propagation delay: 500ns, 1.5us, 2ms (a bare number is ns; default 0). */
#define IBEXLINK_ARG_DELAY      "delay"
/** Extra delay per frame, uniform in [0, jitter]; never reorders. */
#define IBEXLINK_ARG_JITTER     "jitter"
/** Probability a frame is lost (the receiver's MAC drops it): 1e-4, 0.5%. */
#define IBEXLINK_ARG_LOSS       "loss"
/** Probability a frame arrives with one bit flipped. */
#define IBEXLINK_ARG_CORRUPT    "corrupt"
/** Seed of the fault generator (loss, corruption, jitter); default 1. */
#define IBEXLINK_ARG_SEED       "seed"
/** on: the sending MAC obeys received PFC and consumes PFC frames. */
#define IBEXLINK_ARG_PFC        "pfc"
/** How far ahead a PFC-obeying MAC commits frames (default 2us). */
#define IBEXLINK_ARG_PFC_WINDOW "pfc_window"
/** Without PFC: the MAC takes a frame only while the wire frees within
 * this time of the present (and a TX descriptor is free): a switch's
 * egress, whose frames wait in the switch's own lanes, not in a NIC ring
 * that no pause reaches. Not given: the TX descriptors alone, as a NIC.
 * This end's own (not taken from the peer). */
#define IBEXLINK_ARG_TX_WINDOW  "tx_window"
/** Frames this end's sending ring holds beyond those the wire has in
 * flight: committed frames not yet started and arrived frames the peer
 * has not polled yet; past them a frame is the peer's rx_overflow
 * (imissed). Default 8192 (twice the most TX descriptors), 16 bytes a
 * slot, the ring a power of two: a 100G wire of 500ns holds 16,384 slots
 * (256 KB). Many in-process links whose sender keeps its frames in its
 * own queues (tx_window=0) and whose receiver is polled in step (the
 * virtual clock) need far fewer. This end's own (not taken from the
 * peer); 32 to 4194304. */
#define IBEXLINK_ARG_RING_SLACK "ring_slack"

/** UEC link-level retry (docs/llr.md) on this sending direction: a
 * preset of lib/llr (200g-5m, 200g-40m, 400g-5m, 400g-40m, 800g-40m) or
 * off (default). The sending MAC numbers and keeps each frame until the
 * receiving MAC acknowledges it; a frame the wire loses or corrupts is
 * dropped for its bad FCS and replayed. Not with pfc=on. */
#define IBEXLINK_ARG_LLR        "llr"
/* Overrides of the preset's attributes (SONiC's LLR_PROFILE fields). */
/** max_outstanding_frames: 1..262144. */
#define IBEXLINK_ARG_LLR_FRAMES "llr_max_frames"
/** max_outstanding_bytes: 64..4294967295. */
#define IBEXLINK_ARG_LLR_BYTES  "llr_max_bytes"
/** max_replay_timer: a time, 1ns..65535ns. */
#define IBEXLINK_ARG_LLR_TIMER  "llr_replay_timer"
/** max_replay_count: 1..255. */
#define IBEXLINK_ARG_LLR_COUNT  "llr_replay_count"
/** data_age_timeout: a time up to 4.29s; 0 turns it off. */
#define IBEXLINK_ARG_LLR_AGE    "llr_data_age"
/** ctlos_spacing_bytes: 400..16384. */
#define IBEXLINK_ARG_LLR_SPACING "llr_ctlos_spacing"
/** init_action, flush_action: best_effort, block or discard. */
#define IBEXLINK_ARG_LLR_INIT   "llr_init_action"
#define IBEXLINK_ARG_LLR_FLUSH  "llr_flush_action"

/** CBFC's CF_Update (docs/cbfc.md): on (default), the sending MAC takes
 * the CF_Update shim frames its host gives it and sends each count as an
 * ordered set that takes no frame slot and arrives one propagation delay
 * later (the receiving MAC gives its host the shim frame back); off, they
 * go as the 64-byte frames they are on every other port kind. This end's
 * own (not taken from the peer). */
#define IBEXLINK_ARG_CBFC_OS    "cbfc_os"

#define IBEXLINK_PARAMS \
	IBEXLINK_ARG_PEER "=<name> " IBEXLINK_ARG_RATE "=<bits/s> " \
	IBEXLINK_ARG_DELAY "=<time> " IBEXLINK_ARG_JITTER "=<time> " \
	IBEXLINK_ARG_LOSS "=<prob> " IBEXLINK_ARG_CORRUPT "=<prob> " \
	IBEXLINK_ARG_SEED "=<int> " IBEXLINK_ARG_PFC "=on|off " \
	IBEXLINK_ARG_PFC_WINDOW "=<time> " IBEXLINK_ARG_TX_WINDOW "=<time> " \
	IBEXLINK_ARG_RING_SLACK "=<frames> " IBEXLINK_ARG_CBFC_OS "=on|off " \
	IBEXLINK_ARG_LLR "=<preset>|off " IBEXLINK_ARG_LLR_FRAMES "=<n> " \
	IBEXLINK_ARG_LLR_BYTES "=<n> " IBEXLINK_ARG_LLR_TIMER "=<time> " \
	IBEXLINK_ARG_LLR_COUNT "=<n> " IBEXLINK_ARG_LLR_AGE "=<time> " \
	IBEXLINK_ARG_LLR_SPACING "=<bytes> " \
	IBEXLINK_ARG_LLR_INIT "=best_effort|block|discard " \
	IBEXLINK_ARG_LLR_FLUSH "=best_effort|block|discard"

#define IBEXLINK_DEF_RATE       UINT64_C(100000000000)
#define IBEXLINK_DEF_WINDOW_PS  UINT64_C(2000000)

#include <stdbool.h>
#include <stdint.h>

/**
 * Create a pair of in-process ibexlink devices, joined by a wire: port
 * devices of lib/pdev (ibex_pdev.h) rather than ethdevs, so a process holds
 * more of them than DPDK's RTE_MAX_ETHPORTS. @p args_a and @p args_b are
 * devargs as above without peer= (either may be NULL); each sets its own
 * sending direction. The devices' ids (above the ethdev range) go to
 * @p ids; ibex_pdev_close() removes one end. Main thread, primary process.
 *
 * @return 0, -EEXIST (a name is taken), -EINVAL (bad devargs: logged),
 *   -ENOMEM, -ENOSPC (no free device id).
 */
int ibexlink_pair_create(const char *name_a, const char *args_a,
			 const char *name_b, const char *args_b,
			 uint16_t ids[2]);

/*
 * Under the virtual clock (ibex_clock.h) the discrete-event executive
 * learns from the links when a component has work: every port has an
 * owner (a switch, the generator), and the link tells the owner's
 * calendar (ibex_clock_wake()) when a frame's last bit will arrive at the
 * port, and when the port's sending side, having refused frames, can take
 * more. The process's links, on the executive's lcore.
 */
struct ibexlink_port;

/** The ibexlink port with ethdev or port-device id @p port_id, or NULL. */
struct ibexlink_port *ibexlink_port_of(uint16_t port_id);

/** Who polls @p pt (IBEX_CLOCK_NO_OWNER: nobody is told). */
void ibexlink_port_set_owner(struct ibexlink_port *pt, uint32_t owner);

/** When the first frame waiting at @p pt (arrived or on its way) arrives,
 * in ticks of ibex_clock_hz(); UINT64_MAX: none. */
uint64_t ibexlink_port_rx_head(const struct ibexlink_port *pt);

/**
 * Would a receive at @p pt now do nothing: no frame has arrived, and
 * none of the port's own frames is staged for its wire (a receive moves
 * those on)? Exactly what its rx burst would find, so a poller may skip
 * it: the executive's lcore, under the virtual clock.
 */
bool ibexlink_port_rx_idle(const struct ibexlink_port *pt);

/**
 * Change the faults of port @p port_id's sending direction while it runs:
 * @p args takes loss= and corrupt= as the devargs do (a key left out
 * keeps its value). A cable that goes bad and comes back: the tests make
 * a link dead (loss=1) under LLR and watch it give up. Control thread;
 * waits for the port's MAC flag (held for one burst at most).
 * @return 0, -ENODEV (not an ibexlink port), -EINVAL (bad args: logged).
 */
int ibexlink_set_faults(uint16_t port_id, const char *args);

struct ibex_llr_stats;

/**
 * The LLR counters of port @p port_id (lib/llr's struct, the llr_* xstats
 * an in-process device cannot give), read whole from any thread.
 * @return 0, -ENOENT (no LLR either way), -ENODEV (not an ibexlink port).
 */
int ibexlink_llr_stats(uint16_t port_id, struct ibex_llr_stats *st);

/** Frames committed to a wire, frames taken by a receiver and LLR control
 * ordered sets taken, all links, since the start (counted under the
 * virtual clock only): whether a round of the executive did anything. */
uint64_t ibexlink_activity(void);

/** Frames committed to a wire, all links (the frame-hops), virtual clock
 * only. */
uint64_t ibexlink_frame_hops(void);

/*
 * A link split between processes (docs/simulation.md, "Beyond one
 * machine"): each process holds both ends of the pair, but runs only its
 * own; the other end stands in for the far process's. What the local end
 * sends stays on its wire until the executive carries it out (at a
 * window's end, ibexlink_carry_out()) to the far process, which carries
 * it in (ibexlink_carry_in()) on its own stand-in's wire: the far end's
 * receiver takes it at the same arrival time as in one process. The
 * executive's lcore, under the virtual clock. Not with LLR, nor on a
 * port that has sent CBFC's CF_Update ordered sets (ordered sets do not
 * cross yet).
 */

/** One frame carried out: its arrival at the far end (ps of the link
 * clock) and its bytes. @return 0, or an error that ends the carry. */
typedef int (*ibexlink_carry_fn)(void *arg, uint64_t arrival_ps,
				 const void *data, uint32_t len);

/**
 * Hand every frame @p pt has sent on its wire (and nobody has taken) to
 * @p fn, in the wire's order, and free them.
 * @return frames carried, -ENOTSUP (LLR on the link, or CF_Update
 *   ordered sets sent), or @p fn's error
 *   (the frames are freed all the same).
 */
int ibexlink_carry_out(struct ibexlink_port *pt, ibexlink_carry_fn fn,
		       void *arg);

/**
 * Put a frame the far process's end sent on the wire of @p pt, that end's
 * stand-in here, arriving at @p arrival_ps at @p pt's peer, whose owner is
 * woken then. The bytes go into mbufs of the peer's RX pool.
 * @return 0; -ENOTSUP (LLR), -ENODEV (the peer has no RX queue yet),
 *   -ENOMEM (no mbuf: counted as the peer's overflow), -ENOSPC (the wire
 *   holds no more: counted so too).
 */
int ibexlink_carry_in(struct ibexlink_port *pt, uint64_t arrival_ps,
		      const void *data, uint32_t len);

#endif /* IBEXLINK_H */
