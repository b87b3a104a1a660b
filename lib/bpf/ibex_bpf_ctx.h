/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_BPF_CTX_H
#define IBEX_BPF_CTX_H

/**
 * @file
 * What an ibex classifier program sees and what it returns.
 *
 * A classifier is an eBPF program in an ELF object built with
 * `clang -O2 -target bpf -c prog.c -o prog.o`, attached to an ingress port
 * with `port NAME sl-from bpf prog.o[:SECTION]` (docs/bpf.md). ibex runs it
 * once per received frame, after parsing, with one argument: a pointer to
 * a struct ibex_bpf_ctx. The context is read-only and bounded: rte_bpf's
 * verifier refuses at load time a program that could read outside it or
 * write to it, so a program never faults at run time.
 *
 * The program returns an SL 0..15, IBEX_BPF_DEFAULT (classify the frame
 * as the port would without a program: its pcp or dscp tables, see
 * bpf-fallback) or IBEX_BPF_DROP (drop, counted as reason "bpf-drop").
 * Any other value counts as "bad" in the port's counters and is treated
 * as IBEX_BPF_DEFAULT.
 *
 * Fields are in host byte order, already decoded; data[] holds the
 * frame's first bytes as received (network order). Offsets are from the
 * first byte of the Ethernet header. This header has no dependency: it
 * builds with clang -target bpf as well as with the host compiler.
 */

#if defined(__bpf__) || !defined(__STDC_HOSTED__) || !__STDC_HOSTED__
typedef __UINT8_TYPE__ ibex_bpf_u8;
typedef __UINT16_TYPE__ ibex_bpf_u16;
typedef __UINT32_TYPE__ ibex_bpf_u32;
#else
#include <stdint.h>
typedef uint8_t ibex_bpf_u8;
typedef uint16_t ibex_bpf_u16;
typedef uint32_t ibex_bpf_u32;
#endif

/** Bytes of the frame copied into ibex_bpf_ctx::data. */
#define IBEX_BPF_DATA_LEN 64

/** Verdicts (the program's return value). */
#define IBEX_BPF_SL(sl)   ((sl) & 15)  /**< service level 0..15 */
#define IBEX_BPF_DEFAULT  16           /**< the port's built-in classifier */
#define IBEX_BPF_DROP     17           /**< drop (reason bpf-drop) */

/** ibex_bpf_ctx::flags */
#define IBEX_BPF_F_VLAN   0x01  /**< one 802.1Q tag (vid, pcp valid) */
#define IBEX_BPF_F_UDP    0x02  /**< UDP header (sport, dport, l4_off) */
#define IBEX_BPF_F_ROCE   0x04  /**< RoCEv2 BTH (bth_*) */
#define IBEX_BPF_F_FRAG   0x08  /**< IPv4 non-first fragment: no L4 */
#define IBEX_BPF_F_GROUP  0x10  /**< destination MAC multicast/broadcast */
#define IBEX_BPF_F_IP4    0x20  /**< IPv4 (dscp, ecn, l4_proto valid) */
#define IBEX_BPF_F_IP6    0x40  /**< IPv6 (dscp, ecn, l4_proto valid) */

/** The context of one frame: 32 bytes of fields, then data (96 bytes).
 * Fields keep their offsets in later versions; new ones go after data. */
struct ibex_bpf_ctx {
	ibex_bpf_u32 frame_len;  /**< bytes of the whole frame (pkt_len) */
	ibex_bpf_u16 data_len;   /**< bytes of data[] that hold the frame */
	ibex_bpf_u16 in_port;    /**< ibex index of the ingress port */
	ibex_bpf_u16 ether_type; /**< the inner one when tagged */
	ibex_bpf_u16 vid;        /**< 802.1Q VID, 0 untagged */
	ibex_bpf_u8 pcp;         /**< 802.1Q PCP, 0 untagged */
	ibex_bpf_u8 flags;       /**< IBEX_BPF_F_* */
	ibex_bpf_u8 dscp;        /**< 0..63 */
	ibex_bpf_u8 ecn;         /**< RFC 3168 codepoint 0..3 */
	ibex_bpf_u8 l4_proto;    /**< IPv4 protocol / IPv6 next header */
	ibex_bpf_u8 bth_opcode;  /**< RoCEv2 BTH opcode */
	ibex_bpf_u16 l3_off;     /**< first byte after Ethernet (+ tag) */
	ibex_bpf_u16 l4_off;     /**< UDP header (IBEX_BPF_F_UDP) */
	ibex_bpf_u16 bth_off;    /**< BTH (IBEX_BPF_F_ROCE) */
	ibex_bpf_u16 sport;      /**< UDP source port */
	ibex_bpf_u16 dport;      /**< UDP destination port */
	ibex_bpf_u32 dest_qp;    /**< RoCEv2 destination QP, 24 bits */
	/** The frame's first min(data_len, IBEX_BPF_DATA_LEN) bytes; the
	 * rest of the array is unspecified. */
	ibex_bpf_u8 data[IBEX_BPF_DATA_LEN];
};

#ifdef __bpf__
/** Put a function in the ELF section ibex attaches by name. */
#define IBEX_BPF_SEC(name) __attribute__((section(name), used))
#endif

#endif /* IBEX_BPF_CTX_H */
