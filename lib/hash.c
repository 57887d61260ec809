/*
 * hash.c: kp_hash64(), 64 bits of a run of bytes, eight at a time in four
 * lanes so that the multiplies do not wait on each other.  Not for
 * adversaries: kp compares the hashes of a page's own blocks and rows.
 */
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kp_hash.h"

/* FNV-1a's step on words, not bytes (2,900 instructions a row of 68
 * values byte by byte), with a shift so that high bits reach the low ones. */
static uint64_t
hash_words(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	uint64_t w, x, y, z;

	if (n >= 32) {
		uint64_t h1 = h ^ 0x9e3779b97f4a7c15ULL, h2 = h ^ 0xc2b2ae3d27d4eb4fULL,
		    h3 = h ^ 0x165667b19e3779f9ULL;

		for (; n >= 32; n -= 32, b += 32) {
			memcpy(&w, b, 8);
			memcpy(&x, b + 8, 8);
			memcpy(&y, b + 16, 8);
			memcpy(&z, b + 24, 8);
			h = (h ^ w) * 0x100000001b3ULL;
			h1 = (h1 ^ x) * 0x100000001b3ULL;
			h2 = (h2 ^ y) * 0x100000001b3ULL;
			h3 = (h3 ^ z) * 0x100000001b3ULL;
			h ^= h >> 31;
			h1 ^= h1 >> 31;
			h2 ^= h2 >> 31;
			h3 ^= h3 >> 31;
		}
		h = ((h * 31 + h1) * 31 + h2) * 31 + h3;
	}
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, b, n);
	h = (h ^ w ^ (uint64_t)n << 56) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

/*
 * Where the CPU has AVX2 (and n >= 64, kp_hash64 sees to it), 32 bytes a
 * step in four 64-bit lanes, each lane adding the product of the two halves
 * of (data ^ a key that moves every step) and its neighbour's raw data (so
 * that a zero product loses nothing), as XXH3's accumulator does.  A last
 * part of less than 32 bytes is taken as the last 32 bytes, overlapping the
 * step before, under a key no step has; the lanes are then folded and mixed
 * by two multiplies (MurmurHash3's finaliser), not a chain of them: the
 * source reader hashes every record (a 340-byte one in ~190 instructions).
 * Another function of the same bytes: a hash is only compared with those
 * the same process made.
 */
#if defined(__x86_64__) && defined(__GNUC__)
static inline uint64_t
rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static __attribute__((target("avx2"))) uint64_t
hash_avx2(const unsigned char *b, size_t n, uint64_t h)
{
	__m256i acc = _mm256_set_epi64x((long long)(h ^ 0x165667b19e3779f9ULL),
	    (long long)(h ^ 0xc2b2ae3d27d4eb4fULL), (long long)(h ^ 0x9e3779b97f4a7c15ULL),
	    (long long)h);
	__m256i key = _mm256_set_epi64x(0x27d4eb2f165667c5LL, 0x7a646e4d9ab1d1c3LL,
	    0x1f83d9abfb41bd6bLL, 0x5be0cd19137e2179LL);
	const __m256i step = _mm256_set1_epi64x((long long)0x9e3779b97f4a7c15ULL);
	const unsigned char *end = b + n;
	uint64_t lane[4];

	for (; end - b >= 32; b += 32) {
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)b);
		__m256i x = _mm256_xor_si256(d, key);
		__m256i m = _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32));

		acc = _mm256_add_epi64(acc, _mm256_add_epi64(m,
		    _mm256_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2))));
		key = _mm256_add_epi64(key, step);
	}
	if (b < end) {
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(end - 32));
		__m256i x = _mm256_xor_si256(d, _mm256_xor_si256(key,
		    _mm256_set1_epi64x((long long)0xd6e8feb86659fd93ULL)));
		__m256i m = _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32));

		acc = _mm256_add_epi64(acc, _mm256_add_epi64(m,
		    _mm256_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2))));
	}
	_mm256_storeu_si256((__m256i *)(void *)lane, acc);
	h = lane[0] ^ rotl64(lane[1], 16) ^ rotl64(lane[2], 32) ^ rotl64(lane[3], 48) ^
	    (uint64_t)n;
	h = (h ^ h >> 33) * 0xff51afd7ed558ccdULL;
	h = (h ^ h >> 33) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 33;
}
#endif

uint64_t
kp_hash64(const void *p, size_t n, uint64_t h)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (n >= 64 && __builtin_cpu_supports("avx2"))
		return hash_avx2(p, n, h);
#endif
	return hash_words(p, n, h);
}
