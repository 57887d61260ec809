/*
 * csv.c: a streaming reader for the CSV that ncu prints.
 *
 * ncu mixes its CSV with lines that are not CSV: its own ==PROF==, ==WARNING==
 * and ==ERROR== lines and whatever the profiled program writes to stdout.  Every
 * CSV record ncu prints begins with a double quote, so a line that begins with
 * anything else is noise and is skipped.  Records are parsed per RFC 4180
 * (quoted fields, "" for a quote, newlines inside quotes) in one pass over a
 * fixed-size read buffer; memory is bounded by the longest record.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KP_CSV_WIDE 1	/* AVX2 and AVX-512 scans, chosen when the CPU has them */
#endif
#endif

#include "kp_arena.h"
#include "kp_atomic.h"
#include "kp_csv.h"
#include "csv_squeeze.h"
#include "kp_readahead.h"
#include "kp_diag.h"

#ifndef KP_CSV_CHUNK
#define KP_CSV_CHUNK (1024 * 1024)	/* tests use a tiny one */
#endif
#define CHUNK KP_CSV_CHUNK
#define PAD 64			/* zeroed bytes past the sentinel: whole-block loads */

#define NFE 4		/* the leading fields whose ends a prescan keeps */
#define NOWANT UINT32_MAX	/* not a wanted field (kp_csv_want) */
struct ends {			/* closing quotes, from the record's start */
	uint32_t fe[NFE];	/* of fields 0 .. nfe - 1 */
	uint32_t le, lp;	/* of the last field and the one before it */
	uint32_t nfe;
};

struct kp_csv {
	FILE *fp;
	kp_csv_read_fn *rd;	/* or what rd(rdarg) gives (kp_csv_open_read) */
	void *rdarg;
	int own;
	char *name;
	char *buf;		/* cap bytes, one for a sentinel quote, PAD */
	size_t cap;
	size_t mapped;		/* buf is a kp_populated() mapping of this size, else 0 */
	struct kp_ra *ra;	/* a reader thread: buf is one of its buffers or priv */
	char *priv;		/* with ra: the buffer of a record longer than room */
	size_t pcap;		/* priv's bytes (and 1 + PAD more) */
	size_t room;		/* the bytes before each of ra's chunks */
	int slot;		/* ra's buffer that buf is, -1 for priv */
	size_t rs;		/* where the current record begins */
	size_t pos, end;	/* unread bytes: buf[pos..end) */
	int eof;
	size_t *offs;		/* field starts, relative to rs */
	struct kp_field *fields;
	size_t nf, fcap;
	uint64_t (*scan)(const char *, size_t, uint64_t *, uint32_t *, size_t *);	/* fast_record's */
	size_t (*select)(uint64_t, size_t);	/* kp_csv_pick's, or NULL */
	uint64_t *masks;	/* fast_record: closing quotes, a mask per 64 bytes */
	uint32_t *bcnt;		/* closing quotes before each block */
	uint64_t *mown;		/* masks and bcnt are these, or a prescan's */
	uint32_t *bown;
	size_t mcap;
	struct prescans *pre;	/* with ra: the records the thread has scanned */
	size_t ti;		/* the next of them to look at in this slot */
	int lazy;		/* kp_csv_lazy(): fast-form records are not split */
	int pending;		/* this record's fields are not set yet (lazy) */
	char *rec;		/* the pending record, its closing-quote blocks */
	size_t nblk;
	size_t reclen;		/* its bytes before the newline */
	uint32_t *picked;	/* pending: field i is set when picked[i] == gen */
	uint32_t gen;
	int crlast;		/* the last field ends in a CR of the line ending */
	int squeeze;		/* kp_csv_fields_copy() by kp_csv_squeeze() */
	struct ends q;		/* the pending record's, from a prescan (q.nfe 0: none) */
	int haveq;
	uint32_t *wpos;		/* kp_csv_want(): field i's place in the list, or NOWANT */
	size_t nwpos;		/* the fields wpos has, the last wanted one + 1 */
	const uint32_t *wse;	/* the pending record's wanted fields' starts and ends, or NULL */
	size_t whits;		/* picks that took them */
	unsigned long line;	/* lines consumed so far */
	unsigned long recline;	/* line where the current record began */
	unsigned long noise;
	char lasterr[512];
};

static void isa_set(struct kp_csv *c);

/*
 * The reader thread's scans of one buffer's records (prescan()): each line
 * after the buffer's first newline that the scan could end, by its offset
 * from the buffer's data.  The scan of a line depends on its bytes alone, so
 * fast_record() takes an entry for a record that begins at its offset.
 */
struct prescan {
	struct prerec {
		uint32_t off, len;	/* the line, from the data's start */
		uint32_t mi;		/* its masks and counts: masks + mi */
		uint32_t r;		/* SCAN_FORM or SCAN_OTHER */
		struct ends q;		/* SCAN_FORM: for kp_csv_pick without a walk */
	} *rec;
	size_t n, cap;
	uint64_t *masks;
	uint32_t *bcnt;
	size_t mcap;
	uint32_t *wse;		/* each record's wanted fields' starts and ends, 2 nw a record */
	size_t nw;		/* the wanted fields these scans found, 0 none */
};
struct prescans {
	uint64_t (*scan)(const char *, size_t, uint64_t *, uint32_t *, size_t *);
	size_t (*select)(uint64_t, size_t);
	uint32_t *want;		/* kp_csv_want()'s fields, ascending; set before nwant */
	_Atomic size_t nwant;	/* published by the main thread, read by the reader's */
	struct prescan s[3];
};
static struct prescans *prescans_new(size_t chunk);
static void prescans_free(struct prescans *p);
static void prescan(void *arg, int slot, const char *data, size_t n);

/*
 * The buffer: CHUNK bytes, or less for a regular file smaller than that (a
 * stage file is 30-160 KB; zeroing 1 MiB for it cost more than parsing it).
 * It still doubles when a record does not fit, so a file that grows while
 * it is read is read whole.
 */
static size_t
first_cap(FILE *fp)
{
	struct stat st;
	size_t cap = 4096;

	if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size >= CHUNK)
		return CHUNK;
	while (cap <= (size_t)st.st_size)
		cap *= 2;
	return cap < CHUNK ? cap : CHUNK;
}

/*
 * A reader thread (lib/readahead.c) for a regular file of RA_MIN bytes or
 * more still unread, where a second CPU is online: read(2)'s copy out of the
 * page cache, a sixth of the time at 100 MB, then runs beside the parse.
 * Each chunk has ROOM bytes before it for the record carried over; a longer
 * one goes to priv.  KP_CSV_READAHEAD=0 turns it off, =1 on for any regular
 * file; kp_csv_readahead() sets the chunk (tests: records across many).
 */
#define RA_MIN ((off_t)8 * CHUNK)
#define ROOM(chunk) ((chunk) / 4 > 64 ? (chunk) / 4 : 64)

