/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FCFRAME_H
#define IBEX_FCFRAME_H

/**
 * @file
 * Build and parse the two flow-control frames ibex speaks on a link:
 *
 * - IEEE 802.1Qbb PFC: DA 01:80:C2:00:00:01, EtherType 0x8808, opcode
 *   0x0101, class-enable vector, 8 x 16-bit quanta (priority 0 first),
 *   zero padding to 60 bytes (the FCS is the NIC's business).
 * - The ibex credit frame (EtherType 0x88B5, IEEE local experimental): the
 *   InfiniBand link-level flow-control packet (IBA Vol 1 7.9) for all VLs
 *   of a port in one Ethernet frame. Byte layout in docs/flow-control.md.
 * - UEC CBFC's messages as ibex frames (the same EtherType, magic 0xCB):
 *   CC_Update (the sender's consumed counts) and CF_Update where a port
 *   has no ordered sets to carry it (the receiver's freed counts); up to
 *   12 VCs a 60-byte frame. Byte layout in docs/cbfc.md.
 *
 * Pure logic over byte buffers: no EAL, no allocation. Parse never reads
 * beyond @p len and says exactly what is wrong with a malformed frame; the
 * data path counts every such frame as IBEX_R_FC_FRAME_BAD.
 */

#include <stdint.h>

#include "ibex_pkt.h"

/** 802.1Qbb PFC opcode in a MAC control frame. */
#define IBEX_PFC_OPCODE 0x0101
/** 802.3x PAUSE opcode (recognised only to say it is not PFC). */
#define IBEX_PAUSE_OPCODE 0x0001
/** Priorities in a PFC frame. */
#define IBEX_PFC_PRIOS 8
/** Bytes a PFC frame needs before padding: 14 + 2 + 2 + 16. */
#define IBEX_PFC_FRAME_HDR_LEN 34

/** Version carried in byte 15 of a credit frame. */
#define IBEX_FCF_VERSION 1
/** Magic in byte 14 of a credit frame. */
#define IBEX_FCF_MAGIC 0xFC
/** Data VLs a credit frame may carry (VL0..VL14; VL15 has no flow control). */
#define IBEX_FCF_MAX_VLS 15
/** Offset of the first per-VL record in a credit frame. */
#define IBEX_FCF_HDR_LEN 20
/** Bytes of one per-VL record. */
#define IBEX_FCF_REC_LEN 6
/** Largest credit frame: header + 15 records. */
#define IBEX_FCF_MAX_LEN (IBEX_FCF_HDR_LEN + IBEX_FCF_MAX_VLS * IBEX_FCF_REC_LEN)

/** Magic in byte 14 of a CBFC message frame. */
#define IBEX_FCF_CBFC_MAGIC 0xCB
/** Offset of the first count in a CBFC message frame. */
#define IBEX_FCF_CBFC_HDR_LEN 22
/** Bytes of one count (20 bits, the top 4 reserved). */
#define IBEX_FCF_CBFC_REC_LEN 3
/** Bytes of a CBFC message frame, without FCS: Ethernet's minimum. */
#define IBEX_FCF_CBFC_LEN 60
/** VCs one CBFC message frame carries: 12 fill the 60-byte minimum. */
#define IBEX_FCF_CBFC_MAX_VCS 12
/** VCs a port has at most (UEC: 32). */
#define IBEX_FCF_CBFC_PORT_VCS 32

/** What a CBFC message frame carries. */
enum ibex_fcf_cbfc_type {
	IBEX_FCF_CBFC_CC = 1, /**< CC_Update: sender's S_CC per VC */
	IBEX_FCF_CBFC_CF = 2, /**< CF_Update (shim): receiver's R_CF per VC */
};

/** Contents of a CBFC message frame. */
struct ibex_fcf_cbfc {
	uint8_t type;         /**< enum ibex_fcf_cbfc_type */
	uint32_t vcs;         /**< bit v: VC v's count is carried */
	uint32_t count[IBEX_FCF_CBFC_PORT_VCS]; /**< 20-bit counts, by VC */
};

/** Credit frame operation (IBA: Op field of the flow-control packet). */
enum ibex_fcf_op {
	IBEX_FCF_OP_NORMAL = 0, /**< periodic or on-change update */
	IBEX_FCF_OP_INIT = 1,   /**< sender's state was (re)initialised */
};

