/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_UNITS_H
#define IBEX_UNITS_H

/**
 * @file
 * The one syntax of sizes and rates in ibex: the config file, ibex-gen,
 * ibex-pcapgen and the net_ibexlink devargs all read them here, so "4K"
 * means the same everywhere (docs/configuration.md, "Sizes and rates").
 *
 * A number is decimal digits with an optional fraction ("1.5"): no sign,
 * exponent, base prefix or blank. A fraction is accepted when the value
 * it gives is whole in the unit stored (bytes, bit/s); otherwise the
 * value is refused, never rounded.
 *
 * Sizes are binary: K, M, G, T (either case) are 2^10, 2^20, 2^30, 2^40,
 * and may be followed by B or iB: 64, 64B, 4K, 4KB, 4KiB, 1.5K, 1M.
 * A lower-case b (bits) is refused in a size.
 *
 * Rates are decimal: k or K, M, G, T are 10^3 .. 10^12 (G and T also in
 * lower case; m is refused, SI's milli), optionally followed by b or bps:
 * 25G, 25Gbps, 25Gb, 1.5M. Frame rates (ibex_parse_pps) take the same
 * multipliers and an optional pps and may have a fraction of a frame.
 * A share is a fraction or a percentage: 0.4, 40%.
 *
 * Pure: no allocation, no locale; every parser returns 0, -EINVAL when
 * malformed (the output untouched) or -ERANGE beyond 64 bits.
 */

#include <stddef.h>
#include <stdint.h>

/** A size ("4KB", "1M", "1500") in bytes. */
int ibex_parse_size(const char *s, uint64_t *bytes);

/** A rate ("25G", "25Gbps", "400000000") in bit/s, whole. */
int ibex_parse_rate(const char *s, uint64_t *bps);

/** A time ("500ns", "1.5us", "2ms", "250ps", "1s"; a bare number is
 * ns; units in either case) in picoseconds, whole. */
int ibex_parse_time_ps(const char *s, uint64_t *ps);

/** A frame rate ("1M", "1.5Mpps", "0.5") in frames/s. */
int ibex_parse_pps(const char *s, double *pps);

/** A share ("0.4", "40%", "0.1%") as a fraction (40% = 0.4). */
int ibex_parse_share(const char *s, double *frac);

/** A plain decimal integer ("8"): digits only, no unit. */
int ibex_parse_uint(const char *s, uint64_t *v);

/**
 * @p bytes as a size: "4KB" when a whole number of KB (MB, GB), else
 * "4100B". @return @p buf.
 */
const char *ibex_size_str(uint64_t bytes, char *buf, size_t len);

#endif /* IBEX_UNITS_H */