static size_t ra_forced;	/* kp_csv_readahead(): the chunk, for any regular file */

void
kp_csv_readahead(size_t chunk)
{
	ra_forced = chunk;
}

/* The chunk of a reader thread for fp, 0 for none. */
static size_t
ra_wanted(FILE *fp)
{
	const char *env = getenv("KP_CSV_READAHEAD");
	struct stat st;
	off_t at;
	int fd = fileno(fp);
	int forced = ra_forced > 0 || (env != NULL && strcmp(env, "1") == 0);

	if ((env != NULL && strcmp(env, "0") == 0) || fd < 0 || fstat(fd, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	/* nothing in stdio's buffer: the thread's read(2) goes on from where fp is */
	if ((at = lseek(fd, 0, SEEK_CUR)) < 0 || ftello(fp) != at)
		return 0;
	if (!forced && (st.st_size - at < RA_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return 0;
	return ra_forced > 0 ? ra_forced : CHUNK;
}

/* The reader thread and its scans; -1 (none of them) when it cannot start. */
static int
ra_start(struct kp_csv *c, int fd, size_t chunk)
{
	if ((c->pre = prescans_new(chunk)) == NULL)
		return -1;
	c->pre->scan = c->scan;
	c->pre->select = c->select;
	if ((c->ra = kp_ra_start(fd, chunk, ROOM(chunk), 1 + PAD,
	    c->scan != NULL ? prescan : NULL, c->pre)) == NULL) {
		prescans_free(c->pre);
		c->pre = NULL;
		return -1;
	}
	return 0;
}

static struct kp_csv *
csv_new(FILE *fp, kp_csv_read_fn *rd, void *arg, const char *name)
{
	struct kp_csv *c;
	size_t chunk;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->fp = fp;
	c->rd = rd;
	c->rdarg = arg;
	c->name = strdup(name ? name : "<stdin>");
	c->cap = fp != NULL ? first_cap(fp) : CHUNK;
	isa_set(c);
	if (fp != NULL && (chunk = ra_wanted(fp)) > 0 && ra_start(c, fileno(fp), chunk) == 0) {
		c->room = ROOM(chunk);
		c->slot = -1;
		c->buf = c->priv = calloc(1, 1 + PAD);	/* pcap 0: the empty start */
	} else if (c->cap == CHUNK && CHUNK >= 65536 &&
	    (c->buf = kp_populated(c->cap + 1 + PAD)) != NULL)
		/* a full-size buffer is read into whole: faulted in at once */
		c->mapped = c->cap + 1 + PAD;
	else
		c->buf = calloc(1, c->cap + 1 + PAD);
	c->fcap = 64;
	c->offs = malloc(c->fcap * sizeof(*c->offs));
	c->fields = malloc(c->fcap * sizeof(*c->fields));
	if (!c->name || !c->buf || !c->offs || !c->fields) {
		kp_csv_close(c);
		return NULL;
	}
	c->buf[0] = '"';
	return c;
}

struct kp_csv *
kp_csv_open(FILE *fp, const char *name)
{
	return csv_new(fp, NULL, NULL, name);
}

struct kp_csv *
kp_csv_open_read(kp_csv_read_fn *rd, void *arg, const char *name)
{
	return csv_new(NULL, rd, arg, name);
}

struct kp_csv *
kp_csv_open_path(const char *path, struct kp_err *err)
{
	FILE *fp;
	struct kp_csv *c;

	if (kp_is_dir(path)) {
		kp_errf(err, KP_EXIT_DATA, "%s: is a directory", path);
		return NULL;
	}
	if ((fp = fopen(path, "rb")) == NULL) {
		kp_errf(err, errno == ENOENT || errno == EACCES ? KP_EXIT_DATA : KP_EXIT_ENV,
		    "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((c = kp_csv_open(fp, path)) == NULL) {
		fclose(fp);
		kp_errf(err, KP_EXIT_ENV, "%s: out of memory", path);
		return NULL;
	}
	c->own = 1;
	return c;
}

void
kp_csv_close(struct kp_csv *c)
{
	if (c == NULL)
		return;
	if (c->own && c->fp)
		fclose(c->fp);
	free(c->name);
	kp_ra_stop(c->ra);
	prescans_free(c->pre);	/* after the thread: it writes them */
	if (c->ra != NULL) {
		free(c->priv);
	} else if (c->mapped)
		kp_populated_free(c->buf, c->mapped);
	else
		free(c->buf);
	free(c->offs);
	free(c->fields);
	free(c->mown);
	free(c->bown);
	free(c->picked);
	free(c->wpos);
	free(c);
}

/*
 * Read more input after buf[end], keeping buf[rs..end) (the record being
 * parsed, moved to the front of the buffer, which doubles when that record
 * fills it).  Returns the number of bytes read, 0 at end of input, -1 on a
 * read error or out of memory (errno says which).
 */
/*
 * more() with a reader thread: the next chunk, buf[rs..end) copied into the
 * room before it (or both into priv, when that record is longer than room).
 */
static long
more_ra(struct kp_csv *c)
{
	size_t n, keep = c->end - c->rs;
	char *base;
	int slot;

	if (kp_ra_next(c->ra, &slot, &base, &n) < 0) {
		c->eof = 1;
		return -1;
	}
	if (n == 0) {
		c->eof = 1;
		return 0;
	}
	if (keep <= c->room) {
		memcpy(base + c->room - keep, c->buf + c->rs, keep);
		kp_ra_done(c->ra, c->slot);
		c->buf = base;
		c->slot = slot;
		c->ti = 0;
		c->pos = c->pos - c->rs + c->room - keep;
		c->rs = c->room - keep;
		c->end = c->room + n;
	} else {
		if (keep + n > c->pcap) {
			size_t cap = c->pcap ? c->pcap : c->room + c->room;
			char *nb;

			while (cap < keep + n)
				cap *= 2;
			if (cap > (size_t)1 << 40 || (nb = malloc(cap + 1 + PAD)) == NULL) {
				kp_ra_done(c->ra, slot);
				errno = ENOMEM;
				return -1;
			}
			memcpy(nb, c->buf + c->rs, keep);
			free(c->priv);
			c->priv = nb;
			c->pcap = cap;
		} else
			memmove(c->priv, c->buf + c->rs, keep);
		kp_ra_done(c->ra, c->slot);
		memcpy(c->priv + keep, base + c->room, n);
		kp_ra_done(c->ra, slot);
		c->buf = c->priv;
		c->slot = -1;
		c->pos -= c->rs;
		c->rs = 0;
		c->end = keep + n;
	}
	c->buf[c->end] = '"';
	return (long)n;
}

static long
more(struct kp_csv *c)
{
	size_t n;

	if (c->eof)
		return 0;
	if (c->ra != NULL)
		return more_ra(c);
	if (c->rs > 0) {
		memmove(c->buf, c->buf + c->rs, c->end - c->rs);
		c->pos -= c->rs;
		c->end -= c->rs;
		c->rs = 0;
	}
	if (c->end == c->cap) {
		char *nb;

		if (c->cap > (size_t)1 << 40 ||
		    (nb = c->mapped ? malloc(2 * c->cap + 1 + PAD) :
		    realloc(c->buf, 2 * c->cap + 1 + PAD)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		memset(nb + c->cap, 0, c->cap + 1 + PAD);
		if (c->mapped) {	/* the mapping is left for the heap */
			memcpy(nb, c->buf, c->cap);
			kp_populated_free(c->buf, c->mapped);
			c->mapped = 0;
		}
		c->buf = nb;
		c->cap *= 2;
	}
	if (c->rd != NULL) {
		long r;

		do
			r = c->rd(c->rdarg, c->buf + c->end, c->cap - c->end);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			c->eof = 1;
			c->buf[c->end] = '"';
			if (errno == 0)
				errno = EIO;
			return -1;
		}
		n = (size_t)r;
	} else
		n = fread(c->buf + c->end, 1, c->cap - c->end, c->fp);
	c->end += n;
	c->buf[c->end] = '"';	/* the sentinel that ends the quoted-field scan */
	if (n == 0) {
		c->eof = 1;
		if (c->fp != NULL && ferror(c->fp)) {
			if (errno == 0)
				errno = EIO;
			return -1;
		}
		return 0;
	}
	return (long)n;
}

/* At least want unread bytes unless the input ends first; -1 on error. */
static int
avail(struct kp_csv *c, size_t want)
{
	long r;

	c->rs = c->pos;
	while (c->end - c->pos < want)
		if ((r = more(c)) <= 0)
			return (int)r;
	return 1;
}

/* Skip one non-CSV line, remembering ==ERROR== / ==WARNING== text. */
static int
skip_line(struct kp_csv *c)
{
	const char *s, *nl;
	size_t n, kept;

	if (avail(c, 11) < 0)
		return -1;
	s = c->buf + c->pos;
	n = c->end - c->pos;
	/* the whole line when it is a message worth keeping */
	while (((n >= 9 && memcmp(s, "==ERROR==", 9) == 0) ||
	    (n >= 11 && memcmp(s, "==WARNING==", 11) == 0)) &&
	    n < sizeof(c->lasterr) - 1 && !c->eof && memchr(s, '\n', n) == NULL) {
		if (more(c) < 0)
			return -1;
		s = c->buf + c->pos;
		n = c->end - c->pos;
	}
	if ((n >= 9 && memcmp(s, "==ERROR==", 9) == 0) ||
	    (n >= 11 && memcmp(s, "==WARNING==", 11) == 0)) {
		nl = memchr(s, '\n', n);
		kept = nl ? (size_t)(nl - s) : n;
		if (kept > sizeof(c->lasterr) - 1)
			kept = sizeof(c->lasterr) - 1;
		memcpy(c->lasterr, s, kept);
		c->lasterr[kept] = '\0';
	}
	for (;;) {
		nl = memchr(c->buf + c->pos, '\n', c->end - c->pos);
		if (nl != NULL) {
			c->pos = (size_t)(nl - c->buf) + 1;
			break;
		}
		c->pos = c->end;
		c->rs = c->pos;
		if (more(c) < 0)
			return -1;
		if (c->pos == c->end)
			break;
	}
	c->line++;
	c->noise++;
	return 0;
}

static int
truncated(struct kp_csv *c, struct kp_err *err, const char *what)
{
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: truncated record: %s", c->name,
	    c->recline, what);
}

static int
fields_grow(struct kp_csv *c)
{
	size_t cap = c->fcap * 2;
	size_t *no = realloc(c->offs, cap * sizeof(*no));
	struct kp_field *nfl;

	if (no == NULL)
		return -1;
	c->offs = no;
	if ((nfl = realloc(c->fields, cap * sizeof(*nfl))) == NULL)
		return -1;
	c->fields = nfl;
	if (c->picked != NULL) {
		uint32_t *np = realloc(c->picked, cap * sizeof(*np));

		if (np == NULL)
			return -1;
		memset(np + c->fcap, 0, (cap - c->fcap) * sizeof(*np));
		c->picked = np;
	}
	c->fcap = cap;
	return 0;
}

static int
field_add(struct kp_csv *c, size_t start, size_t len)
{
	if (c->nf == c->fcap && fields_grow(c) < 0)
		return -1;
	c->offs[c->nf] = start;
	c->fields[c->nf++].len = len;
	return 0;
}

#ifdef __SSE2__
/* Bit i of *q set when s[i] is '"', of *m when it is ',', for i < 64. */
static inline void
masks64(const char *s, uint64_t *q, uint64_t *m)
{
	const __m128i dq = _mm_set1_epi8('"'), cm = _mm_set1_epi8(',');
	const __m128i v0 = _mm_loadu_si128((const void *)s),
	    v1 = _mm_loadu_si128((const void *)(s + 16)),
	    v2 = _mm_loadu_si128((const void *)(s + 32)),
	    v3 = _mm_loadu_si128((const void *)(s + 48));

	*q = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, dq)) |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, dq)) << 16 |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, dq)) << 32 |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, dq)) << 48;
	*m = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, cm)) |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, cm)) << 16 |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, cm)) << 32 |
	    (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, cm)) << 48;
}

