/*
 * source.c: a streaming reader of ncu's source page (`--page source --csv`).
 *
 * The page is a sequence of blocks, each opened by a "Kernel Name" (sass) or a
 * "File Path" / "Function Name" pair (cuda,sass), then a header row naming the
 * columns, then rows.  Columns are looked up by name in every header, so the
 * live page and the page of an imported report (which has one more column)
 * read the same.  Memory is one record plus one header.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_hash.h"
#include "kp_number.h"
#include "kp_source.h"
#include "source_pipe.h"

struct kp_src {
	struct kp_csv *csv;
	enum kp_src_kind kind;
	char *file, *function;
	unsigned long fngen;	/* counts the changes of function: kp_src_row.fngen */
	char **metric;		/* metric names of the first header */
	size_t nmetric;
	int distinct;		/* no metric name twice */
	int *colmap;		/* column of the current header -> metric index or -1 */
	int ident;		/* colmap[i] is i - fixed for every metric column */
	size_t ncol;
	size_t fixed;		/* leading non-metric columns: 2 or 4 */
	double *val;		/* the row's values: valown, or where the pipe wants them */
	double *valown;
	double *none;		/* nmetric NaNs: a row's values before it is read */
	double one[256];	/* a field of one byte b: value() of it, or none */
	int pending_header;	/* kp_src_open read a header not yet reported */
	unsigned long hdrline;
	unsigned long labgen;	/* counts the changes of file or function (source_pipe.c) */
	struct kp_src_pipe *pipe;	/* the rows parsed on a thread, or NULL */
	uint64_t digest;	/* the last record's (kp_src_row.digest), 0 none */
	int inexact;		/* a value read that is no integer in [0, 2^53) */
	char *hdraw;		/* the last header's bytes as read (kp_csv_raw), or NULL */
	size_t hdrawlen;
};

static int value(const char *b, size_t len, double *d);

/* Columns that hold words or "Global(2)"-style lists, not numbers. */
static const char *const textcols[] = {
	"Address Space", "Access Operation", "Access Size", "L2 Explicit Evict Policies",
};

/* The leading fields every record is looked at by (the kind, the label, the
 * row's line, address and texts), picked from a lazy record with its last. */
#define NPICK 4

/* The next record, its first NPICK fields and its last set (kp_csv_lazy). */
static int
next_record(struct kp_src *s, struct kp_err *err)
{
	size_t idx[NPICK + 1] = { 0, 1, 2, 3, 0 }, n, len;
	int r = kp_csv_next(s->csv, err);
	const char *raw;

	s->digest = 0;
	if (r == 1 && (n = kp_csv_nfields(s->csv)) > 0) {
		/* the bytes as read, before the picks mark them */
		if ((raw = kp_csv_raw(s->csv, &len)) != NULL)
			s->digest = kp_hash64(raw, len, len) | 1;
		idx[NPICK] = n - 1;
		kp_csv_pick(s->csv, idx, n - 1 >= NPICK ? NPICK + 1 : NPICK);
	}
	return r;
}

static int
fieq(const struct kp_field *f, const char *s)
{
	return f != NULL && strcmp(f->s, s) == 0;
}

