/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_RND_H
#define TEST_RND_H

/* The unit tests' link faults: a xorshift64 draw in [0, 1), the same
 * sequence every run for a seed. */

#include <stdint.h>

static inline double
test_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / (double)(UINT64_C(1) << 53);
}

#endif /* TEST_RND_H */