/* Bit i: the parity of the set bits 0..i of m. */
static inline uint64_t
prefix_xor(uint64_t m)
{
	m ^= m << 1;
	m ^= m << 2;
	m ^= m << 4;
	m ^= m << 8;
	m ^= m << 16;
	m ^= m << 32;
	return m;
}

/* The set bits of m (no libcall where the target has no popcnt instruction). */
static inline size_t
pop64(uint64_t m)
{
#ifdef __POPCNT__
	return (size_t)__builtin_popcountll(m);
#else
	m = m - ((m >> 1) & 0x5555555555555555ULL);
	m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
	m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (size_t)((m * 0x0101010101010101ULL) >> 56);
#endif
}

/*
 * cnt[k]: the set bits of m[0..k), for k <= n.  Two masks at a time: the
 * bits of each byte added up in the byte, then psadbw adds the bytes of
 * each half (SSE2 has no popcnt).
 */
static void
block_counts(const uint64_t *m, uint32_t *cnt, size_t n)
{
	const __m128i b1 = _mm_set1_epi8(0x55), b2 = _mm_set1_epi8(0x33),
	    b4 = _mm_set1_epi8(0x0f), z = _mm_setzero_si128();
	size_t k;
	uint32_t sum = 0;

	for (k = 0; k + 2 <= n; k += 2) {
		__m128i v = _mm_loadu_si128((const void *)(m + k));

		v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi16(v, 1), b1));
		v = _mm_add_epi8(_mm_and_si128(v, b2), _mm_and_si128(_mm_srli_epi16(v, 2), b2));
		v = _mm_and_si128(_mm_add_epi8(v, _mm_srli_epi16(v, 4)), b4);
		v = _mm_sad_epu8(v, z);
		cnt[k] = sum;
		sum += (uint32_t)_mm_cvtsi128_si32(v);
		cnt[k + 1] = sum;
		sum += (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 8));
	}
	if (k < n) {
		cnt[k] = sum;
		sum += (uint32_t)pop64(m[k]);
	}
	cnt[n] = sum;
}