static int
setstr(char **dst, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

static int
nomem(struct kp_src *s, struct kp_err *err)
{
	return kp_errf(err, KP_EXIT_ENV, "%s: out of memory", kp_csv_name(s->csv));
}

/* The kind a header record announces, or 0 when it is no header. */
static enum kp_src_kind
header_kind(struct kp_csv *c)
{
	const struct kp_field *f0 = kp_csv_field(c, 0), *f1 = kp_csv_field(c, 1);

	if (fieq(f0, "Address") && fieq(f1, "Source"))
		return KP_SRC_SASS;
	if (fieq(f0, "Line No") && fieq(f1, "Source")) {
		if (fieq(kp_csv_field(c, 2), "Address") && fieq(kp_csv_field(c, 3), "Source"))
			return KP_SRC_CUDA_SASS;
		return KP_SRC_PTX;
	}
	return 0;
}

/* Take the current record as a header: the first one fixes the metric names. */
static int
take_header(struct kp_src *s, enum kp_src_kind k, struct kp_err *err)
{
	size_t n, i, j, rawlen;
	size_t fixed = k == KP_SRC_CUDA_SASS ? 4 : 2;
	const char *raw = kp_csv_raw(s->csv, &rawlen);

	/* every block repeats the page's header: the same bytes, the same columns */
	if (raw != NULL && s->kind == k && s->hdraw != NULL && rawlen == s->hdrawlen &&
	    memcmp(raw, s->hdraw, rawlen) == 0) {
		s->hdrline = kp_csv_line(s->csv);
		return 0;
	}
	free(s->hdraw);
	s->hdraw = NULL;
	if (raw != NULL && (s->hdraw = malloc(rawlen + 1)) != NULL) {
		memcpy(s->hdraw, raw, rawlen);
		s->hdrawlen = rawlen;
	}
	kp_csv_fill(s->csv);
	n = kp_csv_nfields(s->csv);
	if (s->kind != 0 && k != s->kind)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: a %s header in a %s page",
		    kp_csv_name(s->csv), kp_csv_line(s->csv), kp_src_kind_name(k),
		    kp_src_kind_name(s->kind));
	if (s->kind == 0) {
		s->kind = k;
		s->fixed = fixed;
		s->nmetric = n > fixed ? n - fixed : 0;
		if ((s->metric = calloc(s->nmetric + 1, sizeof(*s->metric))) == NULL ||
		    (s->val = s->valown = calloc(s->nmetric + 1, sizeof(*s->val))) == NULL ||
		    (s->none = malloc((s->nmetric + 1) * sizeof(*s->none))) == NULL)
			return nomem(s, err);
		for (i = 0; i < s->nmetric; i++) {
			s->none[i] = NAN;
			if ((s->metric[i] = strdup(kp_csv_field(s->csv, fixed + i)->s)) == NULL)
				return nomem(s, err);
		}
		s->distinct = 1;
		for (i = 0; i < s->nmetric && s->distinct; i++)
			for (j = i + 1; j < s->nmetric; j++)
				if (strcmp(s->metric[i], s->metric[j]) == 0) {
					s->distinct = 0;
					break;
				}
	}
	free(s->colmap);
	if ((s->colmap = calloc(n + 1, sizeof(*s->colmap))) == NULL)
		return nomem(s, err);
	s->ncol = n;
	for (i = 0; i < n; i++) {
		const char *name = kp_csv_field(s->csv, i)->s;

		s->colmap[i] = -1;
		if (i < fixed)
			continue;
		/* in the first header's order (every block of a page): the first
		 * match, when the names are distinct */
		if (s->distinct && i - fixed < s->nmetric &&
		    strcmp(s->metric[i - fixed], name) == 0) {
			s->colmap[i] = (int)(i - fixed);
			continue;
		}
		for (j = 0; j < s->nmetric; j++)
			if (strcmp(s->metric[j], name) == 0) {
				s->colmap[i] = (int)j;
				break;
			}
	}
	s->ident = n > fixed;
	for (i = fixed; i < n && s->ident; i++)
		s->ident = s->colmap[i] == (int)(i - fixed);
	s->hdrline = kp_csv_line(s->csv);
	return 0;
}

/* "Kernel Name" / "File Path" / "Function Name": 1 taken, 0 not such a record. */
static int
take_label(struct kp_src *s, struct kp_err *err)
{
	const struct kp_field *f0 = kp_csv_field(s->csv, 0), *f1 = kp_csv_field(s->csv, 1);
	const char *v = f1 ? f1->s : "";

	if (fieq(f0, "Kernel Name")) {
		s->labgen++;
		if (setstr(&s->function, v) < 0 || setstr(&s->file, "") < 0)
			return nomem(s, err);
		s->fngen++;
		return 1;
	}
	if (fieq(f0, "File Path")) {
		s->labgen++;
		if (setstr(&s->file, v) < 0)
			return nomem(s, err);
		return 1;
	}
	if (fieq(f0, "Function Name")) {
		s->labgen++;
		if (setstr(&s->function, v) < 0)
			return nomem(s, err);
		s->fngen++;
		return 1;
	}
	return 0;
}

/* The end of a page without a header record: ncu's "No lineinfo" warning (a
 * cuda view of a kernel built without -lineinfo) is KP_EXIT_NOSOURCE. */
static void
no_table(struct kp_src *s, const char *name, struct kp_err *err)
{
	const char *w = kp_csv_last_error_line(s->csv), *k;
	int n;

	if (w == NULL || strstr(w, "No lineinfo") == NULL) {
		kp_errf(err, KP_EXIT_DATA, "%s: not an ncu source page (no header record)", name);
		return;
	}
	if ((k = strstr(w, "related to '")) != NULL) {
		k += 12;
		n = (int)strcspn(k, "'");
	} else {
		k = "the kernel";
		n = (int)strlen(k);
	}
	kp_errf(err, KP_EXIT_NOSOURCE, "%s: no source table: ncu has no lineinfo for %.*s "
	    "(build it with -lineinfo, or collect the SASS view: --print-source sass)", name,
	    n > 200 ? 200 : n, k);
}

static int src_next(void *arg, double *vals, struct kp_src_row *row, struct kp_err *err);

/*
 * Whether the rows of fp are parsed on a thread of their own (source_pipe.c):
 * KP_SOURCE_THREAD=0 never, =1 always; by default for a regular file of
 * PIPE_MIN bytes or more on three CPUs or more (a small page costs more to
 * hand over than to read; on two, the three busy threads took longer than
 * one: docs/performance.md, round 11).
 */
