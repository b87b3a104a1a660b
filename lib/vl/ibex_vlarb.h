/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_VLARB_H
#define IBEX_VLARB_H

/**
 * @file
 * The InfiniBand VL arbiter of one egress port (IBA Vol 1 §7.6.9).
 *
 * Two tables, high and low, of up to 64 (VL, weight) entries. A weight
 * is in 64-byte units (0..255); weight 0 skips the entry; a VL may repeat
 * within a table and appear in both. The arbiter serves the high table
 * before the low one, but after Limit of High Priority x 4096 bytes from
 * the high table it lets one low-table frame go when a low lane is
 * eligible; limit 255 means never, limit 0 means after every high frame.
 *
 * Within a table the arbiter walks the entries in order. An entry's turn
 * lasts while its VL is eligible and its weight (x 64 bytes) is not used
 * up. A frame is never split, so the last frame of a turn may overrun the
 * weight, as in IB. IB forgets the overrun; ibex by default carries it
 * to that entry's next turn, so byte shares follow the weights even when
 * frames are larger than a turn (struct ibex_vlarb_conf::strict turns the
 * carry off for IB's exact behaviour).
 *
 * Only eligible lanes count. An entry whose VL is not eligible is skipped
 * and nothing else is reset; a lane earns nothing while it is idle; an
 * idle high table never holds the low table back. VL15 is not arbitrated:
 * the caller sends management frames before asking the arbiter.
 *
 * Use: ibex_vlarb_next() names the lane to send from; when the frame is
 * really sent, ibex_vlarb_charge() accounts it. A caller that cannot send
 * (TX ring full) simply does not charge: asking again with the same
 * eligible lanes gives the same answer. The arbiter keeps state but never
 * allocates, logs or loops over the tables in the common case.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_vl.h"

/** Most entries in one table (IB: two blocks of 32). */
#define IBEX_VLARB_MAX_ENTRIES 64
/** Limit of High Priority meaning "no limit". */
#define IBEX_VLARB_LIMIT_UNBOUNDED 255
/** Bytes of high-table traffic per limit unit. */
#define IBEX_VLARB_LIMIT_UNIT 4096
/** Default weight of the default tables: 2 KB, at least one 1500-byte
 * frame per turn without leaning on the carry. */
#define IBEX_VLARB_DEFAULT_WEIGHT 32

/** One table entry. */
struct ibex_vlarb_entry {
	uint8_t vl;     /**< data VL 0..14 */
	uint8_t weight; /**< 64-byte units per turn; 0 = skip */
};

/** What the user configures for one egress port. */
struct ibex_vlarb_conf {
	uint8_t nb_high;  /**< entries used in high[] */
	uint8_t nb_low;   /**< entries used in low[] */
	uint8_t limit;    /**< Limit of High Priority, 255 = unbounded */
	bool strict;      /**< IB exact: forget a turn's overrun */
	struct ibex_vlarb_entry high[IBEX_VLARB_MAX_ENTRIES];
	struct ibex_vlarb_entry low[IBEX_VLARB_MAX_ENTRIES];
};

/** Arbiter state of one table, derived from the conf at init. */
struct ibex_vlarb_table {
	uint8_t n;                               /**< entries */
	uint8_t idx;                             /**< entry whose turn it is */
	uint16_t present;                        /**< VLs with a weighted entry */
	int32_t left;                            /**< bytes left in the turn; <= 0: none */
	uint32_t elig_key;                       /**< eligible mask of ... */
	uint64_t elig_ent;                       /**< ... this entry mask (cache) */
	uint64_t pos[IBEX_VL_DATA_MAX];      /**< entries of each VL, weight > 0 */
	uint32_t quantum[IBEX_VLARB_MAX_ENTRIES]; /**< weight x 64 bytes */
	uint32_t debt[IBEX_VLARB_MAX_ENTRIES];   /**< carried overrun, bytes */
	uint8_t vl[IBEX_VLARB_MAX_ENTRIES];
};

/** Arbiter of one egress port. Initialise with ibex_vlarb_init(). */
struct ibex_vlarb {
	struct ibex_vlarb_table tab[2];  /**< [0] high, [1] low */
	uint32_t limit_bytes;            /**< limit x 4096 */
	bool unbounded;                  /**< limit 255 */
	bool carry;                      /**< !conf.strict */
	uint32_t high_sent;              /**< high bytes since low had a chance */
	/* The choice of the last ibex_vlarb_next(), for the charge. */
	int8_t pend_vl;                  /**< -1: none */
	uint8_t pend_tab;
	bool pend_low_idle;              /**< low had no eligible lane */
};

/**
 * Fill @p c with the default for @p nb_vls operational lanes: an empty
 * high table, a low table of VL 0..N-1 with IBEX_VLARB_DEFAULT_WEIGHT
 * each (equal shares), limit 0, carry on.
 * @return 0, or -EINVAL when @p nb_vls is not 1..15.
 */
int ibex_vlarb_conf_default(struct ibex_vlarb_conf *c, unsigned int nb_vls);

/**
 * Check a configuration against the port's operational lanes: table sizes
 * up to 64, every entry's VL below @p nb_vls (VL15 and non-operational
 * lanes are rejected, where IB leaves the behaviour to the port).
 * @return 0, or -EINVAL with a message in @p err (may be NULL).
 */
int ibex_vlarb_conf_validate(const struct ibex_vlarb_conf *c,
			     unsigned int nb_vls, char *err, size_t errlen);

/**
 * Lanes the configuration can ever send from (bit v = VL v): those with
 * an entry of non-zero weight. A lane the SL->VL tables feed but this mask
 * lacks would never drain; the whole-config check should refuse that.
 */
uint32_t ibex_vlarb_conf_served(const struct ibex_vlarb_conf *c);

/**
 * Build the arbiter from a configuration (validated against 15 lanes
 * here; check the port's operational count with the function above).
 * @return 0 or -EINVAL.
 */
int ibex_vlarb_init(struct ibex_vlarb *a, const struct ibex_vlarb_conf *c);

/**
 * Pick the lane to send from next.
 *
 * @param eligible  bit v set when VL v has a frame and may send it now
 *                  (downstream credit, not paused, shaper allows);
 *                  bit 15 and lanes in no table are ignored
 * @param head_len  bytes of the head frame of each VL (16 entries; only
 *                  eligible lanes are read); used so that the high table
 *                  does not run past its limit
 * @return a VL 0..14, or -1 when no table has an eligible lane.
 */
int ibex_vlarb_next(struct ibex_vlarb *a, uint32_t eligible,
		    const uint32_t *head_len);

/**
 * Account a frame of @p len bytes sent from @p vl, which the last
 * ibex_vlarb_next() returned.
 * @return 0, or -EINVAL when @p vl is not that choice (nothing changes).
 */
int ibex_vlarb_charge(struct ibex_vlarb *a, unsigned int vl, uint32_t len);

#endif /* IBEX_VLARB_H */