/* fast_record's state from one 64-byte block to the next */
struct scan {
	uint64_t par;		/* all ones inside quotes at the block's start */
	uint64_t cc, cq;	/* the last block's closing quotes shifted out by 1 and 2 */
	uint64_t bad;
};

/*
 * One block's closing quotes (q its quotes, pxq prefix_xor(q), m its
 * commas): a quote with an even number of quotes up to it.  Every closing quote must be followed by
 * ',' and then '"', at the positions valid allows (not the record's last byte
 * or past it: only the last quote can be there, and the end checks cover it).
 */
static inline uint64_t
scan_block(struct scan *st, uint64_t q, uint64_t pxq, uint64_t m, uint64_t valid)
{
	uint64_t px = pxq ^ st->par, cl = q & ~px;

	st->par = (uint64_t)0 - (px >> 63);
	st->bad |= ((((cl << 1) | st->cc) & ~m) | (((cl << 2) | st->cq) & ~q)) & valid;
	st->cc = cl >> 63;
	st->cq = cl >> 62;
	return cl;
}

/*
 * The scans.  Each finds the record that begins at b[0]: the bytes up to the
 * first newline of b[0..avail) (*lenp: how many), and whether they have the
 * form ncu prints: every field quoted, "," between fields, no quote inside
 * one, " or "\r before the newline.  For that form it leaves the closing
 * quotes, one 64-bit mask per block of 64 bytes (masks[nblk] = 0 after the
 * record's nblk blocks), and cnt[k], the closing quotes before block k, for
 * k <= nblk (cnt[nblk]: the fields).  Returns SCAN_FORM, SCAN_OTHER (a
 * record of another form, *lenp set), SCAN_NUL (another form: a NUL byte
 * before the newline, *lenp not set) or SCAN_MORE (no newline in avail
 * bytes).  So a record of the form has no NUL of its own.  masks and cnt have room for avail / 64 + 2; b[avail .. avail +
 * 66) may be read (the sentinel and PAD); nothing is written to b.
 */
enum { SCAN_FORM, SCAN_OTHER, SCAN_MORE, SCAN_NUL };

/* The last quote of the record b[0..len): its last byte, or the one before a CR. */
static inline int
last_quote(const char *b, size_t len, size_t *e)
{
	if (b[len - 1] == '"')
		*e = len - 1;
	else if (len >= 2 && b[len - 1] == '\r' && b[len - 2] == '"')
		*e = len - 2;
	else
		return 0;
	return 1;
}

/*
 * SSE2, the baseline: the newline by memchr, then one pass 64 bytes at a
 * time finds the quotes and commas and, by the parity of the quotes before
 * each, the closing ones (scan_block).  The whole blocks need no length
 * masks; the last one (1 to 64 bytes) has them.
 */
static uint64_t
scan_sse2(const char *b, size_t avail, uint64_t *masks, uint32_t *cnt, size_t *lenp)
{
	const char *nlp = memchr(b, '\n', avail);
	size_t len, nblk, base, k, e;
	struct scan st = { 0, 0, 0, 0 };
	uint64_t q, m, lm;

	if (nlp == NULL)
		return SCAN_MORE;
	*lenp = len = (size_t)(nlp - b);
	if (!last_quote(b, len, &e))
		return SCAN_OTHER;
	if (memchr(b, '\0', len) != NULL)
		return SCAN_NUL;
	nblk = (len + 63) / 64;
	for (k = 0, base = 0; base + 64 < len; k++, base += 64) {
		masks64(b + base, &q, &m);
		masks[k] = scan_block(&st, q, prefix_xor(q), m, ~(uint64_t)0);
	}
	masks64(b + base, &q, &m);
	lm = len - base == 64 ? ~(uint64_t)0 : ((uint64_t)1 << (len - base)) - 1;
	q &= lm;
	masks[k] = scan_block(&st, q, prefix_xor(q), m & lm, ((uint64_t)1 << (len - 1 - base)) - 1);
	masks[nblk] = 0;
	if ((st.par | st.bad) != 0)
		return SCAN_OTHER;
	block_counts(masks, cnt, nblk);
	return SCAN_FORM;
}

#ifdef KP_CSV_WIDE
#define WIDE_ATTR __attribute__((target("avx2,popcnt")))
#define WIDEST_ATTR __attribute__((target("avx512f,avx512bw,popcnt")))

/*
 * 64 bytes at s: the quotes (*q), the newlines and NULs (*nl) and the
 * separators (*t: a quote followed by ',' and '"'), the loads at s + 1 and
 * s + 2 giving the bytes after each one.
 */
static inline WIDE_ATTR void
masks64_avx2(const char *s, uint64_t *q, uint64_t *t, uint64_t *nl)
{
	const __m256i dq = _mm256_set1_epi8('"'), cm = _mm256_set1_epi8(','),
	    lf = _mm256_set1_epi8('\n');
	uint64_t h[2][3];
	int j;

	for (j = 0; j < 2; j++) {
		const char *p = s + 32 * j;
		__m256i v0 = _mm256_loadu_si256((const void *)p),
		    v1 = _mm256_loadu_si256((const void *)(p + 1)),
		    v2 = _mm256_loadu_si256((const void *)(p + 2)), vq = _mm256_cmpeq_epi8(v0, dq);

		h[j][0] = (uint32_t)_mm256_movemask_epi8(vq);
		h[j][1] = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(vq,
		    _mm256_and_si256(_mm256_cmpeq_epi8(v1, cm), _mm256_cmpeq_epi8(v2, dq))));
		h[j][2] = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(v0, lf),
		    _mm256_cmpeq_epi8(v0, _mm256_setzero_si256())));
	}
	*q = h[0][0] | h[1][0] << 32;
	*t = h[0][1] | h[1][1] << 32;
	*nl = h[0][2] | h[1][2] << 32;
}

static inline WIDEST_ATTR void
masks64_avx512(const char *s, uint64_t *q, uint64_t *t, uint64_t *nl)
{
	const __m512i v0 = _mm512_loadu_si512((const void *)s),
	    v1 = _mm512_loadu_si512((const void *)(s + 1)),
	    v2 = _mm512_loadu_si512((const void *)(s + 2)), dq = _mm512_set1_epi8('"');

	*q = _mm512_cmpeq_epi8_mask(v0, dq);
	*t = *q & _mm512_cmpeq_epi8_mask(v1, _mm512_set1_epi8(',')) &
	    _mm512_cmpeq_epi8_mask(v2, dq);
	*nl = _mm512_cmpeq_epi8_mask(v0, _mm512_set1_epi8('\n')) |
	    _mm512_testn_epi8_mask(v0, v0);
}