#define PIPE_MIN ((off_t)8 << 20)
static int
pipe_wanted(FILE *fp)
{
	const char *env = getenv("KP_SOURCE_THREAD");
	struct stat st;
	int fd = fp != NULL ? fileno(fp) : -1;

	if (env != NULL && strcmp(env, "0") == 0)
		return 0;
	if (env != NULL && strcmp(env, "1") == 0)
		return 1;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= PIPE_MIN && sysconf(_SC_NPROCESSORS_ONLN) >= 3;
}

static struct kp_src *
src_open(FILE *fp, kp_csv_read_fn *rd, void *arg, const char *name, struct kp_err *err)
{
	struct kp_src *s;
	int r;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->csv = fp != NULL ? kp_csv_open(fp, name) : kp_csv_open_read(rd, arg, name)) == NULL ||
	    kp_csv_lazy(s->csv, 1) < 0 ||
	    setstr(&s->file, "") < 0 || setstr(&s->function, "") < 0) {
		kp_errf(err, KP_EXIT_ENV, "%s: out of memory", name);
		kp_src_close(s);
		return NULL;
	}
	for (r = 0; r < 256; r++) {
		char b = (char)r;
		double d;

		s->one[r] = value(&b, 1, &d) ? d : NAN;
	}
	while ((r = next_record(s, err)) == 1) {
		enum kp_src_kind k;

		if ((r = take_label(s, err)) < 0)
			goto fail;
		if (r == 1)
			continue;
		if ((k = header_kind(s->csv)) == 0) {
			const struct kp_field *f0 = kp_csv_field(s->csv, 0);

			kp_errf(err, KP_EXIT_DATA, "%s:%lu: not an ncu source page (a record "
			    "begins with \"%.40s\", expected \"Kernel Name\", \"File Path\" or a "
			    "\"Line No\"/\"Address\" header)", name, kp_csv_line(s->csv),
			    f0 ? f0->s : "");
			goto fail;
		}
		if (take_header(s, k, err) < 0)
			goto fail;
		s->pending_header = 1;
		/* no thread (none wanted, or none could start): the rows are read here */
		if (pipe_wanted(fp))
			s->pipe = kp_src_pipe_start(src_next, s, &s->labgen, s->nmetric);
		return s;
	}
	if (r == 0)
		no_table(s, name, err);
fail:
	kp_src_close(s);
	return NULL;
}

struct kp_src *
kp_src_open(FILE *fp, const char *name, struct kp_err *err)
{
	return src_open(fp, NULL, NULL, name, err);
}

struct kp_src *
kp_src_open_read(kp_csv_read_fn *rd, void *arg, const char *name, struct kp_err *err)
{
	return src_open(NULL, rd, arg, name, err);
}

void
kp_src_close(struct kp_src *s)
{
	size_t i;

	if (s == NULL)
		return;
	kp_src_pipe_stop(s->pipe);	/* before the reader it reads with */
	kp_csv_close(s->csv);
	for (i = 0; s->metric && i < s->nmetric; i++)
		free(s->metric[i]);
	free(s->metric);
	free(s->colmap);
	free(s->hdraw);
	free(s->valown);
	free(s->none);
	free(s->file);
	free(s->function);
	free(s);
}

int
kp_src_exact(const struct kp_src *s)
{
	return !s->inexact;
}

enum kp_src_kind
kp_src_kind(const struct kp_src *s)
{
	return s->kind;
}

const char *
kp_src_kind_name(enum kp_src_kind k)
{
	switch (k) {
	case KP_SRC_SASS:
		return "sass";
	case KP_SRC_CUDA_SASS:
		return "cuda,sass";
	case KP_SRC_PTX:
		return "ptx";
	}
	return "?";
}

const char *
kp_src_name(const struct kp_src *s)
{
	return kp_csv_name(s->csv);
}

void
kp_src_val_into(struct kp_src *s, double *val)
{
	if (s->pipe == NULL && s->valown != NULL)
		s->val = val != NULL ? val : s->valown;
}

size_t
kp_src_nmetrics(const struct kp_src *s)
{
	return s->nmetric;
}

const char *
kp_src_metric(const struct kp_src *s, size_t i)
{
	return i < s->nmetric ? s->metric[i] : NULL;
}

int
kp_src_metric_index(const struct kp_src *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nmetric; i++)
		if (strcmp(s->metric[i], name) == 0)
			return (int)i;
	return -1;
}

int
kp_src_metric_numeric(const struct kp_src *s, size_t i)
{
	size_t k;

	if (i >= s->nmetric)
		return 0;
	for (k = 0; k < sizeof(textcols) / sizeof(textcols[0]); k++)
		if (strcmp(s->metric[i], textcols[k]) == 0)
			return 0;
	return 1;
}

