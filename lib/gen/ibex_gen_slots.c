/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_gen_slots.h"

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop repeats. @return the distinct count. */
static uint32_t
sort_unique(uint32_t *v, uint32_t n)
{
	uint32_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 1; i < n; i++)
		if (v[i] != v[k])
			v[++k] = v[i];
	return k + 1;
}

/* Append @p n destinations of source @p src (distinct, ascending). */
static int
slots_append(struct ibex_gen_slots *sl, uint32_t *cap, uint32_t src,
	     const uint32_t *d, uint32_t n, uint32_t max_pairs)
{
	uint32_t i;

	if (n > max_pairs - sl->npairs)
		return -E2BIG;
	if (sl->npairs + n > *cap) {
		uint32_t c = *cap ? *cap : 64;
		uint16_t *p;

		while (c < sl->npairs + n)
			c = c > max_pairs / 2 ? max_pairs : c * 2;
		p = realloc(sl->dst, (size_t)c * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		sl->dst = p;
		*cap = c;
	}
	for (i = 0; i < n; i++)
		sl->dst[sl->npairs++] = (uint16_t)d[i];
	sl->base[src + 1] = sl->npairs;
	return 0;
}

static int
slots_start(struct ibex_gen_slots *sl, uint32_t nranks)
{
	memset(sl, 0, sizeof(*sl));
	if (nranks == 0 || nranks > UINT16_MAX + 1u)
		return -EINVAL;
	sl->base = calloc((size_t)nranks + 1, sizeof(*sl->base));
	if (sl->base == NULL)
		return -ENOMEM;
	sl->nranks = nranks;
	return 0;
}

int
ibex_gen_slots_coll(struct ibex_gen_slots *sl, const struct ibex_coll_cfg *cfg,
		    uint32_t max_pairs)
{
	uint32_t n = cfg->nranks, steps, r, s, i, k, cap = 0, scap = 0;
	uint32_t *scr = NULL;
	uint64_t msg;
	int ret;

	ret = slots_start(sl, n);
	if (ret != 0)
		return ret;
	steps = ibex_coll_nsteps(cfg);
	msg = ibex_coll_msg_bytes(cfg);
	for (r = 0; r < n; r++) {
		k = 0;
		for (s = 0; s < steps; s++) {
			uint16_t peer;
			uint64_t b;
			uint32_t nt = cfg->algo->sends(cfg, r, s, 0, msg,
						       &peer, &b);

			for (i = 0; i < nt; i++) {
				cfg->algo->sends(cfg, r, s, i, msg, &peer, &b);
				if (peer >= n || peer == r) {
					ret = -EINVAL;
					goto fail;
				}
				/* a ring's every step: the same peer */
				if (k > 0 && scr[k - 1] == peer)
					continue;
				if (k == scap) {
					uint32_t c = scap ? scap * 2 : 64;
					uint32_t *p = realloc(scr, (size_t)c *
							      sizeof(*p));

					if (p == NULL) {
						ret = -ENOMEM;
						goto fail;
					}
					scr = p;
					scap = c;
				}
				scr[k++] = peer;
			}
		}
		k = sort_unique(scr, k);
		ret = slots_append(sl, &cap, r, scr, k, max_pairs);
		if (ret != 0)
			goto fail;
	}
	free(scr);
	return 0;
fail:
	free(scr);
	ibex_gen_slots_free(sl);
	return ret;
}

int
ibex_gen_slots_pairs(struct ibex_gen_slots *sl, uint32_t nranks,
		     const uint32_t *pairs, uint32_t count, uint32_t max_pairs)
{
	uint32_t *v = NULL, *d = NULL, i, j, u, cap = 0, r;
	int ret;

	ret = slots_start(sl, nranks);
	if (ret != 0)
		return ret;
	if (count > 0) {
		v = malloc((size_t)count * sizeof(*v));
		d = malloc((size_t)count * sizeof(*d));
		if (v == NULL || d == NULL) {
			ret = -ENOMEM;
			goto fail;
		}
		memcpy(v, pairs, (size_t)count * sizeof(*v));
	}
	u = sort_unique(v, count);
	for (i = 0; i < u; i++)
		if ((v[i] >> 16) >= nranks || (v[i] & 0xffff) >= nranks) {
			ret = -EINVAL;
			goto fail;
		}
	i = 0;
	for (r = 0; r < nranks; r++) {
		for (j = 0; i < u && (v[i] >> 16) == r; i++)
			d[j++] = v[i] & 0xffff;
		ret = slots_append(sl, &cap, r, d, j, max_pairs);
		if (ret != 0)
			goto fail;
	}
	free(v);
	free(d);
	return 0;
fail:
	free(v);
	free(d);
	ibex_gen_slots_free(sl);
	return ret;
}

void
ibex_gen_slots_free(struct ibex_gen_slots *sl)
{
	free(sl->base);
	free(sl->dst);
	memset(sl, 0, sizeof(*sl));
}