/*
 * The position of the j-th set bit of m (j < its set bits): a pdep, fast on
 * every CPU with AVX-512 (not on AMD's before Zen 3, which have AVX2 only).
 */
static __attribute__((target("bmi2"))) size_t
select_bmi2(uint64_t m, size_t j)
{
	return (size_t)__builtin_ctzll(_pdep_u64((uint64_t)1 << j, m));
}

#define SCAN_NAME scan_avx2
#define SCAN_ATTR WIDE_ATTR
#define SCAN_MASKS masks64_avx2
#include "csv_scan.h"

#define SCAN_NAME scan_avx512
#define SCAN_ATTR WIDEST_ATTR
#define SCAN_MASKS masks64_avx512
#include "csv_scan.h"
#endif

/* 0 the widest the CPU has, else the forced one's index in isas[] + 1 */
static int isa_forced;

static const struct isa {
	const char *name;
	uint64_t (*scan)(const char *, size_t, uint64_t *, uint32_t *, size_t *);
	size_t (*select)(uint64_t, size_t);	/* NULL: the walk clears bits */
} isas[] = {
#ifdef KP_CSV_WIDE
	{ "avx512", scan_avx512, select_bmi2 },
	{ "avx2", scan_avx2, NULL },
#endif
	{ "sse2", scan_sse2, NULL },
};

static int
isa_usable(size_t i)
{
#ifdef KP_CSV_WIDE
	if (isas[i].scan == scan_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		    __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi2");
	if (isas[i].scan == scan_avx2)
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#endif
	(void)i;
	return 1;
}

static const struct isa *
isa_now(void)
{
	static int env_read;
	const char *e;
	size_t i;

	if (!env_read) {	/* KP_CSV_ISA (kp(7)): a name this CPU has, else ignored */
		env_read = 1;
		if (isa_forced == 0 && (e = getenv("KP_CSV_ISA")) != NULL && *e != '\0')
			for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++)
				if (strcmp(isas[i].name, e) == 0 && isa_usable(i))
					isa_forced = (int)i + 1;
	}
	if (isa_forced > 0)
		return &isas[isa_forced - 1];
	for (i = 0; !isa_usable(i); i++)
		;
	return &isas[i];
}

const char *
kp_csv_isa(const char *want)
{
	size_t i;

	if (want == NULL)
		return isa_now()->name;
	if (*want == '\0') {
		isa_forced = 0;
		return isa_now()->name;
	}
	for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++)
		if (strcmp(isas[i].name, want) == 0 && isa_usable(i)) {
			isa_forced = (int)i + 1;
			return isas[i].name;
		}
	return NULL;
}

static void
isa_set(struct kp_csv *c)
{
	const struct isa *isa = isa_now();

	c->scan = isa->scan;
	c->select = isa->select;
	/* the wide scans' CPUs have SSSE3; KP_CSV_ISA=sse2 keeps the field loop */
	c->squeeze = isa->scan != scan_sse2 && kp_csv_squeeze_usable();
}

/* Room for the masks and counts of a record of up to n bytes. */
static int
masks_room(struct kp_csv *c, size_t n)
{
	size_t want = n / 64 + 2;
	uint64_t *nm;
	uint32_t *nb;

	if (want <= c->mcap)
		return 0;
	if ((nm = realloc(c->mown, want * sizeof(*nm))) == NULL)
		return -1;
	c->mown = nm;
	if ((nb = realloc(c->bown, want * sizeof(*nb))) == NULL)
		return -1;
	c->bown = nb;
	c->mcap = want;
	return 0;
}

/*
 * The record at buf[pos], the whole line in the buffer (more() as needed):
 * 1 when it has ncu's form (c->rec, c->nblk, c->nf set, pos after its
 * newline), 0 when it has another or the input ends first (the slow path
 * parses it or says why it cannot), -1 on a read error or out of memory.
 * Nothing is written to the record.
 */
static int
fast_record(struct kp_csv *c)
{
	size_t len = 0, nf;
	uint64_t r;
	long got;

	if (c->slot >= 0 && c->pre != NULL) {	/* the reader thread's scan, if it has one */
		const struct prescan *p = &c->pre->s[c->slot];
		size_t off = c->pos >= c->room ? c->pos - c->room : SIZE_MAX;

		while (c->ti < p->n && p->rec[c->ti].off < off)
			c->ti++;
		if (c->ti < p->n && p->rec[c->ti].off == off) {
			const struct prerec *e = &p->rec[c->ti++];

			if (c->ti < p->n) {	/* the next record: the thread's core wrote it */
				const char *nx = c->buf + c->room + p->rec[c->ti].off;
				size_t o;

				for (o = 0; o < p->rec[c->ti].len; o += 64)
					__builtin_prefetch(nx + o);
			}

			c->masks = p->masks + e->mi;
			c->bcnt = p->bcnt + e->mi;
			len = e->len;
			r = e->r;
			c->q = e->q;
			c->haveq = 1;
			/* the list is published once: nw is 0 or its length */
			c->wse = p->nw > 0 ? p->wse + (size_t)(e - p->rec) * 2 * p->nw : NULL;
			goto scanned;
		}
	}
	for (;;) {
		if (masks_room(c, c->end - c->pos) < 0) {
			errno = ENOMEM;
			return -1;
		}
		c->masks = c->mown;
		c->bcnt = c->bown;
		c->haveq = 0;
		c->wse = NULL;
		if ((r = c->scan(c->buf + c->pos, c->end - c->pos, c->masks, c->bcnt,
		    &len)) != SCAN_MORE)
			break;
		c->rs = c->pos;
		if ((got = more(c)) < 0)
			return -1;
		if (got == 0)
			return 0;
	}
scanned:
	c->rs = c->pos;
	/* counts fit: a record of 2^32 bytes or more is split whole (fields_grow) */
	if (r != SCAN_FORM || len >= UINT32_MAX)
		return 0;
	if ((nf = c->bcnt[(len + 63) / 64]) == 0)
		return 0;
	while (nf > c->fcap)
		if (fields_grow(c) < 0) {
			errno = ENOMEM;
			return -1;
		}
	c->rec = c->buf + c->pos;
	c->nblk = (len + 63) / 64;
	c->reclen = len;
	c->nf = nf;
	/* a CR before the newline, inside the last quotes, belongs to the line ending */
	c->crlast = c->rec[len - 1] == '"';
	c->pos += len + 1;
	return 1;
}

/*
 * A walk along the closing quotes of the fast-form record, to fields in
 * ascending order: the block k it is in, that block's quotes from the one
 * of field at on.  Each step to a later field in the same block drops the
 * quotes before it; whole blocks are passed by their counts.
 */
struct walk {
	size_t k, at;
	uint64_t m;
};