static void
fill_row(struct kp_src *s, struct kp_src_row *row, enum kp_src_ev ev)
{
	memset(row, 0, sizeof(*row));
	row->ev = ev;
	row->file = s->file;
	row->function = s->function;
	row->fngen = s->fngen;
	row->text = "";
	row->address = "";
	row->val = s->val;
	row->csvline = kp_csv_line(s->csv);
}

/* A value as kp_parse_number reads it: 1 and *d for a number, 2 for one
 * that is not an integer in [0, 2^53) (sums of such depend on their order:
 * kp_src_exact).  Digits alone (the most of a page: "0", "611") take the fast
 * path, which gives the same double: at most 15 digits are an exact integer. */
static int
value(const char *b, size_t len, double *d)
{
	unsigned long long acc = 0;
	size_t k;

	if (len - 1 < 15) {
		for (k = 0; k < len; k++) {
			unsigned c = (unsigned)(unsigned char)b[k] - '0';

			if (c > 9)
				break;
			acc = acc * 10 + c;
		}
		if (k == len) {
			*d = (double)(long long)acc;	/* < 10^15: one signed convert */
			return 1;
		}
		if (len == 1 && b[0] == '-')
			return 0;
	}
	/* a word ("Load", "Global(2)"): only inf and nan begin with a letter */
	if (len > 0 && ((unsigned)(b[0] | 0x20) - 'a') < 26 && (b[0] | 0x20) != 'i' &&
	    (b[0] | 0x20) != 'n')
		return 0;
	if (kp_parse_number(b, len, d) != KP_NUM_OK)
		return 0;
	if (isnan(*d))
		return 1;	/* none, in every sum */
	return *d >= 0 && *d < 9007199254740992.0 && *d == floor(*d) && !signbit(*d) ? 1 : 2;
}

/*
 * Field b (len bytes) into *slot: its value, else none where all says the
 * slot may hold the last row's; a value no integer in [0, 2^53) marks s
 * inexact.
 */
static inline void
put_value(struct kp_src *s, double *slot, const char *b, size_t len, int all)
{
	double d;
	int r = value(b, len, &d);

	if (r != 0) {
		*slot = d;
		s->inexact |= r & 2;
	} else if (all)
		*slot = NAN;
}

/*
 * Eight digit values (0-9, one a byte, the first the most significant) in v
 * as one number: pairs, then fours, then all eight, by three multiplies.
 */
