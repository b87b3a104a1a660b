/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_VL_H
#define IBEX_VL_H

/**
 * @file
 * Service levels (SL) and virtual lanes (VL), InfiniBand style.
 *
 * A frame is given one of 16 SLs on its ingress port, from its 802.1Q PCP
 * or from its DSCP (struct ibex_sl_class). The SL->VL table of the port
 * (struct ibex_sl2vl) then picks the data lane 0..14 it is buffered,
 * flow-controlled and arbitrated on. VL15 is the management lane: frames
 * never reach it through the table; a table entry of 15 means "drop"
 * (counted as IBEX_R_SL_DROP), as in IBA Vol 1 §7.6.6.
 *
 * A port runs 1, 2, 4, 8 or 15 data VLs (its operational VLs, IB's
 * OperationalVLs). Tables must only name operational lanes: validation
 * rejects the rest rather than folding them, because a silent fold would
 * merge traffic the user meant to keep apart. ibex_sl2vl_default() builds
 * the table SL s -> VL (s mod N) for N lanes.
 *
 * The lookups run per frame: they are static inline and branch-free.
 * See docs/virtual-lanes.md for the user's view and the defaults.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_common.h"

/** Service levels 0..15. */
#define IBEX_SL_COUNT 16
/** Virtual lanes 0..15 (0..14 data, 15 management). */
#define IBEX_VL_COUNT 16
/** Most operational data VLs on a port. */
#define IBEX_VL_DATA_MAX 15
/** The management lane; as an SL->VL entry it means "drop". */
#define IBEX_VL_MGMT 15
/** SL->VL entry that drops the frame (IBA: VL15 in the table). */
#define IBEX_VL_DROP IBEX_VL_MGMT
/** Mask of the data lanes 0..14. */
#define IBEX_VL_DATA_MASK UINT32_C(0x7fff)

/** Where the SL of a frame comes from. */
enum ibex_sl_mode {
	IBEX_SL_FROM_PCP = 0,  /**< 802.1Q PCP through the PCP table */
	IBEX_SL_FROM_DSCP = 1, /**< IP DSCP through the DSCP table */
};

/*
 * The three tables of a classifier live in one array so that the lookup
 * is one computed index and one load, with no branch on the frame kind.
 */
#define IBEX_SL_MAP_DSCP    0   /**< map[0..63]: SL of DSCP d */
#define IBEX_SL_MAP_PCP     64  /**< map[64..71]: SL of PCP p */
#define IBEX_SL_MAP_DEFAULT 72  /**< map[72]: SL of other frames */
#define IBEX_SL_MAP_LEN     73

/** SL classifier of one ingress port. */
struct ibex_sl_class {
	uint8_t mode;                  /**< enum ibex_sl_mode */
	uint8_t map[IBEX_SL_MAP_LEN];  /**< SLs, see IBEX_SL_MAP_* */
};

/** SL->VL table of one port: VL of each SL, 15 = drop. */
struct ibex_sl2vl {
	uint8_t vl[IBEX_SL_COUNT];
};

/**
 * Fill @p c with the defaults of @p mode: PCP table identity (SL = PCP),
 * DSCP table class selector (SL = DSCP >> 3), default SL 0.
 */
void ibex_sl_class_init(struct ibex_sl_class *c, enum ibex_sl_mode mode);

/** Set the SL of one PCP, DSCP or of the default. @return 0 or -EINVAL. */
int ibex_sl_class_set_pcp(struct ibex_sl_class *c, unsigned int pcp,
			  unsigned int sl);
int ibex_sl_class_set_dscp(struct ibex_sl_class *c, unsigned int dscp,
			   unsigned int sl);
int ibex_sl_class_set_default(struct ibex_sl_class *c, unsigned int sl);

/**
 * Check a classifier: a known mode and every SL below 16.
 * @return 0, or -EINVAL with a message in @p err (may be NULL).
 */
int ibex_sl_class_validate(const struct ibex_sl_class *c,
			   char *err, size_t errlen);

/**
 * SL of a frame.
 *
 * DSCP mode: IP frames use the DSCP table; other tagged frames fall back
 * to the PCP table (a peer that only marks PCP still gets its classes).
 * PCP mode: tagged frames use the PCP table. Every other frame (untagged
 * and, in DSCP mode, also not IP) gets the default SL, as 802.1Q gives
 * untagged frames the port's default priority.
 *
 * @param tagged  frame had an 802.1Q tag
 * @param pcp     its PCP, 0..7
 * @param ip      frame is IPv4 or IPv6
 * @param dscp    its DSCP, 0..63
 */
static inline unsigned int
ibex_sl_classify(const struct ibex_sl_class *c, bool tagged, unsigned int pcp,
		 bool ip, unsigned int dscp)
{
	/* Branches, not a computed select: a port's traffic takes the same
	 * way frame after frame, so they predict perfectly and cost less
	 * than the arithmetic that would avoid them. */
	if (c->mode == IBEX_SL_FROM_DSCP && ip)
		return c->map[IBEX_SL_MAP_DSCP + (dscp & 63u)];
	if (tagged)
		return c->map[IBEX_SL_MAP_PCP + (pcp & 7u)];
	return c->map[IBEX_SL_MAP_DEFAULT];
}

/** True for the operational VL counts IB allows: 1, 2, 4, 8, 15. */
static inline bool
ibex_vls_valid(unsigned int nb_vls)
{
	return nb_vls < 32 && ((UINT32_C(1) << nb_vls) &
			       ((1u << 1) | (1u << 2) | (1u << 4) |
				(1u << 8) | (1u << 15))) != 0;
}

/** Build the default table for @p nb_vls lanes: SL s -> VL (s mod N).
 * @return 0, or -EINVAL when @p nb_vls is not 1, 2, 4, 8 or 15. */
int ibex_sl2vl_default(struct ibex_sl2vl *t, unsigned int nb_vls);

/**
 * Check a table against the port's operational lanes: every entry is a
 * data VL below @p nb_vls or 15 (drop).
 * @return 0, or -EINVAL with a message in @p err (may be NULL).
 */
int ibex_sl2vl_validate(const struct ibex_sl2vl *t, unsigned int nb_vls,
			char *err, size_t errlen);

/** Data lanes a validated table can send frames to (bit v = VL v). */
uint32_t ibex_sl2vl_used(const struct ibex_sl2vl *t);

/** VL of an SL; IBEX_VL_DROP (15) means count IBEX_R_SL_DROP and drop. */
static inline unsigned int
ibex_sl2vl(const struct ibex_sl2vl *t, unsigned int sl)
{
	return t->vl[sl & (IBEX_SL_COUNT - 1)];
}

/** True when an SL->VL result means drop. */
static inline bool
ibex_vl_is_drop(unsigned int vl)
{
	return vl == IBEX_VL_DROP;
}

#endif /* IBEX_VL_H */