static inline void
walk_start(const struct kp_csv *c, struct walk *w)
{
	w->k = 0;
	w->at = 0;
	w->m = c->masks[0];
}

/*
 * Where field i's closing quote is in a record of these masks and counts;
 * i at or after the walk's field.
 */
static inline size_t
walk_in(const uint64_t *masks, const uint32_t *bcnt, size_t (*select)(uint64_t, size_t),
    struct walk *w, size_t i)
{
	if (bcnt[w->k + 1] <= i) {
		do
			w->k++;
		while (bcnt[w->k + 1] <= i);
		w->m = masks[w->k];
		w->at = bcnt[w->k];
	}
#ifdef KP_CSV_WIDE
	if (select) {
		w->at = i;
		return w->k * 64 + select(masks[w->k], i - bcnt[w->k]);
	}
#else
	(void)select;
#endif
	for (; w->at < i; w->at++)
		w->m &= w->m - 1;
	return w->k * 64 + (size_t)__builtin_ctzll(w->m);
}

static inline size_t
walk_to(const struct kp_csv *c, struct walk *w, size_t i)
{
	return walk_in(c->masks, c->bcnt, c->select, w, i);
}

/*
 * The closing quotes of a fast-form record's last field (*le) and of the one
 * before it (*lp), from the end of its nblk masks; 0 where it has no such
 * field.
 */
static inline void
last_two(const uint64_t *m, size_t nblk, size_t *le, size_t *lp)
{
	size_t k, b;
	uint64_t x;
	int found = 0;

	*le = *lp = 0;
	for (k = nblk; k-- > 0 && found < 2;)
		for (x = m[k]; x != 0 && found < 2; found++) {
			b = (size_t)(63 - __builtin_clzll(x));
			*(found == 0 ? le : lp) = k * 64 + b;
			x &= ~((uint64_t)1 << b);
		}
}

/* Field i of the fast-form record: its bytes stay, its closing quote its NUL. */
static inline void
set_field(struct kp_csv *c, size_t i, size_t start, size_t end)
{
	struct kp_field *f = &c->fields[i];

	f->s = c->rec + start;
	f->len = end - start;
	c->rec[end] = '\0';
	if (i + 1 == c->nf && c->crlast && f->len > 0 && c->rec[end - 1] == '\r') {
		c->rec[end - 1] = '\0';
		f->len--;
	}
}

/* Every field of the fast-form record. */
static void
split_all(struct kp_csv *c)
{
	size_t k, nf = 0, start = 1, pos;
	uint64_t m;

	for (k = 0; k < c->nblk; k++)
		for (m = c->masks[k]; m != 0; m &= m - 1) {
			pos = k * 64 + (size_t)__builtin_ctzll(m);
			set_field(c, nf++, start, pos);
			start = pos + 3;
		}
	c->pending = 0;
}
#endif

/*
 * The reader thread's scans, for chunks of chunk bytes (and their room): a
 * record per 128 bytes at most (the rest of a buffer of shorter ones is left
 * to fast_record), and room for the masks of them all.
 */
static struct prescans *
prescans_new(size_t chunk)
{
	struct prescans *p = calloc(1, sizeof(*p));
	size_t i;

	if (p == NULL)
		return NULL;
	for (i = 0; i < sizeof(p->s) / sizeof(p->s[0]); i++) {
		struct prescan *q = &p->s[i];

		q->cap = chunk / 128 + 16;
		q->mcap = (ROOM(chunk) + chunk) / 64 + 2 * q->cap + 4;
		if ((q->rec = malloc(q->cap * sizeof(*q->rec))) == NULL ||
		    (q->masks = malloc(q->mcap * sizeof(*q->masks))) == NULL ||
		    (q->bcnt = malloc(q->mcap * sizeof(*q->bcnt))) == NULL) {
			prescans_free(p);
			return NULL;
		}
	}
	return p;
}

static void
prescans_free(struct prescans *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < sizeof(p->s) / sizeof(p->s[0]); i++) {
		free(p->s[i].rec);
		free(p->s[i].masks);
		free(p->s[i].bcnt);
		free(p->s[i].wse);
	}
	free(p->want);
	free(p);
}

/*
 * The closing quotes of a fast-form record's first NFE fields and of its
 * last two, from its nblk masks (the walk kp_csv_pick would make, done
 * here on the reader thread, where the masks were just written).
 */
#ifdef __SSE2__
static void
ends_of(const uint64_t *m, size_t nblk, struct ends *q)
{
	size_t k, j = 0, le, lp;
	uint64_t x;

	for (k = 0; k < nblk && j < NFE; k++)
		for (x = m[k]; x != 0 && j < NFE; x &= x - 1)
			q->fe[j++] = (uint32_t)(k * 64 + (size_t)__builtin_ctzll(x));
	q->nfe = (uint32_t)j;
	last_two(m, nblk, &le, &lp);
	q->le = (uint32_t)le;
	q->lp = (uint32_t)lp;
}
#endif

/*
 * The starts and ends of a fast-form record's wanted fields (ps->want), from
 * its nblk masks and counts; a field past the record's last gets NOWANT.
 */
#ifdef __SSE2__
static void
wanted_of(const struct prescans *ps, size_t nw, const uint64_t *m, const uint32_t *bcnt,
    size_t nblk, uint32_t *se)
{
	size_t j, i, nf = bcnt[nblk];
	struct walk w = { 0, 0, m[0] };

	for (j = 0; j < nw; j++) {
		if ((i = ps->want[j]) >= nf) {
			se[2 * j] = se[2 * j + 1] = NOWANT;
			continue;
		}
		se[2 * j] = i == 0 ? 1 : (uint32_t)walk_in(m, bcnt, ps->select, &w, i - 1) + 3;
		se[2 * j + 1] = (uint32_t)walk_in(m, bcnt, ps->select, &w, i);
	}
}
#endif

/*
 * On the reader thread: scan the lines of a buffer just read that begin
 * after its first newline (the one before may have begun in the buffer
 * before), as fast_record() would, until one runs past the data.
 */