/** Why a flow-control frame was rejected. */
enum ibex_fcf_err {
	IBEX_FCF_OK = 0,
	IBEX_FCF_TRUNC,       /**< shorter than its fields */
	IBEX_FCF_ETHERTYPE,   /**< not 0x8808 / 0x88B5 */
	IBEX_FCF_DA,          /**< PFC not sent to 01:80:C2:00:00:01 */
	IBEX_FCF_OPCODE,      /**< MAC control opcode other than PFC */
	IBEX_FCF_MAGIC_BAD,   /**< credit frame magic != 0xFC */
	IBEX_FCF_VERSION_BAD, /**< unknown credit frame version */
	IBEX_FCF_OP_BAD,      /**< credit frame op not normal/init */
	IBEX_FCF_COUNT_BAD,   /**< VL count 0 or above 15 */
	IBEX_FCF_VL_BAD,      /**< VL above 14 */
	IBEX_FCF_VL_ORDER,    /**< VLs not strictly increasing (duplicate) */
	IBEX_FCF_RESERVED,    /**< a reserved bit is set */
	IBEX_FCF_MAX,
};

/** Short name of a parse result, for logs and telemetry. */
const char *ibex_fcf_err_name(enum ibex_fcf_err err);

/** Contents of a PFC frame. */
struct ibex_fcf_pfc {
	uint8_t cev;                      /**< class-enable vector, bit n = prio n */
	uint16_t quanta[IBEX_PFC_PRIOS];  /**< pause time, valid where enabled */
};

/** One VL of a credit frame. */
struct ibex_fcf_vl {
	uint8_t vl;     /**< 0..14 */
	uint16_t fctbs; /**< sender's total blocks sent, mod 4096 */
	uint16_t fccl;  /**< sender's receive credit limit, mod 4096 */
};

/** Contents of an ibex credit frame. */
struct ibex_fcf_credit {
	uint8_t op;     /**< enum ibex_fcf_op */
	uint8_t n_vls;  /**< records used, 1..15 */
	uint16_t seq;   /**< sender's frame counter, for loss diagnosis only */
	struct ibex_fcf_vl vl[IBEX_FCF_MAX_VLS];
};

/**
 * Build a PFC frame (60 bytes, zero padded).
 *
 * @param src  source MAC (the egress port's)
 * @return 60, or -ENOSPC when @p cap < 60.
 */
int ibex_fcf_pfc_build(void *buf, uint32_t cap, const uint8_t src[6],
		       const struct ibex_fcf_pfc *m);

/**
 * Parse an untagged PFC frame. A frame with a zero class-enable vector
 * parses fine (cev == 0): the caller must ignore it. The reserved high byte
 * of the class-enable vector is ignored, as receivers do in practice.
 */
enum ibex_fcf_err ibex_fcf_pfc_parse(const void *frame, uint32_t len,
				     struct ibex_fcf_pfc *m);

/** Default destination of credit frames: locally administered group
 * address 03:69:62:65:78:00 ("ibex"), link-local by convention. */
extern const uint8_t ibex_fcf_credit_da[6];

/**
 * Build a credit frame to ibex_fcf_credit_da, zero padded to 60 bytes.
 *
 * @return the frame length, -EINVAL for an invalid message (bad count, VL,
 *   order, op, or counter above 12 bits), -ENOSPC when @p cap is short.
 */
int ibex_fcf_credit_build(void *buf, uint32_t cap, const uint8_t src[6],
			  const struct ibex_fcf_credit *m);

/** Parse and validate a credit frame; any destination is accepted. */
enum ibex_fcf_err ibex_fcf_credit_parse(const void *frame, uint32_t len,
					struct ibex_fcf_credit *m);

/**
 * Build the next CBFC message frame of @p m, to ibex_fcf_credit_da: the
 * lowest (up to 12) VCs of @p left, which are cleared from it. Call until
 * @p left is 0 for a message of more VCs (a CC_Update of 32 VCs takes
 * three frames).
 * @return 60, -EINVAL for an invalid message (a type other than CC/CF,
 *   @p left empty or not within m->vcs, a count above 20 bits), -ENOSPC
 *   when @p cap < 60.
 */
int ibex_fcf_cbfc_build(void *buf, uint32_t cap, const uint8_t src[6],
			const struct ibex_fcf_cbfc *m, uint32_t *left);

/** Parse and validate a CBFC message frame; any destination is accepted.
 * Counts of VCs not in m->vcs are left as they were; a frame refused
 * leaves @p m as it was. */
enum ibex_fcf_err ibex_fcf_cbfc_parse(const void *frame, uint32_t len,
				      struct ibex_fcf_cbfc *m);

#endif /* IBEX_FCFRAME_H */