static uint64_t
swar8(uint64_t v)
{
	v = ((v & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
	v = ((v & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
	return ((v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
}

/* A bit at the top of each byte of x (digits less '0') that is not a digit: a
 * non-digit byte's carry spoils only the bytes after it. */
#define NONDIGIT(x) ((((x) + 0x7676767676767676ULL) | (x)) & 0x8080808080808080ULL)

/*
 * 1 when p (16 bytes readable) holds 1 to 15 digits and then a quote: *acc
 * their value (as value() reads them), *len their count.  Else 0.
 */
static int
digit_run(const char *p, unsigned long long *acc, size_t *len)
{
	static const uint64_t p10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
	uint64_t w, x, nd, x2, nd2;
	size_t l, l2;

	memcpy(&w, p, 8);
	x = w ^ 0x3030303030303030ULL;
	if ((nd = NONDIGIT(x)) != 0) {
		l = (size_t)__builtin_ctzll(nd) >> 3;
		if (l == 0 || p[l] != '"')
			return 0;
		*acc = swar8(x << (64 - 8 * l));
		*len = l;
		return 1;
	}
	memcpy(&w, p + 8, 8);
	x2 = w ^ 0x3030303030303030ULL;
	nd2 = NONDIGIT(x2);	/* 0: 16 digits, too many */
	l2 = nd2 == 0 ? 8 : (size_t)__builtin_ctzll(nd2) >> 3;
	if (l2 == 8 || p[8 + l2] != '"')
		return 0;
	*acc = swar8(x) * p10[l2] + (l2 ? swar8(x2 << (64 - 8 * l2)) : 0);
	*len = 8 + l2;
	return 1;
}

/*
 * The values of a record kp_csv left unsplit (kp_csv_lazy): every field is
 * quoted, with no quote inside, "," between them, so each value is the bytes
 * between its quotes, as the split would give them.  Fields 0 .. NPICK-1 and
 * the last one are picked (next_record); the rest are read here.  With all
 * set, each metric's value is stored, none (NaN) included: the row was not
 * cleared.  0 done, -1 when the record is not as expected (then it is split
 * and read whole).
 */
static int
read_raw_values(struct kp_src *s, size_t n, size_t end, int all)
{
	size_t len, i;
	const char *raw = kp_csv_raw(s->csv, &len), *p, *stop, *q;
	const struct kp_field *f;
	/* ,"?" as a word: the bytes' pattern and which bytes it fixes */
	const uint32_t one_want = ',' | '"' << 8 | (uint32_t)'"' << 24, one_mask = 0xff00ffffu;
	const uint64_t two_want = one_want | (uint64_t)one_want << 32,
	    two_mask = one_mask | (uint64_t)one_mask << 32;
	const int *cm = s->colmap;	/* in locals: the stores to val cannot move them */
	const double *one = s->one;
	double *val = s->val;
	size_t lim = n - 1 < end ? n - 1 : end;
	/* the fields that can go four at a time: to lim4, 16 bytes left */
	size_t lim4 = s->ident && lim >= 3 ? lim - 3 : 0;
	const char *stop16;

	if (raw == NULL || n <= NPICK || (f = kp_csv_field(s->csv, NPICK - 1)) == NULL ||
	    f->s < raw || f->s + f->len >= raw + len)
		return -1;
	p = f->s + f->len + 1;	/* past its closing quote (a NUL now) */
	stop = raw + len;
	stop16 = len >= 16 ? raw + len - 16 : raw;
	for (i = s->fixed; i < end && i < NPICK; i++)
		if (s->colmap[i] >= 0) {
			f = kp_csv_field(s->csv, i);
			put_value(s, &val[cm[i]], f->s, f->len, all);
		}
	for (; i < lim; i++) {
		unsigned long long acc;
		size_t dl;
		unsigned c;
		uint32_t w;

		/*
		 * Four fields of one byte each (most of a page: "0", "-") as two
		 * words, when the columns are the metrics in order: each byte's
		 * value from the table.
		 */
		if (i < lim4 && p <= stop16) {
			uint64_t w0, w1, x0, x1;
			double *v = val + (i - s->fixed);
			size_t g, k;

			memcpy(&w0, p, 8);
			memcpy(&w1, p + 8, 8);
			x0 = (w0 & two_mask) ^ two_want;
			x1 = (w1 & two_mask) ^ two_want;
			if ((x0 | x1) == 0) {
				v[0] = one[(unsigned char)p[2]];
				v[1] = one[(unsigned char)p[6]];
				v[2] = one[(unsigned char)p[10]];
				v[3] = one[(unsigned char)p[14]];
				p += 16;
				i += 3;
				continue;
			}
			/*
			 * g one-byte fields (their words are the zero quarters
			 * before the first other one), then one that is not ,"d":
			 * it goes straight to the longer forms below, so a run of
			 * one-byte fields ending in a number is not tried four at
			 * a time again at each of its fields.
			 */
			g = (uint32_t)x0 != 0 ? 0 : x0 != 0 ? 1 : (uint32_t)x1 != 0 ? 2 : 3;
			for (k = 0; k < g; k++)
				v[k] = one[(unsigned char)p[4 * k + 2]];
			p += 4 * g;
			i += g;
		} else if (stop - p >= 4) {
			/*
			 * Most of the others are one byte too: ,"d" read as one
			 * word; the table's none stored only where nothing else
			 * can be.
			 */
			memcpy(&w, p, 4);
			if ((w & one_mask) == one_want) {
				c = (unsigned char)p[2];
				if (cm[i] >= 0 && (all || !isnan(one[c])))
					val[cm[i]] = one[c];
				p += 4;
				continue;
			}
		}
		if (stop - p < 3 || p[0] != ',' || p[1] != '"')
			return -1;
		p += 2;
		/* 1 to 15 digits up to the quote, eight a step */
		if (stop - p >= 16 && digit_run(p, &acc, &dl)) {
			if (cm[i] >= 0)	/* < 10^15: one signed convert */
				val[cm[i]] = (double)(long long)acc;
			p += dl + 1;
			continue;
		}
		/*
		 * Digits up to the quote: the value, read on the way (as value()
		 * reads it).  The loop needs no bound: this field's closing quote
		 * is there (only the last field's became a NUL), and stops it.
		 */
		q = p;
		if ((c = (unsigned)(unsigned char)*q - '0') <= 9) {
			acc = c;
			while ((c = (unsigned)(unsigned char)*++q - '0') <= 9)
				acc = acc * 10 + c;
			if (*q == '"' && q - p <= 15) {
				if (cm[i] >= 0)
					val[cm[i]] = (double)(long long)acc;
				p = q + 1;
				continue;
			}
		}
		while (q < stop && *q != '"')
			q++;
		if (q >= stop)
			return -1;
		if (cm[i] >= 0)
			put_value(s, &val[cm[i]], p, (size_t)(q - p), all);
		p = q + 1;
	}
	if (i < end && i + 1 == n) {	/* the last field, picked */
		if ((f = kp_csv_field(s->csv, i)) == NULL)
			return -1;
		if (s->colmap[i] >= 0)
			put_value(s, &val[cm[i]], f->s, f->len, all);
	}
	return 0;
}

static void
read_values(struct kp_src *s)
{
	size_t i, n = kp_csv_nfields(s->csv), end = n < s->ncol ? n : s->ncol;
	/* every metric a field of this record, each once: none are left unread */
	int all = s->ident && n == s->ncol && s->ncol - s->fixed == s->nmetric;

	if (s->nmetric == 0)	/* no header yet */
		return;
	if (!all)
		memcpy(s->val, s->none, s->nmetric * sizeof(*s->val));
	if (read_raw_values(s, n, end, all) == 0)
		return;
	memcpy(s->val, s->none, s->nmetric * sizeof(*s->val));
	kp_csv_fill(s->csv);
	for (i = s->fixed; i < end; i++) {
		const struct kp_field *f = kp_csv_field(s->csv, i);

		if (s->colmap[i] >= 0)
			put_value(s, &s->val[s->colmap[i]], f->s, f->len, 0);
	}
}

static int
parse_line_no(const struct kp_field *f, long *out)
{
	char *end;
	long v;

	if (f == NULL || f->len == 0 || !isdigit((unsigned char)f->s[0]))
		return -1;
	v = strtol(f->s, &end, 10);
	if (*end != '\0' || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* 1: row filled; 0: a record to skip ("..."); -1: error. */
static int
take_row(struct kp_src *s, struct kp_src_row *row, struct kp_err *err)
{
	const struct kp_field *f0 = kp_csv_field(s->csv, 0);
	const struct kp_field *f1 = kp_csv_field(s->csv, 1);
	const struct kp_field *f2 = kp_csv_field(s->csv, 2);
	const struct kp_field *f3 = kp_csv_field(s->csv, 3);
	long ln;

	if (s->kind == KP_SRC_SASS) {
		if (f0 && strncmp(f0->s, "0x", 2) == 0) {
			fill_row(s, row, KP_SRC_INSN);
			row->digest = s->digest;
			row->address = f0->s;
			row->text = f1 ? f1->s : "";
			read_values(s);
			return 1;
		}
		if (fieq(f0, "..."))
			return 0;
	} else if (f0 && f0->len == 0) {
		if (s->kind == KP_SRC_CUDA_SASS && f2 && strncmp(f2->s, "0x", 2) == 0) {
			fill_row(s, row, KP_SRC_INSN);
			row->digest = s->digest;
			row->address = f2->s;
			row->text = f3 ? f3->s : "";
			read_values(s);
			return 1;
		}
		if (fieq(f2, "...") || fieq(f1, "..."))
			return 0;
	} else if (parse_line_no(f0, &ln) == 0) {
		fill_row(s, row, KP_SRC_LINE);
		row->digest = s->digest;
		row->line = ln;
		row->text = f1 ? f1->s : "";
		read_values(s);
		return 1;
	} else if (fieq(f0, "..."))
		return 0;
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: unexpected record in a %s source page "
	    "(begins with \"%.40s\")", kp_csv_name(s->csv), kp_csv_line(s->csv),
	    kp_src_kind_name(s->kind), f0 ? f0->s : "");
}

/*
 * kp_src_next() of this thread, or of the pipe's producer (arg is s), which
 * has a row's values read straight into its batch at vals.
 */
static int
src_next(void *arg, double *vals, struct kp_src_row *row, struct kp_err *err)
{
	struct kp_src *s = arg;
	int r;

	if (vals != NULL)
		s->val = vals;

	if (s->pending_header) {
		s->pending_header = 0;
		fill_row(s, row, KP_SRC_BLOCK);
		row->csvline = s->hdrline;
		return 1;
	}
	while ((r = next_record(s, err)) == 1) {
		const struct kp_field *f0 = kp_csv_field(s->csv, 0);
		enum kp_src_kind k;

		/* labels and headers begin with a capital; a row with a digit or nothing */
		if (f0 == NULL || f0->s[0] < 'A' || f0->s[0] > 'Z') {
			if ((r = take_row(s, row, err)) != 0)
				return r;
			continue;
		}
		if ((r = take_label(s, err)) < 0)
			return -1;
		if (r == 1)
			continue;
		if ((k = header_kind(s->csv)) != 0) {
			if (take_header(s, k, err) < 0)
				return -1;
			fill_row(s, row, KP_SRC_BLOCK);
			return 1;
		}
		if ((r = take_row(s, row, err)) != 0)
			return r;
	}
	return r;
}

int
kp_src_next(struct kp_src *s, struct kp_src_row *row, struct kp_err *err)
{
	if (s->pipe != NULL)
		return kp_src_pipe_next(s->pipe, row, err);
	return src_next(s, NULL, row, err);
}

/* An instruction text past its leading blanks and predicate guard
 * ("@P0", "@!PT", "@UP1" in SASS; "@%p1", "@!%p2" in PTX). */
static const char *
past_guard(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '@') {
		while (*p && *p != ' ' && *p != '\t')
			p++;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return p;
}

char *
kp_sass_opcode(const char *text, char *buf, size_t n)
{
	const char *p = past_guard(text);
	size_t k = 0;

	buf[0] = '\0';
	if (!isupper((unsigned char)*p))
		return buf;
	while (k + 1 < n && (isupper((unsigned char)p[k]) || isdigit((unsigned char)p[k]) ||
	    p[k] == '_'))
		k++;
	/* A mnemonic ends at '.', a blank, ';' or the end: "BAR.SYNC.DEFER_BLOCKING". */
	if (p[k] != '\0' && p[k] != '.' && p[k] != ' ' && p[k] != '\t' && p[k] != ';')
		return buf;
	memcpy(buf, p, k);
	buf[k] = '\0';
	return buf;
}

char *
kp_ptx_opcode(const char *text, char *buf, size_t n)
{
	const char *p = past_guard(text);
	size_t k = 0;

	buf[0] = '\0';
	if (!islower((unsigned char)*p))	/* .directives, $labels, braces, comments */
		return buf;
	while (k + 1 < n && p[k] && (isalnum((unsigned char)p[k]) || p[k] == '.' ||
	    p[k] == '_'))
		k++;
	if (p[k] == ':')	/* a label */
		return buf;
	memcpy(buf, p, k);
	buf[k] = '\0';
	return buf;
}

/* ncu's source-page column suffixes -> smsp__average_warps_issue_stalled_<reason>. */
static const struct {
	const char *col, *reason;
} reasons[] = {
	{ "barrier", "barrier" },
	{ "branch_resolving", "branch_resolving" },
	{ "dispatch", "dispatch_stall" },
	{ "drain", "drain" },
	{ "gmma", "gmma" },
	{ "imc", "imc_miss" },
	{ "lg", "lg_throttle" },
	{ "long_sb", "long_scoreboard" },
	{ "math", "math_pipe_throttle" },
	{ "membar", "membar" },
	{ "mio", "mio_throttle" },
	{ "misc", "misc" },
	{ "no_inst", "no_instruction" },
	{ "not_selected", "not_selected" },
	{ "selected", "selected" },
	{ "short_sb", "short_scoreboard" },
	{ "sleep", "sleeping" },
	{ "tex", "tex_throttle" },
	{ "wait", "wait" },
	{ "warpgroup_arrive", "warpgroup_arrive" },
};

const char *
kp_stall_reason(const char *col, char *buf, size_t n)
{
	const char *x;
	size_t i;

	if (strncmp(col, "stall_", 6) != 0 || strchr(col, ' ') != NULL || col[6] == '\0')
		return NULL;	/* "stall_mio (Not Issued)" is the not-issued share */
	x = col + 6;
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(x, reasons[i].col) == 0) {
			snprintf(buf, n, "%s", reasons[i].reason);
			return buf;
		}
	snprintf(buf, n, "%s", x);
	return buf;
}

/* What the common SASS families do, for readers of SASS-only hotspots. */
static const struct {
	const char *op, *what;
} sass_what[] = {
	{ "ATOM", "generic-address atomic (global or shared)" },
	{ "ATOMG", "global-memory atomic" },
	{ "ATOMS", "shared-memory atomic" },
	{ "BAR", "block barrier (__syncthreads)" },
	{ "BGMMA", "warpgroup 1-bit matrix multiply-accumulate on the tensor cores" },
	{ "BMMA", "warp 1-bit matrix multiply-accumulate on the tensor cores" },
	{ "BRA", "branch" },
	{ "BSSY", "set a convergence barrier (divergent code follows)" },
	{ "BSYNC", "wait at a convergence barrier (divergent paths rejoin)" },
	{ "CCTL", "cache control: invalidate L1 lines (an acquire after an atomic or fence)" },
	{ "CS2R", "read a special register pair (clock, zero a register pair)" },
	{ "DADD", "fp64 add" },
	{ "DEPBAR", "wait for outstanding asynchronous copies (cp.async groups)" },
	{ "DFMA", "fp64 fused multiply-add" },
	{ "DMMA", "warp fp64 matrix multiply-accumulate on the tensor cores" },
	{ "DMUL", "fp64 multiply" },
	{ "ELECT", "elect one thread of the warp" },
	{ "ERRBAR", "error barrier: wait for earlier memory errors to be reported" },
	{ "EXIT", "thread exit" },
	{ "F2FP", "convert and pack two floats (e.g. to bf16x2 / fp16x2)" },
	{ "F2I", "convert a float to an integer" },
	{ "FADD", "fp32 add" },
	{ "FCHK", "check a division's operands for the slow path" },
	{ "FFMA", "fp32 fused multiply-add" },
	{ "FMNMX", "fp32 min/max" },
	{ "FMUL", "fp32 multiply" },
	{ "FSETP", "fp32 compare into a predicate" },
	{ "HADD2", "fp16x2 add" },
	{ "HFMA2", "fp16x2 fused multiply-add" },
	{ "HGMMA", "warpgroup matrix multiply-accumulate on the tensor cores (wgmma: "
	    "fp16/bf16/tf32 operands from shared memory)" },
	{ "HMMA", "warp matrix multiply-accumulate on the tensor cores (mma.sync: "
	    "fp16/bf16/tf32)" },
	{ "HMUL2", "fp16x2 multiply" },
	{ "I2F", "convert an integer to a float" },
	{ "IADD3", "3-input integer add" },
	{ "IDP", "integer dot product of packed bytes (dp4a)" },
	{ "IGMMA", "warpgroup integer matrix multiply-accumulate on the tensor cores" },
	{ "IMAD", "integer multiply-add (also moves and address arithmetic)" },
	{ "IMMA", "warp integer matrix multiply-accumulate on the tensor cores" },
	{ "ISETP", "integer compare into a predicate" },
	{ "LDC", "load from constant memory (kernel parameters)" },
	{ "LDG", "global-memory load" },
	{ "LDGSTS", "asynchronous copy global to shared memory (cp.async)" },
	{ "LDL", "local-memory load (register spill or stack)" },
	{ "LDS", "shared-memory load" },
	{ "LDSM", "load matrix fragments from shared memory (ldmatrix)" },
	{ "LEA", "shift-and-add address arithmetic" },
	{ "LOP3", "3-input logic operation" },
	{ "MATCH", "find the lanes of a warp holding the same value" },
	{ "MEMBAR", "memory barrier" },
	{ "MOV", "register move" },
	{ "MOVM", "move a matrix fragment transposed (movmatrix)" },
	{ "MUFU", "special-function unit (exp2, rsqrt, sin, ...)" },
	{ "NANOSLEEP", "suspend the warp for a while (__nanosleep, spin-wait back-off)" },
	{ "NOP", "no operation (padding)" },
	{ "POPC", "population count" },
	{ "PRMT", "permute bytes" },
	{ "QGMMA", "warpgroup fp8 matrix multiply-accumulate on the tensor cores" },
	{ "RED", "global-memory reduction (atomic without return)" },
	{ "REDG", "global-memory reduction (atomic without return)" },
	{ "REDUX", "warp-wide integer reduction" },
	{ "S2R", "read a special register (thread/block index, clock)" },
	{ "S2UR", "read a special register into a uniform register" },
	{ "SEL", "select one of two values by a predicate" },
	{ "SHF", "funnel shift (shifts and rotates)" },
	{ "SHFL", "warp shuffle" },
	{ "STG", "global-memory store" },
	{ "STL", "local-memory store (register spill or stack)" },
	{ "STS", "shared-memory store" },
	{ "STSM", "store matrix fragments to shared memory (stmatrix)" },
	{ "SYNCS", "mbarrier arrive/wait (asynchronous transaction barrier: TMA, wgmma "
	    "pipelines)" },
	{ "UBLKCP", "bulk asynchronous copy (cp.async.bulk)" },
	{ "UIADD3", "3-input integer add on the uniform datapath" },
	{ "UISETP", "integer compare into a uniform predicate (loop bounds)" },
	{ "ULDC", "load from constant memory into a uniform register" },
	{ "UMOV", "uniform register move" },
	{ "UTMALDG", "TMA tensor load, global to shared memory" },
	{ "UTMAPF", "TMA prefetch to L2" },
	{ "UTMASTG", "TMA tensor store, shared to global memory" },
	{ "VIADD", "integer add" },
	{ "VOTE", "warp vote (all, any, ballot)" },
	{ "WARPGROUP", "warpgroup arrive/wait that orders HGMMA (wgmma fence, commit, wait)" },
	{ "WARPSYNC", "synchronize the threads of a warp" },
};

const char *
kp_sass_describe(const char *op)
{
	size_t lo = 0, hi = sizeof(sass_what) / sizeof(sass_what[0]);

	while (lo < hi) {	/* the table is sorted by op */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(op, sass_what[mid].op);

		if (c == 0)
			return sass_what[mid].what;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Tensor-core families: every MMA the SASS of sm_70 .. sm_90 names, and the
 * tcgen05 MMAs of sm_100 (UTC*MMA). */
static const char *const tensor_ops[] = { "BGMMA", "BMMA", "DMMA", "HGMMA", "HMMA", "IGMMA",
	"IMMA", "OMMA", "QGMMA", "QMMA", "UTCHMMA", "UTCIMMA", "UTCOMMA", "UTCQMMA",
	"WARPGROUP", "WGMMA", NULL };

int
kp_sass_is_tensor(const char *op)
{
	const char *const *t;

	for (t = tensor_ops; *t != NULL; t++)
		if (strcmp(op, *t) == 0)
			return 1;
	return 0;
}