static void
prescan(void *arg, int slot, const char *data, size_t n)
{
	struct prescans *ps = arg;
	struct prescan *p = &ps->s[slot];
	const char *at, *e = data + n, *nl;
	size_t mi = 0, len = 0;
	uint64_t r;

	p->n = 0;
	p->nw = atomic_load_explicit(&ps->nwant, memory_order_acquire);
#ifdef __SSE2__
	if ((nl = memchr(data, '\n', n)) == NULL || n > UINT32_MAX)
		return;
	for (at = nl + 1; at < e && p->n < p->cap; at += len + 1) {
		if (*at != '"') {	/* a line kp_csv_next() skips */
			if ((nl = memchr(at, '\n', (size_t)(e - at))) == NULL)
				return;
			len = (size_t)(nl - at);
			continue;
		}
		if (mi + (size_t)(e - at) / 64 + 2 > p->mcap ||
		    (r = ps->scan(at, (size_t)(e - at), p->masks + mi, p->bcnt + mi,
		    &len)) == SCAN_MORE || r == SCAN_NUL)
			return;
		p->rec[p->n].off = (uint32_t)(at - data);
		p->rec[p->n].len = (uint32_t)len;
		p->rec[p->n].mi = (uint32_t)mi;
		p->rec[p->n].r = (uint32_t)r;
		if (r == SCAN_FORM) {
			ends_of(p->masks + mi, (len + 63) / 64, &p->rec[p->n].q);
			if (p->nw > 0)
				wanted_of(ps, p->nw, p->masks + mi, p->bcnt + mi, (len + 63) / 64,
				    p->wse + p->n * 2 * p->nw);
		}
		p->n++;
		if (r == SCAN_FORM)
			mi += (len + 63) / 64 + 1;
	}
#else
	(void)ps;
	(void)at;
	(void)e;
	(void)nl;
	(void)mi;
	(void)len;
	(void)r;
	(void)data;
#endif
}

#ifndef __SSE2__
static void
isa_set(struct kp_csv *c)
{
	(void)c;
}

const char *
kp_csv_isa(const char *want)
{
	return want == NULL || *want == '\0' ? "none" : NULL;
}
#endif

/*
 * One record, parsed in place: a field's bytes stay in the read buffer,
 * unquoted and moved left over the quotes when needed, and the byte after
 * them becomes its NUL.  i (read) and w (write) are offsets from the
 * record's start, which more() may move.
 */
int
kp_csv_next(struct kp_csv *c, struct kp_err *err)
{
	char *b;
	size_t i, w, start, n, j;
	unsigned long nl = 0;
	long r;
	char ch;

	for (;;) {
		c->rs = c->pos;
		if (c->pos == c->end && (r = more(c)) <= 0) {
			if (r < 0)
				goto rerr;
			return 0;
		}
		if (c->buf[c->pos] == '"')
			break;
		if (skip_line(c) < 0)
			goto rerr;
	}
	c->rs = c->pos;
	c->recline = c->line + 1;
	c->pending = 0;
#ifdef __SSE2__
	{
		/* the whole line in the buffer, then the fast form if it is one */
		if ((r = fast_record(c)) < 0)
			goto rerr;
		if (r == 1) {
			c->line++;
			if (!c->lazy) {
				split_all(c);
			} else {
				c->pending = 1;
				if (++c->gen == 0) {
					memset(c->picked, 0, c->fcap * sizeof(*c->picked));
					c->gen = 1;
				}
			}
			return 1;
		}
	}
#endif
	c->nf = 0;
	b = c->buf + c->rs;
	n = c->end - c->rs;
	i = 0;
#define MORE(eofmsg) do {						\
		c->pos = c->rs + i;					\
		if ((r = more(c)) < 0)					\
			goto rerr;					\
		if (r == 0)						\
			return truncated(c, err, eofmsg);		\
		b = c->buf + c->rs;					\
		n = c->end - c->rs;					\
	} while (0)
	for (;;) {		/* one field per iteration */
		if (i == n)
			MORE("no newline at end of file");
		if (b[i] == '"') {
			start = w = ++i;
			for (;;) {
				/* b[n] is a quote: no bound check in the scan */
				for (j = i; b[j] != '"'; j++)
					nl += b[j] == '\n';
				if (w != i)
					memmove(b + w, b + i, j - i);
				w += j - i;
				i = j;
				if (i == n) {
					MORE("unterminated quoted field");
					continue;
				}
				i++;	/* the quote */
				if (i == n) {
					c->pos = c->rs + i;
					if ((r = more(c)) < 0)
						goto rerr;
					b = c->buf + c->rs;
					n = c->end - c->rs;
				}
				if (i < n && b[i] == '"') {
					b[w++] = '"';
					i++;
					continue;
				}
				break;
			}
		} else {
			start = w = i;
		}
		/* Unquoted text (or stray text after a closing quote) up to , or \n. */
		for (;;) {
			for (j = i; j < n && b[j] != ',' && b[j] != '\n'; j++)
				;
			if (w != i)
				memmove(b + w, b + i, j - i);
			w += j - i;
			i = j;
			if (i < n)
				break;
			MORE("no newline at end of file");
		}
		if (field_add(c, start, w - start) < 0) {
			c->pos = c->rs + i;
			return kp_errf(err, KP_EXIT_ENV, "%s:%lu: out of memory", c->name,
			    c->recline);
		}
		ch = b[i++];
		b[w] = '\0';	/* may be the delimiter itself */
		if (ch == '\n')
			break;
	}
#undef MORE
	c->pos = c->rs + i;
	c->line += nl + 1;
	for (j = 0; j < c->nf; j++)
		c->fields[j].s = b + c->offs[j];
	/* A CR before the newline belongs to the line ending, not the field. */
	{
		struct kp_field *f = &c->fields[c->nf - 1];

		if (f->len > 0 && f->s[f->len - 1] == '\r')
			b[c->offs[c->nf - 1] + --f->len] = '\0';
	}
	return 1;
rerr:
	return kp_errf(err, errno == ENOMEM ? KP_EXIT_ENV : KP_EXIT_DATA, "%s: %s%s", c->name,
	    errno == ENOMEM ? "" : "read error: ", strerror(errno ? errno : EIO));
}

size_t
kp_csv_nfields(const struct kp_csv *c)
{
	return c->nf;
}

const struct kp_field *
kp_csv_field(const struct kp_csv *c, size_t i)
{
	if (i >= c->nf || (c->pending && c->picked[i] != c->gen))
		return NULL;
	return &c->fields[i];
}

int
kp_csv_lazy(struct kp_csv *c, int on)
{
#ifdef __SSE2__
	if (on && c->picked == NULL && (c->picked = calloc(c->fcap, sizeof(*c->picked))) == NULL)
		return -1;
	c->lazy = on;
#else
	(void)c;
	(void)on;
#endif
	return 0;
}

int
kp_csv_want(struct kp_csv *c, const size_t *idx, size_t n)
{
	struct prescans *ps = c->pre;
	size_t i, j;

	if (ps == NULL || ps->want != NULL || n == 0 || ps->scan == NULL)
		return 0;
	for (j = 0; j < n; j++)
		if (idx[j] >= UINT32_MAX || (j > 0 && idx[j] <= idx[j - 1]))
			return 0;	/* not ascending: picks walk as before */
	c->nwpos = idx[n - 1] + 1;
	if ((c->wpos = malloc(c->nwpos * sizeof(*c->wpos))) == NULL ||
	    (ps->want = malloc(n * sizeof(*ps->want))) == NULL)
		goto nomem;
	for (i = 0; i < c->nwpos; i++)
		c->wpos[i] = NOWANT;
	for (j = 0; j < n; j++) {
		ps->want[j] = (uint32_t)idx[j];
		c->wpos[idx[j]] = (uint32_t)j;
	}
	/* 2 n for each of the records a buffer's scan keeps (cap at most) */
	for (i = 0; i < sizeof(ps->s) / sizeof(ps->s[0]); i++)
		if ((ps->s[i].wse = malloc(ps->s[i].cap * 2 * n * sizeof(uint32_t))) == NULL)
			goto nomem;
	atomic_store_explicit(&ps->nwant, n, memory_order_release);
	return 0;
nomem:
	for (i = 0; i < sizeof(ps->s) / sizeof(ps->s[0]); i++) {
		free(ps->s[i].wse);
		ps->s[i].wse = NULL;
	}
	free(ps->want);
	ps->want = NULL;
	free(c->wpos);
	c->wpos = NULL;
	c->nwpos = 0;
	return -1;
}

