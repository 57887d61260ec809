/*
 * csv_squeeze.c: kp_csv_squeeze(), for kp_csv_fields_copy().  A record's
 * bytes are taken sixteen at a time; which of each eight stay is a byte of
 * the block's keep mask, and tables made once give, for each such byte, the
 * shuffle (SSSE3's pshufb) that packs them to the front and how many they
 * are.  About two instructions a byte (torch_mix: 7.8 k a launch), where
 * the loop over the fields took 13.6 k (most hold one to five bytes).
 */
#include <pthread.h>
#include <stdint.h>

#include "csv_squeeze.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* for each byte of a keep mask: the kept bytes' places, then 0x80 (a zero) */
static unsigned char shuf[2][256][8];	/* [1]: the places of the high 8 of 16 */
static unsigned char count[256];	/* how many are kept */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
tables(void)
{
	unsigned m, b, j;

	for (m = 0; m < 256; m++) {
		for (b = j = 0; b < 8; b++)
			if (m >> b & 1) {
				shuf[0][m][j] = (unsigned char)b;
				shuf[1][m][j++] = (unsigned char)(b + 8);
			}
		count[m] = (unsigned char)j;
		for (; j < 8; j++)
			shuf[0][m][j] = shuf[1][m][j] = 0x80;
	}
}

int
kp_csv_squeeze_usable(void)
{
	return __builtin_cpu_supports("ssse3");
}

/* The bytes of block k that stay: all but the two after each closing quote. */
static inline uint64_t
kept(const uint64_t *masks, size_t k)
{
	uint64_t m = masks[k], d = m << 1 | m << 2;

	if (k > 0)	/* a quote at bit 62 or 63 of the block before */
		d |= masks[k - 1] >> 62 | masks[k - 1] >> 63;
	return ~d;
}

/*
 * Whole blocks of 64 bytes, 16 at a time: the two halves' shuffles in one,
 * the low half stored, then the high one after what the low one kept.  A
 * block's bytes before from or from end on are not kept, so the first and
 * last blocks need no other care; the record's last block may be read
 * whole (csv.c's scans do too: PAD).
 */
__attribute__((target("ssse3"))) size_t
kp_csv_squeeze(const char *rec, const uint64_t *masks, size_t from, size_t end, char *dst)
{
	const __m128i zero = _mm_setzero_si128(), quote = _mm_set1_epi8('"');
	size_t k, last;
	char *d = dst;

	if (from >= end)
		return 0;
	(void)pthread_once(&once, tables);
	last = (end - 1) / 64;
	for (k = from / 64; k <= last; k++) {
		uint64_t keep = kept(masks, k);
		const char *s = rec + k * 64;
		int g;

		if (from > k * 64)
			keep &= ~(uint64_t)0 << (from - k * 64);
		if (k == last && end - k * 64 < 64)
			keep &= ((uint64_t)1 << (end - k * 64)) - 1;
		for (g = 0; g < 4; g++, keep >>= 16, s += 16) {
			unsigned lo = (unsigned)keep & 0xff, hi = (unsigned)(keep >> 8) & 0xff;
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
			__m128i sh = _mm_unpacklo_epi64(
			    _mm_loadl_epi64((const __m128i *)(const void *)shuf[0][lo]),
			    _mm_loadl_epi64((const __m128i *)(const void *)shuf[1][hi]));

			/* a NUL is a closing quote a pick has made a field's end */
			v = _mm_or_si128(v, _mm_and_si128(_mm_cmpeq_epi8(v, zero), quote));
			v = _mm_shuffle_epi8(v, sh);
			_mm_storel_epi64((__m128i *)(void *)d, v);
			d += count[lo];
			_mm_storel_epi64((__m128i *)(void *)d, _mm_unpackhi_epi64(v, v));
			d += count[hi];
		}
	}
	return (size_t)(d - dst);
}

#else

int
kp_csv_squeeze_usable(void)
{
	return 0;
}

size_t
kp_csv_squeeze(const char *rec, const uint64_t *masks, size_t from, size_t end, char *dst)
{
	(void)rec;
	(void)masks;
	(void)from;
	(void)end;
	(void)dst;
	return 0;
}

#endif
