/* SPDX-License-Identifier: BSD-3-Clause */
/* The slot adds: AVX2 (chosen at run time), SSE2, scalar. Each path adds
 * element i of src to element i of acc and nothing else, so all give the
 * same bits. */

#include <string.h>

#include "ibex_agg_sum.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The scalar loops stay scalar (the compiler would vectorise them), so
 * the benchmark compares the two and the tails cost what they should. */
#if defined(__clang__)
#define SCALAR_FN
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#define SCALAR_LOOP
#endif

/* int32 through uint32: wrapping without signed-overflow undefined
 * behaviour. */
SCALAR_FN void
ibex_agg_add_i32_scalar(int32_t *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i, a, b;

	SCALAR_LOOP
	for (i = 0; i < n; i++) {
		memcpy(&a, &acc[i], 4);
		memcpy(&b, s + 4 * i, 4);
		a += b;
		memcpy(&acc[i], &a, 4);
	}
}

SCALAR_FN void
ibex_agg_add_f32_scalar(float *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i;
	float b;

	SCALAR_LOOP
	for (i = 0; i < n; i++) {
		memcpy(&b, s + 4 * i, 4);
		acc[i] += b;
	}
}

#if defined(__x86_64__)

static void
add_i32_sse2(int32_t *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i = 0;

	for (; i + 4 <= n; i += 4) {
		__m128i a = _mm_loadu_si128((const __m128i *)(acc + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 4 * i));
		_mm_storeu_si128((__m128i *)(acc + i), _mm_add_epi32(a, b));
	}
	ibex_agg_add_i32_scalar(acc + i, s + 4 * i, n - i);
}

static void
add_f32_sse2(float *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i = 0;

	for (; i + 4 <= n; i += 4) {
		__m128 a = _mm_loadu_ps(acc + i);
		__m128 b = _mm_loadu_ps((const float *)(s + 4 * i));
		_mm_storeu_ps(acc + i, _mm_add_ps(a, b));
	}
	ibex_agg_add_f32_scalar(acc + i, s + 4 * i, n - i);
}

/* Two vectors a round: the adds of one do not wait for the other's. */
__attribute__((target("avx2"))) static void
add_i32_avx2(int32_t *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m256i a0 = _mm256_loadu_si256((const __m256i *)(acc + i));
		__m256i a1 = _mm256_loadu_si256((const __m256i *)(acc + i + 8));
		__m256i b0 = _mm256_loadu_si256((const __m256i *)(s + 4 * i));
		__m256i b1 = _mm256_loadu_si256(
			(const __m256i *)(s + 4 * i + 32));
		_mm256_storeu_si256((__m256i *)(acc + i),
				    _mm256_add_epi32(a0, b0));
		_mm256_storeu_si256((__m256i *)(acc + i + 8),
				    _mm256_add_epi32(a1, b1));
	}
	add_i32_sse2(acc + i, s + 4 * i, n - i);
}

__attribute__((target("avx2"))) static void
add_f32_avx2(float *acc, const void *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m256 a0 = _mm256_loadu_ps(acc + i);
		__m256 a1 = _mm256_loadu_ps(acc + i + 8);
		__m256 b0 = _mm256_loadu_ps((const float *)(s + 4 * i));
		__m256 b1 = _mm256_loadu_ps((const float *)(s + 4 * i + 32));
		_mm256_storeu_ps(acc + i, _mm256_add_ps(a0, b0));
		_mm256_storeu_ps(acc + i + 8, _mm256_add_ps(a1, b1));
	}
	add_f32_sse2(acc + i, s + 4 * i, n - i);
}

/* 0: not asked yet, 1: no AVX2, 2: AVX2. Asked once; every thread that
 * races to ask stores the same answer. */
static int avx2_state;

static int
have_avx2(void)
{
	int s = __atomic_load_n(&avx2_state, __ATOMIC_RELAXED);

	if (s == 0) {
		__builtin_cpu_init();
		s = __builtin_cpu_supports("avx2") ? 2 : 1;
		__atomic_store_n(&avx2_state, s, __ATOMIC_RELAXED);
	}
	return s == 2;
}

void
ibex_agg_add_i32(int32_t *acc, const void *src, uint32_t n)
{
	if (have_avx2())
		add_i32_avx2(acc, src, n);
	else
		add_i32_sse2(acc, src, n);
}

void
ibex_agg_add_f32(float *acc, const void *src, uint32_t n)
{
	if (have_avx2())
		add_f32_avx2(acc, src, n);
	else
		add_f32_sse2(acc, src, n);
}

const char *
ibex_agg_add_path(void)
{
	return have_avx2() ? "avx2" : "sse2";
}

#else /* !__x86_64__ */

void
ibex_agg_add_i32(int32_t *acc, const void *src, uint32_t n)
{
	ibex_agg_add_i32_scalar(acc, src, n);
}

void
ibex_agg_add_f32(float *acc, const void *src, uint32_t n)
{
	ibex_agg_add_f32_scalar(acc, src, n);
}

const char *
ibex_agg_add_path(void)
{
	return "scalar";
}

#endif
