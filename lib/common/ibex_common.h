/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_COMMON_H
#define IBEX_COMMON_H

/**
 * @file
 * Limits and small helpers shared by every ibex library. Header only and
 * free of DPDK so the pure libraries and their unit tests can use it.
 */

#include <stdint.h>

/** Most ports one switch handles; port sets are 64-bit masks. */
#define IBEX_MAX_PORTS 64
/** Most worker lcores. */
#define IBEX_MAX_WORKERS 16
/** Longest port name, including the NUL. */
#define IBEX_NAME_LEN 32
/** The control socket's file in the DPDK runtime directory (ibex-switch,
 * ibex-ctl), and that of switch NAME of an ibex-fabric process (a printf
 * format of the name). */
#define IBEX_CTL_SOCK_NAME "ibex-ctl.sock"
#define IBEX_CTL_SOCK_SWITCH_FMT "ibex-ctl-%s.sock"
/** 802.1Q VLAN ids 0..4095. */
#define IBEX_VLAN_COUNT 4096
/** Port id meaning "none". */
#define IBEX_PORT_NONE UINT16_C(0xffff)
/**
 * ECMP groups (lib/fdb/ibex_ecmp.h). An FDB entry's egress is a port
 * (below IBEX_MAX_PORTS) or, with IBEX_EGRESS_ECMP set, group number
 * (egress & 0xff): one 16-bit word either way, so the table's slots stay
 * (key, value) pairs.
 */
#define IBEX_MAX_ECMP_GROUPS 64
/** Most in-network aggregation jobs one switch takes part in. */
#define IBEX_MAX_AGG_JOBS 16
#define IBEX_ECMP_MAX_MEMBERS 16
#define IBEX_EGRESS_ECMP UINT16_C(0x8000)

/** Is @p egress (an FDB entry's) an ECMP group rather than a port? */
static inline int
ibex_egress_is_ecmp(uint16_t egress)
{
	return (egress & 0xff00) == IBEX_EGRESS_ECMP;
}

/** InfiniBand credit block, bytes. */
#define IBEX_BLOCK_BYTES 64

/** Bytes in a credit/buffer block count: ceil(len / 64). */
static inline uint32_t
ibex_blocks(uint32_t len)
{
	return (len + IBEX_BLOCK_BYTES - 1) / IBEX_BLOCK_BYTES;
}

#ifndef IBEX_ARRAY_SIZE
#define IBEX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#if defined(__GNUC__)
#define ibex_likely(x)   __builtin_expect(!!(x), 1)
#define ibex_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define ibex_likely(x)   (x)
#define ibex_unlikely(x) (x)
#endif

#endif /* IBEX_COMMON_H */
