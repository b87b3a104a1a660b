/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_AGG_PROTO_H
#define IBEX_AGG_PROTO_H

/**
 * @file
 * The in-network aggregation packet (docs/aggregation.md): a 22-byte
 * header in network byte order after UDP, then the elements, little-endian
 * 32-bit integers or IEEE 754 binary32.
 *
 *   0  ver (4 bits, 1) | type (4 bits: 1 contribution, 2 result)
 *   1  element type (1 int32, 2 fp32)
 *   2  element count (u16, 1..IBEX_AGG_MAX_ELEMS)
 *   4  job id (u32)
 *   8  chunk offset, in elements (u32; SwitchML's tsi)
 *  12  set (bit 15) | slot index (bits 0..14) (SwitchML's pool_index)
 *  14  child index (u16): the contributor's at the receiving switch; in a
 *      result, the child it is for, 0xFFFF for all
 *  16  sequence (u32): the slot's use number; its low bit is the set
 *  20  flags (bit 0: retransmission); 21 reserved, 0
 *  22  elements
 *
 * 22 bytes put the elements of an untagged IPv4 frame at byte 64, a cache
 * line. Parsing never reads past the length it is given and says what is
 * wrong with a packet it refuses; building never writes past the buffer.
 */

#include <stdint.h>

/** The UDP destination port of ibex aggregation packets, just above
 * SwitchML's 0xBEE0-0xBEEF. */
#define IBEX_AGG_UDP_PORT 0xBEF0
/** SwitchML's ports: a frame to one of them is SwitchML's, not ibex's. */
#define IBEX_AGG_SWITCHML_PORT_MIN 0xBEE0
#define IBEX_AGG_SWITCHML_PORT_MAX 0xBEEF

#define IBEX_AGG_VERSION 1
#define IBEX_AGG_HDR_LEN 22
/** Elements in one packet at most: 8 KiB, inside a 9000-byte jumbo. */
#define IBEX_AGG_MAX_ELEMS 2048
/** Slot indices: 15 bits (bit 15 of the field is the set). */
#define IBEX_AGG_MAX_SLOTS 0x8000
/** The child index of a result sent to every child. */
#define IBEX_AGG_CHILD_ALL 0xFFFF
/** flags: the sender sent this chunk before (informational). */
#define IBEX_AGG_F_RETX 0x01

/** Packet types. */
enum ibex_agg_type {
	IBEX_AGG_CONTRIB = 1, /**< a child's values, towards the root */
	IBEX_AGG_RESULT = 2,  /**< the sum, from the root down */
};

/** Element types. */
enum ibex_agg_dtype {
	IBEX_AGG_INT32 = 1,   /**< two's complement, sums wrap */
	IBEX_AGG_FP32 = 2,    /**< IEEE 754 binary32 */
};

/** Why a packet is refused (negative returns of the codec). */
enum ibex_agg_err {
	IBEX_AGG_OK = 0,
	IBEX_AGG_E_SHORT,     /**< shorter than the header */
	IBEX_AGG_E_VERSION,   /**< not version 1 */
	IBEX_AGG_E_TYPE,      /**< unknown packet type */
	IBEX_AGG_E_DTYPE,     /**< unknown element type */
	IBEX_AGG_E_COUNT,     /**< 0 or more than IBEX_AGG_MAX_ELEMS elements */
	IBEX_AGG_E_LENGTH,    /**< length is not header + count elements */
	IBEX_AGG_E_SET,       /**< set bit is not the sequence's low bit */
	IBEX_AGG_E_RESERVED,  /**< unknown flag or reserved byte set */
	IBEX_AGG_E_SPACE,     /**< (build) the buffer is too small */
	IBEX_AGG_E_SLOT,      /**< (build) the slot does not fit 15 bits */
	IBEX_AGG_E_MAX,
};

/** A packet's header, in host order. */
struct ibex_agg_hdr {
	uint8_t type;         /**< enum ibex_agg_type */
	uint8_t dtype;        /**< enum ibex_agg_dtype */
	uint16_t count;       /**< elements */
	uint32_t job;
	uint32_t offset;      /**< chunk offset, elements */
	uint16_t slot;        /**< 0..IBEX_AGG_MAX_SLOTS - 1 */
	uint16_t child;
	uint32_t seq;         /**< use number; the set is seq & 1 */
	uint8_t flags;
};

/** Bytes of a packet of @p count elements (header included). */
static inline uint32_t
ibex_agg_pkt_len(uint32_t count)
{
	return IBEX_AGG_HDR_LEN + 4 * count;
}

/** Read the packet in @p buf (@p len bytes: the UDP payload) into @p h;
 * @p elems gets where its elements start (little-endian, maybe not
 * aligned). @return IBEX_AGG_OK or the reason it is refused. */
enum ibex_agg_err ibex_agg_parse(const void *buf, uint32_t len,
				 struct ibex_agg_hdr *h, const void **elems);

/** Write the packet of @p h with @p elems (h->count little-endian
 * elements) into @p buf of @p cap bytes. @return its length, or minus
 * the reason (IBEX_AGG_E_SPACE, or what ibex_agg_parse() would refuse in
 * @p h). */
int ibex_agg_build(void *buf, uint32_t cap, const struct ibex_agg_hdr *h,
		   const void *elems);

/** A short name of @p e ("short", "version", ...), never NULL. */
const char *ibex_agg_err_name(enum ibex_agg_err e);

#endif /* IBEX_AGG_PROTO_H */