size_t
kp_csv_want_hits(const struct kp_csv *c)
{
	return c->whits;
}

void
kp_csv_pick(struct kp_csv *c, const size_t *idx, size_t n)
{
#ifdef __SSE2__
	size_t j, i, start, end;
	struct walk w;

	if (!c->pending)
		return;
	/*
	 * Fields 0, 1, ... from the first, as most readers want them: each
	 * from the first block's next closing quote, no walk.
	 */
	{
		uint64_t m = c->masks[0];

		for (j = 0, start = 1; j < n && idx[j] == j && m != 0; j++) {
			end = (size_t)__builtin_ctzll(m);
			if (c->picked[j] != c->gen) {
				set_field(c, j, start, end);
				c->picked[j] = c->gen;
			}
			start = end + 3;
			m &= m - 1;
		}
	}
	walk_start(c, &w);
	for (; j < n; j++) {
		if ((i = idx[j]) >= c->nf || c->picked[i] == c->gen)
			continue;
		if (c->wse != NULL && i < c->nwpos && c->wpos[i] != NOWANT) {	/* found there too */
			start = c->wse[2 * c->wpos[i]];
			end = c->wse[2 * c->wpos[i] + 1];
			c->whits++;
		} else if (c->haveq && i < c->q.nfe) {	/* the reader thread found them */
			start = i == 0 ? 1 : c->q.fe[i - 1] + 3;
			end = c->q.fe[i];
		} else if (c->haveq && i + 1 == c->nf) {
			start = i == 0 ? 1 : c->q.lp + 3;
			end = c->q.le;
		} else if (i > 0 && i + 1 == c->nf) {	/* the last: from the end */
			last_two(c->masks, c->nblk, &end, &start);
			start += 3;
		} else {
			if ((i > 0 ? i - 1 : 0) < w.at)	/* not ascending: from the start again */
				walk_start(c, &w);
			start = i == 0 ? 1 : walk_to(c, &w, i - 1) + 3;
			end = walk_to(c, &w, i);
		}
		set_field(c, i, start, end);
		c->picked[i] = c->gen;
	}
#else
	(void)c;
	(void)idx;
	(void)n;
#endif
}

const char *
kp_csv_raw(const struct kp_csv *c, size_t *len)
{
#ifdef __SSE2__
	if (!c->pending)
		return NULL;
	*len = c->reclen;
	return c->rec;
#else
	(void)c;
	(void)len;
	return NULL;
#endif
}

void
kp_csv_fill(struct kp_csv *c)
{
#ifdef __SSE2__
	if (c->pending)
		split_all(c);
#else
	(void)c;
#endif
}

#ifdef __SSE2__
/*
 * Of the pending record, first < nf: where field first's bytes start
 * (*start) and where the last field's closing quote is (*le); 1 when the
 * last field is not empty and ends in the line ending's CR, which
 * set_field() drops (a NUL once the field is picked), else 0.
 */
static int
fields_span(const struct kp_csv *c, size_t first, size_t *start, size_t *le)
{
	struct walk w;
	size_t lp;

	walk_start(c, &w);
	*start = first == 0 ? 1 : walk_to(c, &w, first - 1) + 3;
	last_two(c->masks, c->nblk, le, &lp);
	return c->crlast && *le > (first + 1 == c->nf ? *start : lp + 3) &&
	    (c->rec[*le - 1] == '\r' || c->rec[*le - 1] == '\0');
}
#endif

/*
 * The bytes kp_csv_fields_copy() writes, from where field first starts and
 * where the last one closes: between them each field but the last has its
 * closing quote and the next one's "," and opening quote.
 */
size_t
kp_csv_fields_len(const struct kp_csv *c, size_t first)
{
#ifdef __SSE2__
	size_t start, le;
	int cr;

	if (!c->pending)
		return SIZE_MAX;
	if (first >= c->nf)
		return 0;
	cr = fields_span(c, first, &start, &le);
	return le + 1 - start - 2 * (c->nf - first - 1) - (size_t)cr;
#else
	(void)c;
	(void)first;
	return SIZE_MAX;
#endif
}

/*
 * The fields' bytes as kp_csv_fill() would set them, one after another: by
 * kp_csv_squeeze(), or field by field from the masks, 16 bytes copied at a
 * time (the buffer has PAD bytes past every record, dst 16 past the longest
 * copy).
 */
size_t
kp_csv_fields_copy(const struct kp_csv *c, size_t first, char *dst)
{
#ifdef __SSE2__
	size_t k, i = 0, start, from, le, pos, n, j;
	const char *rec = c->rec;
	char *d = dst;
	uint64_t m;
	int cr;

	if (!c->pending)
		return SIZE_MAX;
	if (first >= c->nf)
		return 0;
	cr = fields_span(c, first, &from, &le);
	if (c->squeeze)
		d += kp_csv_squeeze(rec, c->masks, from, le + 1, dst);
	else
		for (k = 0, start = 1; k < c->nblk; k++)
			for (m = c->masks[k]; m != 0; m &= m - 1, start = pos + 3) {
				pos = k * 64 + (size_t)__builtin_ctzll(m);
				if (i++ < first)
					continue;
				n = pos - start;
				j = 0;
				do
					_mm_storeu_si128((__m128i *)(void *)(d + j),
					    _mm_loadu_si128((const __m128i *)(const void *)(rec +
					    start + j)));
				while ((j += 16) < n);
				d += n;
				*d++ = '"';
			}
	if (cr) {	/* the last field's CR of the line ending: its '"' one byte back */
		d[-2] = '"';
		d--;
	}
	return (size_t)(d - dst);
#else
	(void)c;
	(void)first;
	(void)dst;
	return SIZE_MAX;
#endif
}

unsigned long
kp_csv_line(const struct kp_csv *c)
{
	return c->recline;
}

unsigned long
kp_csv_noise_lines(const struct kp_csv *c)
{
	return c->noise;
}

const char *
kp_csv_name(const struct kp_csv *c)
{
	return c->name;
}

const char *
kp_csv_last_error_line(const struct kp_csv *c)
{
	return c->lasterr[0] ? c->lasterr : NULL;
}
