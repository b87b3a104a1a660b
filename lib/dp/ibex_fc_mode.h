/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FC_MODE_H
#define IBEX_FC_MODE_H

/**
 * @file
 * A flow-control mode as one unit (internal to lib/dp). ibex_fc.c owns
 * what every mode shares (the buffer, port ownership with several
 * workers, the frame hand-off, housekeeping's pace, the view's common
 * part) and calls each port's mode through these cold-path operations;
 * each mode's file (ibex_fc_credit.c, ibex_fc_pfc.c, ibex_fc_cbfc.c)
 * implements them
 * over its pure state machines in lib/credit. The per-frame half of a
 * mode stays inline in ibex_fc.h and ibex_dp.c's admission and egress
 * gates.
 *
 * A new mode: its enum value and name beside enum ibex_fc_mode
 * (lib/credit/ibex_buf.h), its file here with a struct ibex_fc_mode_ops,
 * its entry in ibex_fc_mode_ops_of(), its frame codec in lib/pkt.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ibex_fc.h"
#include "ibex_fcframe.h"

/** The flow-control log (ibex.fc), and "switch NAME: " before a line of
 * a switch that has a name. */
extern int ibex_fc_logtype;
#define RTE_LOGTYPE_IBEX_FC ibex_fc_logtype
#define SWITCH_PREFIX(dp) (dp)->name[0] ? "switch " : "", (dp)->name, \
			  (dp)->name[0] ? ": " : ""

struct ibex_worker;
struct ibex_conf_port;
struct ibex_dp_fc_view;

/** A flow-control frame, parsed. */
union ibex_fc_msg {
	struct ibex_fcf_pfc pfc;
	struct ibex_fcf_credit credit;
	struct ibex_fcf_cbfc cbfc;
};

/** One mode's cold-path operations. */
struct ibex_fc_mode_ops {
	/** EtherType of the mode's frames. */
	uint16_t ethertype;
	/** Set up the mode's part of a port's state. 0, or <0 with the
	 * reason in @p err. */
	int (*port_init)(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
			 char *err, size_t errlen);
	/** Parse an untagged frame of the mode's EtherType: IBEX_FCF_OK when
	 * it is one of the mode's. */
	enum ibex_fcf_err (*parse)(const uint8_t *eth, uint32_t len,
				   union ibex_fc_msg *msg);
	/** Whether a frame of the EtherType that did not parse as the mode's
	 * is a valid frame the mode does not act on (counted fc-ignored,
	 * not fc-frame-bad): 802.3x PAUSE for PFC. May be NULL. */
	bool (*ignorable)(const uint8_t *eth, uint32_t len,
			  enum ibex_fcf_err e);
	/** Act on a parsed frame received on a port of the mode, on the
	 * worker that owns the port's state. */
	void (*apply)(struct ibex_worker *w, uint16_t port,
		      const union ibex_fc_msg *msg, uint64_t tsc);
	/** Every IBEX_FC_HK_NS, on the port's owner: frames due, timers. */
	void (*housekeeping)(struct ibex_worker *w, uint16_t port,
			     uint64_t now_ns);
	/** Several workers, every worker at its housekeeping: publish its
	 * share of the port's state for the owner, and do what each worker
	 * does for the port on its own (PFC: XOFF and refreshes for the
	 * lanes its slice pauses). May be NULL. */
	void (*publish)(struct ibex_worker *w, uint16_t port,
			uint64_t now_ns);
	/** One worker: nothing due on the port but the periodic (the
	 * virtual clock need not run its switch for it). */
	bool (*quiet)(const struct ibex_fc *fc, uint16_t port);
	/** The mode's part of ibex_dp_fc_view(). May be NULL. */
	void (*view)(const struct ibex_fc *fc, const struct ibex_fc_port *fp,
		     uint16_t port, struct ibex_dp_fc_view *v);
};

extern const struct ibex_fc_mode_ops ibex_fc_credit_ops;
extern const struct ibex_fc_mode_ops ibex_fc_pfc_ops;
extern const struct ibex_fc_mode_ops ibex_fc_cbfc_ops;

/** The operations of enum ibex_fc_mode @p mode, NULL for none. */
static inline const struct ibex_fc_mode_ops *
ibex_fc_mode_ops_of(unsigned int mode)
{
	switch (mode) {
	case IBEX_FC_CREDIT:
		return &ibex_fc_credit_ops;
	case IBEX_FC_PFC:
		return &ibex_fc_pfc_ops;
	case IBEX_FC_CBFC:
		return &ibex_fc_cbfc_ops;
	default:
		return NULL;
	}
}

/** Send one flow-control frame ahead of the port's data (counted in
 * @p c's fc_tx_fail when TX does not take it). */
bool ibex_fc_send(struct ibex_worker *w, uint16_t port, const void *frame,
		  uint32_t len, struct ibex_fc_counters *c);

/** Send one flow-control frame behind the frames @p port's TX buffer
 * holds (a CBFC CC_Update counts them): they go to TX first. false when
 * TX does not take them all, or the frame (counted in @p c's
 * fc_tx_fail): it is due again later. */
bool ibex_fc_send_behind(struct ibex_worker *w, uint16_t port,
			 const void *frame, uint32_t len,
			 struct ibex_fc_counters *c);

/* Store @p v in @p pub if it changed (the line stays shared with the
 * owner while it does not). */
static inline void
ibex_fc_pub_set(_Atomic uint32_t *pub, uint32_t v, memory_order mo)
{
	if (atomic_load_explicit(pub, memory_order_relaxed) != v)
		atomic_store_explicit(pub, v, mo);
}

/* Store @p now in @p pub if it moved by a quantum from what @p pub holds,
 * or fell to zero (an idle slice reads exact). */
static inline void
ibex_fc_pub_update(_Atomic uint32_t *pub, uint32_t now)
{
	uint32_t was = atomic_load_explicit(pub, memory_order_relaxed);
	uint32_t moved = now > was ? now - was : was - now;

	if (moved >= IBEX_FC_PUB_QUANTUM || (now == 0 && was != 0))
		atomic_store_explicit(pub, now, memory_order_relaxed);
}

#endif /* IBEX_FC_MODE_H */
