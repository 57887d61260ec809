/* Unit tests for csv.c: the streaming reader of ncu's CSV output. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_check.h"
#include "kp_csv.h"
#include "kp_diag.h"

static struct kp_csv *
from_string(const char *s)
{
	FILE *fp = fmemopen((void *)s, strlen(s), "r");
	return kp_csv_open(fp, "mem.csv");
}

START_TEST(test_csv_skips_noise_lines)
{
	struct kp_err err;
	const char *s = "==PROF== Connected\nworkload says hi, twice\n\"a\",\"b\"\n==WARNING== x\n\"1\",\"2\"\n";
	struct kp_csv *c = from_string(s);

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 2);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "a");
	ck_assert_uint_eq(kp_csv_line(c), 3);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "2");
	ck_assert_uint_eq(kp_csv_line(c), 5);
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	ck_assert_uint_eq(kp_csv_noise_lines(c), 3);
	ck_assert_str_eq(kp_csv_last_error_line(c), "==WARNING== x");
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_quotes_commas_newlines)
{
	struct kp_err err;
	const char *s = "\"x, \"\"y\"\"\",\"line1\nline2\",\"\",plain,\n\"z\"\n";
	struct kp_csv *c = from_string(s);

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 5);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "x, \"y\"");
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "line1\nline2");
	ck_assert_uint_eq(kp_csv_field(c, 2)->len, 0);
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "plain");
	ck_assert_str_eq(kp_csv_field(c, 4)->s, "");
	ck_assert_ptr_null(kp_csv_field(c, 5));
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_line(c), 3);	/* the record after a 2-line record */
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_truncated_quote_is_error)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\"\n\"1\",\"2");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_int_eq(kp_csv_next(c, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.csv:2: truncated"));
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_missing_final_newline_is_error)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\"");

	ck_assert_int_eq(kp_csv_next(c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no newline"));
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_crlf_line_endings)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",b\r\n");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "b");
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_real_raw_page)
{
	struct kp_err err;
	struct kp_csv *c = kp_csv_open_path(KP_FIXTURES "/h200/hgemm_v0/basic_raw.csv", &err);
	size_t nhead;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* header */
	nhead = kp_csv_nfields(c);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "ID");
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* units */
	ck_assert_uint_eq(kp_csv_nfields(c), nhead);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* launch 0 */
	ck_assert_uint_eq(kp_csv_nfields(c), nhead);
	ck_assert_str_eq(kp_csv_field(c, 7)->s, "(16, 16, 1)");
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	ck_assert_uint_eq(kp_csv_noise_lines(c), 4);
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_long_record_across_chunks)
{
	struct kp_err err;
	size_t n = 600000, i;
	char *s = malloc(n + 16);
	struct kp_csv *c;

	s[0] = '"';
	for (i = 1; i < n; i++)
		s[i] = 'x';
	strcpy(s + n, "\",\"y\"\n");
	c = from_string(s);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_field(c, 0)->len, n - 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "y");
	kp_csv_close(c);
	free(s);
}
END_TEST

/* A reader of a string that hands over a few bytes a call, then fails where told. */
struct dribble {
	const char *s;
	size_t n, at, fail_at;	/* fail_at: -1 and EIO once at is there; SIZE_MAX never */
	unsigned step;
};

static long
dribble_read(void *arg, char *buf, size_t size)
{
	struct dribble *d = arg;
	size_t k = 1 + d->step++ % 97;

	if (d->at >= d->fail_at) {
		errno = EIO;
		return -1;
	}
	if (k > size)
		k = size;
	if (k > d->n - d->at)
		k = d->n - d->at;
	memcpy(buf, d->s + d->at, k);
	d->at += k;
	return (long)k;
}

/*
 * kp_csv_open_read() gives what kp_csv_open() gives on the same bytes, read
 * a few at a time (the real torch_mix page: noise, long records across
 * buffer ends), lazily with picks as kp_src takes them; a read that fails
 * is an error that names the input, not an end.
 */
START_TEST(test_csv_read_fn_as_stream)
{
	struct kp_err err;
	FILE *fp = fopen(KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv", "rb");
	size_t cap = 1 << 21, n, recs = 0, j;
	char *s = malloc(cap);
	struct dribble d = { NULL, 0, 0, SIZE_MAX, 0 };
	struct kp_csv *a, *b;
	int r;

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(s);
	n = fread(s, 1, cap, fp);
	ck_assert_uint_gt(n, 100000);
	ck_assert_uint_lt(n, cap);
	rewind(fp);
	d.s = s;
	d.n = n;
	ck_assert_ptr_nonnull(a = kp_csv_open(fp, "a.csv"));
	ck_assert_ptr_nonnull(b = kp_csv_open_read(dribble_read, &d, "b.csv"));
	ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
	while ((r = kp_csv_next(a, &err)) == 1) {
		size_t idx[5] = { 0, 1, 2, 3, 0 }, nf = kp_csv_nfields(a);

		ck_assert_int_eq(kp_csv_next(b, &err), 1);
		ck_assert_uint_eq(kp_csv_nfields(b), nf);
		ck_assert_uint_eq(kp_csv_line(b), kp_csv_line(a));
		idx[4] = nf - 1;
		kp_csv_pick(b, idx, nf > 4 ? 5 : nf);
		for (j = 0; j < 4 && j < nf; j++)
			ck_assert_str_eq(kp_csv_field(b, j)->s, kp_csv_field(a, j)->s);
		ck_assert_str_eq(kp_csv_field(b, nf - 1)->s, kp_csv_field(a, nf - 1)->s);
		kp_csv_fill(b);
		for (j = 0; j < nf; j++)
			ck_assert_str_eq(kp_csv_field(b, j)->s, kp_csv_field(a, j)->s);
		recs++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(kp_csv_next(b, &err), 0);
	ck_assert_uint_gt(recs, 200);
	ck_assert_uint_eq(kp_csv_noise_lines(b), kp_csv_noise_lines(a));
	kp_csv_close(b);

	/* an error half way: -1 and the input's name, the records before it read */
	d.at = 0;
	d.step = 0;
	d.fail_at = n / 2;
	ck_assert_ptr_nonnull(b = kp_csv_open_read(dribble_read, &d, "b.csv"));
	recs = 0;
	while ((r = kp_csv_next(b, &err)) == 1)
		recs++;
	ck_assert_int_eq(r, -1);
	ck_assert_uint_gt(recs, 50);
	ck_assert_ptr_nonnull(strstr(err.msg, "b.csv"));
	ck_assert_ptr_nonnull(strstr(err.msg, strerror(EIO)));
	kp_csv_close(b);
	kp_csv_close(a);
	fclose(fp);
	free(s);
}
END_TEST

START_TEST(test_csv_missing_file)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_csv_open_path("/nonexistent/x.csv", &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_null(kp_csv_open_path("/tmp", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
}
END_TEST

/* Records cross the 1 MiB read buffer's end, and one record is longer than it. */
START_TEST(test_csv_records_across_buffer_ends)
{
	struct kp_err err;
	size_t big = 3 * 1024 * 1024 + 17, len, i, bad = 0, nrec = 80000;
	char *s, *p, want[32];
	struct kp_csv *c;
	FILE *fp;

	len = nrec * 24 + big + 64;
	ck_assert_ptr_nonnull(s = malloc(len));
	p = s;
	for (i = 0; i < nrec; i++)	/* 1.5 MB: some record straddles 1 MiB */
		p += sprintf(p, "\"%zu\",\"a\"\"b\",x\n", i);
	*p++ = '"';
	memset(p, 'y', big);
	p += big;
	p += sprintf(p, "\"\r\n");
	ck_assert_ptr_nonnull(fp = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(c = kp_csv_open(fp, "mem.csv"));
	for (i = 0; i < nrec && bad == 0; i++) {
		snprintf(want, sizeof(want), "%zu", i);
		if (kp_csv_next(c, &err) != 1 || kp_csv_nfields(c) != 3 ||
		    kp_csv_field(c, 0)->len != strlen(want) ||
		    strcmp(kp_csv_field(c, 0)->s, want) != 0 ||
		    strcmp(kp_csv_field(c, 1)->s, "a\"b") != 0 ||
		    strcmp(kp_csv_field(c, 2)->s, "x") != 0 || kp_csv_line(c) != i + 1)
			bad = i + 1;
	}
	ck_assert_msg(bad == 0, "record %zu is wrong", bad);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 1);
	ck_assert_uint_eq(kp_csv_field(c, 0)->len, big);	/* the CR is not in it */
	ck_assert_int_eq(kp_csv_field(c, 0)->s[big], '\0');
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	fclose(fp);
	free(s);
}
END_TEST

/* One record, its fields as expected; the record after it is "end". */
static void
one_record(const char *in, size_t nf, const char *const *want)
{
	struct kp_err err;
	struct kp_csv *c;
	char *s;
	size_t i;

	ck_assert_ptr_nonnull(s = malloc(strlen(in) + 32));
	sprintf(s, "==PROF== x\n%s\"end\"\n", in);
	c = from_string(s);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_line(c), 2);
	ck_assert_uint_eq(kp_csv_nfields(c), nf);
	for (i = 0; i < nf; i++) {
		size_t n = strlen(want[i]);

		ck_assert_uint_eq(kp_csv_field(c, i)->len, n);
		ck_assert_mem_eq(kp_csv_field(c, i)->s, want[i], n);
		ck_assert_int_eq(kp_csv_field(c, i)->s[n], '\0');
	}
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "end");
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	free(s);
}

/* The forms the all-quoted fast path takes and those it hands to the slow one. */
START_TEST(test_csv_fast_and_slow_forms)
{
	static const char *const ab[] = { "a", "b" }, *const q[] = { "a\"b", "c" },
	    *const te[] = { "a", "b", "" }, *const bcr[] = { "a", "b\r" },
	    *const e3[] = { "a", "", "b" }, *const st[] = { "ax", "b" },
	    *const e1[] = { "" }, *const comma[] = { "f(int, float)", "," };

	one_record("\"a\",\"b\"\n", 2, ab);
	one_record("\"a\",\"b\"\r\n", 2, ab);
	one_record("\"a\",\"b\r\"\n", 2, ab);	/* a CR before the newline */
	one_record("\"a\",\"b\r\"\r\n", 2, bcr);
	one_record("\"a\"\"b\",\"c\"\n", 2, q);
	one_record("\"a\",\"b\",\n", 3, te);	/* empty unquoted last field */
	one_record("\"a\",,\"b\"\n", 3, e3);
	one_record("\"a\",\"\",\"b\"\n", 3, e3);
	one_record("\"a\"x,\"b\"\n", 2, st);	/* text after a closing quote */
	one_record("\"\"\n", 1, e1);
	one_record("\"f(int, float)\",\",\"\n", 2, comma);
}
END_TEST

START_TEST(test_csv_fast_record_then_newline_in_quotes)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\nc\",\"d\"\n\"e\"\n");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 3);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "b\nc");
	ck_assert_str_eq(kp_csv_field(c, 2)->s, "d");
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_line(c), 3);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "e");
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_all_quoted_no_newline_at_end)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\"\n\"c\",\"d\"");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_int_eq(kp_csv_next(c, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.csv:2: truncated record"));
	kp_csv_close(c);
}
END_TEST

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * 3 MB of records of 1-150 fields of 0-140 bytes (quotes at every place in a
 * 64-byte block, more fields than the reader starts with), most in ncu's
 * all-quoted form, some with one anomaly at a random field (a "" escape, an
 * unquoted or empty trailing field, a newline inside quotes, CRLF): every
 * field and line number as written, across the 1 MiB buffer's ends.
 */
START_TEST(test_csv_random_records_fast_and_slow)
{
	struct kp_err err;
	size_t cap = 4 * 1024 * 1024, nrec = 0, i, j, bad = 0;
	char *s = malloc(cap), *p = s, *lens = NULL;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	unsigned long line = 1, *lines;
	struct kp_csv *c;
	FILE *fp;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(lines = calloc(40000, sizeof(*lines)));
	ck_assert_ptr_nonnull(lens = calloc(40000, 1));
	/* field j of record r: length (r * 31 + j * 7) % 141, letters; anomalies */
	while ((size_t)(p - s) < cap - 200000 && nrec < 40000) {
		size_t nf = 1 + rnd(&seed) % 150, odd = rnd(&seed) % 8, at = rnd(&seed) % nf;

		lines[nrec] = line;
		lens[nrec] = (char)nf;
		for (j = 0; j < nf; j++) {
			size_t n = (nrec * 31 + j * 7) % 141, k;
			int quoted = !(odd == 1 && j == at && j > 0);	/* records begin with a quote */

			if (j > 0)
				*p++ = ',';
			if (quoted)
				*p++ = '"';
			for (k = 0; k < n; k++) {
				char ch = (char)('a' + (nrec + j + k) % 26);

				if (odd == 2 && j == at && k == n / 2) {
					*p++ = '"';	/* "" */
					ch = '"';
				} else if (odd == 3 && j == at && k == n / 2 && quoted) {
					ch = '\n';
					line++;
				}
				*p++ = ch;
			}
			if (quoted)
				*p++ = '"';
		}
		if (odd == 4)
			*p++ = '\r';
		*p++ = '\n';
		line++;
		nrec++;
	}
	ck_assert_ptr_nonnull(fp = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(c = kp_csv_open(fp, "mem.csv"));
	for (i = 0; i < nrec && bad == 0; i++) {
		size_t nf = (size_t)(unsigned char)lens[i];

		if (kp_csv_next(c, &err) != 1 || kp_csv_nfields(c) != nf || kp_csv_line(c) != lines[i])
			bad = i + 1;
		for (j = 0; j < nf && bad == 0; j++) {
			const struct kp_field *f = kp_csv_field(c, j);
			size_t n = (i * 31 + j * 7) % 141, k;

			if (f->len != n || f->s[n] != '\0')
				bad = i + 1;
			for (k = 0; k < n && bad == 0; k++) {
				char ch = f->s[k];

				if (ch != '"' && ch != '\n' && ch != 'a' + (char)((i + j + k) % 26))
					bad = i + 1;
			}
		}
	}
	ck_assert_msg(bad == 0, "record %zu of %zu is wrong", bad, nrec);
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	fclose(fp);
	free(s);
	free(lines);
	free(lens);
}
END_TEST

/*
 * Records of 1-8 fields of 0-6 bytes drawn from '"', ',', '\r', '\n' and
 * 'a', each field quoted and its quotes doubled (RFC 4180): fields that are
 * ",", "\",\"", empty, or begin or end with the separator's bytes; the
 * reader must give back every field (without a CRLF, a last field's final CR
 * is taken for the line ending's) and line, whichever scan reads it.
 */
START_TEST(test_csv_tricky_fields_every_scan)
{
	static const char alpha[] = "\",\"\",a\r\"\n,";
	struct kp_err err;
	size_t cap = 2 * 1024 * 1024, nrec = 0, i, j, k, bad = 0, nalpha = sizeof(alpha) - 1;
	char *s = malloc(cap), *p = s, (*want)[8][8] = NULL;
	unsigned char *nfs = NULL, (*lens)[8] = NULL;
	unsigned long line = 1, *lines = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct kp_csv *c;
	FILE *fp;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(want = calloc(60000, sizeof(*want)));
	ck_assert_ptr_nonnull(lens = calloc(60000, sizeof(*lens)));
	ck_assert_ptr_nonnull(nfs = calloc(60000, 1));
	ck_assert_ptr_nonnull(lines = calloc(60000, sizeof(*lines)));
	while ((size_t)(p - s) < cap - 200 && nrec < 60000) {
		size_t nf = 1 + rnd(&seed) % 8;
		int crlf = rnd(&seed) % 4 == 0;

		nfs[nrec] = (unsigned char)nf;
		lines[nrec] = line;
		for (j = 0; j < nf; j++) {
			size_t n = rnd(&seed) % 7;

			if (j > 0)
				*p++ = ',';
			*p++ = '"';
			for (k = 0; k < n; k++) {
				char ch = alpha[rnd(&seed) % nalpha];

				if (ch == '"')
					*p++ = '"';
				line += ch == '\n';
				*p++ = ch;
				want[nrec][j][k] = ch;
			}
			*p++ = '"';
			if (j + 1 == nf && !crlf && n > 0 && want[nrec][j][n - 1] == '\r')
				n--;	/* taken for the line ending's */
			lens[nrec][j] = (unsigned char)n;
		}
		if (crlf)
			*p++ = '\r';
		*p++ = '\n';
		line++;
		nrec++;
	}
	ck_assert_ptr_nonnull(fp = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(c = kp_csv_open(fp, "mem.csv"));
	ck_assert_int_eq(kp_csv_lazy(c, 1), 0);
	for (i = 0; i < nrec && bad == 0; i++) {
		if (kp_csv_next(c, &err) != 1 || kp_csv_nfields(c) != nfs[i] ||
		    kp_csv_line(c) != lines[i]) {
			bad = i + 1;
			break;
		}
		kp_csv_fill(c);
		for (j = 0; j < nfs[i] && bad == 0; j++) {
			const struct kp_field *f = kp_csv_field(c, j);

			if (f == NULL || f->len != lens[i][j] || memcmp(f->s, want[i][j], f->len) != 0 ||
			    f->s[f->len] != '\0')
				bad = i + 1;
		}
	}
	ck_assert_msg(bad == 0, "%s scan: record %zu of %zu is wrong", kp_csv_isa(NULL), bad, nrec);
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	fclose(fp);
	free(s);
	free(want);
	free(lens);
	free(nfs);
	free(lines);
}
END_TEST

#ifdef __SSE2__	/* the lazy form: without SSE2 every record is split whole */
/* Lazy records: nothing set until picked; the picked bytes are the split ones. */
START_TEST(test_csv_lazy_pick_and_fill)
{
	struct kp_err err;
	const char *s = "\"a\",\"1,918,432\",\"\",\"d\"\n"
	    "\"e\",\"f\",\"g\",\"h\r\"\n"
	    "\"i\",\"j\",\"k\",\"l\"\r\n"
	    "\"m\",n \"\"q\"\",\"o\",\"p\"\n";
	static const size_t two[] = { 1, 3 }, last[] = { 3 }, first[] = { 0 };
	struct kp_csv *c = from_string(s);

	ck_assert_int_eq(kp_csv_lazy(c, 1), 0);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 4);
	ck_assert_ptr_null(kp_csv_field(c, 0));
	kp_csv_pick(c, two, 2);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "1,918,432");
	ck_assert_uint_eq(kp_csv_field(c, 1)->len, 9);
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "d");
	ck_assert_ptr_null(kp_csv_field(c, 2));
	kp_csv_fill(c);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "a");
	ck_assert_uint_eq(kp_csv_field(c, 2)->len, 0);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* a CR inside the last quotes */
	ck_assert_ptr_null(kp_csv_field(c, 1));	/* picks are per record */
	kp_csv_pick(c, last, 1);
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "h");
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* CRLF */
	kp_csv_pick(c, last, 1);
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "l");
	kp_csv_pick(c, first, 1);	/* an earlier field after a later one */
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "i");
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* not the fast form: split whole */
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "n \"\"q\"\"");
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "p");
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
}
END_TEST

/* kp_csv_raw: a pending record's bytes, a picked field's closing quote a NUL. */
START_TEST(test_csv_raw_of_pending_record)
{
	struct kp_err err;
	const char *s = "\"a\",\"12\",\"c\"\r\n"
	    "\"m\",n,\"o\"\n";
	static const size_t one[] = { 1 };
	struct kp_csv *c = from_string(s);
	const char *t;
	size_t len;

	ck_assert_int_eq(kp_csv_lazy(c, 1), 0);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_ptr_nonnull(t = kp_csv_raw(c, &len));
	ck_assert_uint_eq(len, 13);	/* the CR after the quotes, not the newline */
	ck_assert(memcmp(t, "\"a\",\"12\",\"c\"\r", 13) == 0);
	kp_csv_pick(c, one, 1);
	ck_assert(memcmp(t, "\"a\",\"12\0,\"c\"\r", 13) == 0);
	kp_csv_fill(c);
	ck_assert_ptr_null(kp_csv_raw(c, &len));	/* filled: no longer pending */
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* not the fast form */
	ck_assert_ptr_null(kp_csv_raw(c, &len));
	kp_csv_close(c);
}
END_TEST
#endif

/* A real raw page read lazily, every 7th field picked, then all: as read whole. */
START_TEST(test_csv_lazy_real_raw_page)
{
	struct kp_err err;
	struct kp_csv *a, *b;
	size_t idx[256], n, i, rec = 0;
	int ra, rb;

	ck_assert_ptr_nonnull(a = kp_csv_open_path(KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv",
	    &err));
	ck_assert_ptr_nonnull(b = kp_csv_open_path(KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv",
	    &err));
	ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
	while ((ra = kp_csv_next(a, &err)) == 1) {
		ck_assert_int_eq(rb = kp_csv_next(b, &err), 1);
		ck_assert_uint_eq(kp_csv_nfields(a), kp_csv_nfields(b));
		for (n = 0, i = rec % 7; i < kp_csv_nfields(b) && n < 256; i += 7)
			idx[n++] = i;
		kp_csv_pick(b, idx, n);
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(kp_csv_field(a, idx[i])->len, kp_csv_field(b, idx[i])->len);
			ck_assert_str_eq(kp_csv_field(a, idx[i])->s, kp_csv_field(b, idx[i])->s);
		}
		kp_csv_fill(b);
		for (i = 0; i < kp_csv_nfields(a); i++)
			ck_assert_str_eq(kp_csv_field(a, i)->s, kp_csv_field(b, i)->s);
		rec++;
	}
	ck_assert_int_eq(ra, 0);
	ck_assert_int_eq(kp_csv_next(b, &err), 0);
	ck_assert_uint_gt(rec, 200);
	kp_csv_close(a);
	kp_csv_close(b);
}
END_TEST

/*
 * Records in ncu's form whose lengths end at every place of a 64-byte
 * block (exact multiples of 64 included, with and without a CR), fields
 * of 0-70 bytes with commas, read whole and lazily: ascending picks with
 * repeats, then a pick behind the last one, give the bytes of the whole
 * read; the fields of a record of another form (a "" escape) come whole.
 */
START_TEST(test_csv_lazy_picks_at_every_block_end)
{
	struct kp_err err;
	size_t cap = 1 << 20, nrec = 0, i, j, n, k;
	char *s = malloc(cap), *p = s;
	uint64_t seed = 0x853c49e6748fea9bULL;
	struct kp_csv *a, *b;
	FILE *fa, *fb;

	ck_assert_ptr_nonnull(s);
	while ((size_t)(p - s) < cap - 4096) {
		char *r = p;
		size_t want = 64 * (1 + nrec % 5) + nrec % 67, nf = 0;
		int cr = (nrec / 67) % 2, esc = nrec % 41 == 40;

		/* fields until the record (its quote, CR) is want bytes long */
		for (;;) {
			size_t left = want - (size_t)(p - r) - (size_t)cr - 2 - (nf > 0);
			size_t len = (size_t)(rnd(&seed) % 71);

			if (len + 8 > left)
				len = left;
			if (nf > 0)
				*p++ = ',';
			*p++ = '"';
			for (k = 0; k < len; k++)
				*p++ = (char)(k % 9 == 4 ? ',' : 'a' + (nrec + k) % 26);
			if (esc && nf == 1) {	/* a "" at its end */
				*p++ = '"';
				*p++ = '"';
			}
			*p++ = '"';
			nf++;
			if (len == left)
				break;
		}
		if (cr)
			*p++ = '\r';
		*p++ = '\n';
		nrec++;
	}
	ck_assert_ptr_nonnull(fa = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(fb = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(a = kp_csv_open(fa, "a.csv"));
	ck_assert_ptr_nonnull(b = kp_csv_open(fb, "b.csv"));
	ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
	for (i = 0; i < nrec; i++) {
		size_t idx[64], nfa;

		ck_assert_int_eq(kp_csv_next(a, &err), 1);
		ck_assert_int_eq(kp_csv_next(b, &err), 1);
		ck_assert_uint_eq(nfa = kp_csv_nfields(a), kp_csv_nfields(b));
		if (i % 3 == 0) {	/* fields 0, 1, ... and the last, as kp_src picks them */
			size_t want = 1 + rnd(&seed) % 9;

			for (n = 0; n < want && n < nfa; n++)
				idx[n] = n;
			if (idx[n - 1] + 1 < nfa)
				idx[n++] = nfa - 1;
		} else
			for (n = 0, j = rnd(&seed) % 3; j < nfa && n < 63; j += 1 + rnd(&seed) % 4) {
				idx[n++] = j;
				if (j % 5 == 0 && n < 63)
					idx[n++] = j;	/* a repeat */
			}
		for (j = 0, k = 0; i % 3 != 0 && n > 0 && n < 64 && j < idx[n - 1]; j++) {
			while (k < n && idx[k] < j)
				k++;
			if (idx[k] != j) {	/* one not picked yet, behind the last one */
				idx[n++] = j;
				break;
			}
		}
#ifdef __SSE2__
		/* ncu's form is taken lazily, whatever its length; the "" one is not */
		ck_assert_int_eq(kp_csv_raw(b, &k) != NULL, i % 41 != 40);
#endif
		kp_csv_pick(b, idx, n);
		for (j = 0; j < n; j++) {
			const struct kp_field *fa1 = kp_csv_field(a, idx[j]),
			    *fb1 = kp_csv_field(b, idx[j]);

			ck_assert_ptr_nonnull(fb1);
			ck_assert_uint_eq(fa1->len, fb1->len);
			ck_assert_mem_eq(fa1->s, fb1->s, fa1->len);
			ck_assert_int_eq(fb1->s[fb1->len], '\0');
		}
		kp_csv_fill(b);
		for (j = 0; j < nfa; j++)
			ck_assert_str_eq(kp_csv_field(a, j)->s, kp_csv_field(b, j)->s);
	}
	ck_assert_int_eq(kp_csv_next(a, &err), 0);
	ck_assert_int_eq(kp_csv_next(b, &err), 0);
	ck_assert_uint_gt(nrec, 1000);
	kp_csv_close(a);
	kp_csv_close(b);
	fclose(fa);
	fclose(fb);
	free(s);
}
END_TEST

/*
 * A reader thread (kp_csv_readahead) gives the same records as a plain
 * reader: noise lines, ncu-form records, records with quotes doubled or
 * newlines inside, CRLF, and records longer than a chunk and its room, read
 * from a file in chunks of 61 bytes to 64 KiB; lazily, a few picks then all.
 */
/*
 * A NUL byte anywhere in a record of ncu's form: the record is not pending
 * (kp_csv_raw() is NULL: a pending one has no NUL of its own), and its
 * fields keep every byte, whichever scan reads it.
 */
START_TEST(test_csv_nul_in_record_not_pending)
{
	struct kp_err err;
	char s[400];
	size_t at, n, j;

	for (at = 0; at < 140; at++) {
		static const size_t flen[3] = { 70, 40, 10 };
		struct kp_csv *c;
		FILE *fp;
		size_t len, pos[3];
		char *p = s;

		for (j = 0; j < 3; j++) {
			size_t k;

			if (j > 0)
				*p++ = ',';
			*p++ = '"';
			pos[j] = (size_t)(p - s);
			for (k = 0; k < flen[j]; k++)
				*p++ = (char)('a' + (j + k) % 26);
			*p++ = '"';
		}
		*p++ = '\n';
		memcpy(p, "\"x\",\"y\"\n", 8);
		n = (size_t)(p - s) + 8;
		/* a NUL at a field byte; the quotes, commas and newline stay */
		for (j = 0; j < 3 && !(at >= pos[j] && at < pos[j] + flen[j]); j++)
			;
		if (j == 3)
			continue;
		s[at] = '\0';
		ck_assert_ptr_nonnull(fp = fmemopen(s, n, "r"));
		ck_assert_ptr_nonnull(c = kp_csv_open(fp, "mem.csv"));
		ck_assert_int_eq(kp_csv_lazy(c, 1), 0);
		ck_assert_int_eq(kp_csv_next(c, &err), 1);
		ck_assert_msg(kp_csv_raw(c, &len) == NULL, "NUL at %zu: pending", at);
		ck_assert_uint_eq(kp_csv_nfields(c), 3);
		kp_csv_fill(c);
		for (j = 0; j < 3; j++) {
			const struct kp_field *f = kp_csv_field(c, j);

			ck_assert_uint_eq(f->len, flen[j]);
			ck_assert(memcmp(f->s, s + pos[j], flen[j]) == 0);
		}
		ck_assert_int_eq(kp_csv_next(c, &err), 1);
		ck_assert_ptr_nonnull(kp_csv_raw(c, &len));	/* the next one is */
		ck_assert_int_eq(kp_csv_next(c, &err), 0);
		kp_csv_close(c);
		fclose(fp);
		s[at] = 'a';
	}
}
END_TEST

static size_t
mixed_input(char *s, size_t cap)
{
	uint64_t seed = 0x853c49e6748fea9bULL;
	char *p = s;
	size_t r = 0;

	while ((size_t)(p - s) < cap - 40000) {
		size_t nf = 1 + rnd(&seed) % 40, odd = rnd(&seed) % 16, j, k;

		if (odd == 0) {
			p += sprintf(p, "==PROF== noise %zu\n", r);
			r++;
			continue;
		}
		if (odd == 1)
			nf = 2000 + rnd(&seed) % 2000;	/* longer than the small chunks */
		for (j = 0; j < nf; j++) {
			size_t n = rnd(&seed) % (odd == 1 ? 12 : 30);

			if (j > 0)
				*p++ = ',';
			*p++ = '"';
			for (k = 0; k < n; k++) {
				char ch = (char)('a' + (r + j + k) % 26);

				if (odd == 2 && k == n / 2)
					*p++ = ch = '"';
				else if (odd == 3 && k == n / 2)
					ch = '\n';
				else if (odd == 5 && k == n / 2)
					ch = '\0';
				*p++ = ch;
			}
			*p++ = '"';
		}
		if (odd == 4)
			*p++ = '\r';
		*p++ = '\n';
		r++;
	}
	return (size_t)(p - s);
}

/* mixed_input() of 3 MB, also written to a file made from path's template */
static char *
mixed_file(char *path, size_t *n)
{
	size_t cap = 3 * 1024 * 1024;
	char *s = malloc(cap);
	int fd;

	ck_assert_ptr_nonnull(s);
	*n = mixed_input(s, cap);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_uint_eq((size_t)write(fd, s, *n), *n);
	close(fd);
	return s;
}

/* s read from memory (*a) and path read ahead in chunks (*b); the FILE of *a */
static FILE *
open_pair(char *s, size_t n, const char *path, size_t chunk, struct kp_csv **a, struct kp_csv **b)
{
	struct kp_err err;
	FILE *fp;

	ck_assert_ptr_nonnull(fp = fmemopen(s, n, "r"));
	ck_assert_ptr_nonnull(*a = kp_csv_open(fp, "mem.csv"));
	kp_csv_readahead(chunk);
	*b = kp_csv_open_path(path, &err);
	kp_csv_readahead(0);
	ck_assert_ptr_nonnull(*b);
	return fp;
}

START_TEST(test_csv_readahead_same_records)
{
	static const size_t chunks[] = { 61, 512, 4099, 65536 };
	struct kp_err err;
	size_t n, ci, i, nrec = 0;
	char path[] = "/tmp/kp-check-csv-XXXXXX", *s = mixed_file(path, &n);
	FILE *fp;

	for (ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
		struct kp_csv *a, *b;
		int ra, rb;
		size_t bad = 0;

		fp = open_pair(s, n, path, chunks[ci], &a, &b);
		ck_assert_int_eq(kp_csv_lazy(a, 1), 0);
		ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
		for (i = 0; bad == 0; i++) {
			size_t pick[3] = { 0, 1, 5 }, j, la, lb;
			const char *xa, *xb;

			ra = kp_csv_next(a, &err);
			rb = kp_csv_next(b, &err);
			if (ra != rb) {
				bad = i + 1;
				break;
			}
			if (ra != 1)
				break;
			if (kp_csv_nfields(a) != kp_csv_nfields(b) || kp_csv_line(a) != kp_csv_line(b)) {
				bad = i + 1;
				break;
			}
			xa = kp_csv_raw(a, &la);
			xb = kp_csv_raw(b, &lb);
			if ((xa == NULL) != (xb == NULL) || (xa && (la != lb || memcmp(xa, xb, la)))) {
				bad = i + 1;
				break;
			}
			if (i % 2) {
				kp_csv_pick(a, pick, 3);
				kp_csv_pick(b, pick, 3);
			}
			kp_csv_fill(a);
			kp_csv_fill(b);
			for (j = 0; j < kp_csv_nfields(a) && bad == 0; j++) {
				const struct kp_field *fa = kp_csv_field(a, j), *fb = kp_csv_field(b, j);

				if (fa->len != fb->len || memcmp(fa->s, fb->s, fa->len + 1) != 0)
					bad = i + 1;
			}
		}
		ck_assert_msg(bad == 0, "chunk %zu: record %zu differs", chunks[ci], bad);
		ck_assert_int_eq(ra, 0);
		ck_assert_uint_eq(kp_csv_noise_lines(a), kp_csv_noise_lines(b));
		if (nrec == 0)
			nrec = i;
		ck_assert_uint_eq(i, nrec);
		kp_csv_close(a);
		kp_csv_close(b);
		fclose(fp);
	}
	ck_assert_uint_gt(nrec, 1000);
	unlink(path);
	free(s);
}
END_TEST

/*
 * Fields picked from a lazy record whose reader thread found their ends
 * (the first four and the last: kp_csv_pick takes them without a walk) are
 * the fields a whole split gives, alone, in any order, mixed with others;
 * a CR before the newline stays out of the last one.
 */
START_TEST(test_csv_readahead_picks_as_split)
{
	static const size_t chunks[] = { 512, 65536 };
	struct kp_err err;
	size_t n, ci, i, picked = 0;
	char path[] = "/tmp/kp-check-csv-XXXXXX", *s = mixed_file(path, &n);
	FILE *fp;

	for (ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
		struct kp_csv *a, *b;
		int ra;

		fp = open_pair(s, n, path, chunks[ci], &a, &b);
		ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
		for (i = 0; (ra = kp_csv_next(a, &err)) == 1; i++) {
			size_t nf, last, set[5], k, np;

			ck_assert_int_eq(kp_csv_next(b, &err), 1);
			nf = kp_csv_nfields(a);
			ck_assert_uint_eq(kp_csv_nfields(b), nf);
			last = nf - 1;
			switch (i % 4) {
			case 0:		/* as kp_src_next picks */
				set[0] = 0, set[1] = 1, set[2] = 2, set[3] = 3, set[4] = last;
				np = 5;
				break;
			case 1:
				set[0] = last, np = 1;
				break;
			case 2:		/* descending, one between */
				set[0] = last, set[1] = nf / 2, set[2] = 3, set[3] = 0, np = 4;
				break;
			default:
				set[0] = 2, set[1] = last, set[2] = 1, np = 3;
				break;
			}
			kp_csv_pick(b, set, np);
			for (k = 0; k < np; k++) {
				const struct kp_field *fa, *fb;

				if (set[k] >= nf)
					continue;
				fa = kp_csv_field(a, set[k]);
				fb = kp_csv_field(b, set[k]);
				ck_assert_ptr_nonnull(fb);
				ck_assert_msg(fa->len == fb->len && memcmp(fa->s, fb->s, fa->len + 1) == 0,
				    "chunk %zu: record %zu field %zu: \"%s\", split \"%s\"", chunks[ci],
				    i, set[k], fb->s, fa->s);
				picked++;
			}
		}
		ck_assert_int_eq(ra, 0);
		ck_assert_int_eq(kp_csv_next(b, &err), 0);
		kp_csv_close(a);
		kp_csv_close(b);
		fclose(fp);
	}
	ck_assert_uint_gt(picked, 10000);
	unlink(path);
	free(s);
}
END_TEST

/*
 * Picks from lazy records of s (also the file path) after kp_csv_want() (the
 * reader thread finds the wanted fields' ends) against a whole split: wanted
 * fields past a record's last, wanted and other fields mixed, ascending and
 * not, and the records the thread scanned before the call.  The picks made;
 * *wanted, those of wanted fields; *hits, those that took the thread's ends.
 */
static size_t
want_picks(char *s, size_t n, const char *path, size_t chunk, size_t *wanted, size_t *hits)
{
	static const size_t want[] = { 0, 2, 3, 7, 39, 500, 1500, 3999 };
	static const size_t sets[][6] = {
		{ 0, 2, 3, 7, 39, 3999 },	/* wanted ones */
		{ 1, 2, 5, 7, 8, 1500 },	/* mixed with others */
		{ 3999, 500, 39, 7, 4, 0 },	/* descending */
		{ 6, 7, 40, 499, 500, 1501 },
	};
	struct kp_err err;
	struct kp_csv *a, *b;
	size_t i, j, picked = 0;
	FILE *fp = open_pair(s, n, path, chunk, &a, &b);
	int ra;

	*wanted = 0;
	ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
	for (i = 0; (ra = kp_csv_next(a, &err)) == 1; i++) {
		const size_t *set = sets[i % 4];
		size_t nf, k;

		if (i == 3)	/* the thread has scanned some records by now */
			ck_assert_int_eq(kp_csv_want(b, want, sizeof(want) / sizeof(want[0])), 0);
		ck_assert_int_eq(kp_csv_next(b, &err), 1);
		nf = kp_csv_nfields(a);
		ck_assert_uint_eq(kp_csv_nfields(b), nf);
		kp_csv_pick(b, set, 6);
		for (k = 0; k < 6; k++) {
			const struct kp_field *fa, *fb;

			if (set[k] >= nf) {
				ck_assert_ptr_null(kp_csv_field(b, set[k]));
				continue;
			}
			fa = kp_csv_field(a, set[k]);
			fb = kp_csv_field(b, set[k]);
			ck_assert_ptr_nonnull(fb);
			ck_assert_msg(fa->len == fb->len && memcmp(fa->s, fb->s, fa->len + 1) == 0,
			    "%s, chunk %zu: record %zu field %zu: \"%s\", split \"%s\"", path,
			    chunk, i, set[k], fb->s, fa->s);
			picked++;
			for (j = 0; j < sizeof(want) / sizeof(want[0]); j++)
				*wanted += want[j] == set[k];
		}
	}
	ck_assert_int_eq(ra, 0);
	ck_assert_int_eq(kp_csv_next(b, &err), 0);
	*hits = kp_csv_want_hits(b);
	ck_assert_uint_le(*hits, *wanted);
	kp_csv_close(a);
	kp_csv_close(b);
	fclose(fp);
	return picked;
}

START_TEST(test_csv_want_picks_as_split)
{
	static const size_t chunks[] = { 512, 65536 };
	const char *real = KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv";
	size_t n, ci, picked, wanted, hits;
	char path[] = "/tmp/kp-check-csv-XXXXXX", *s = mixed_file(path, &n);
	FILE *fp;

	/* a record with a NUL ends a buffer's scan: some picks only take the ends */
	for (ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
		ck_assert_uint_gt(picked = want_picks(s, n, path, chunks[ci], &wanted, &hits), 5000);
		ck_assert_uint_gt(hits, 0);
	}
	unlink(path);
	free(s);
	/*
	 * ncu's records, 4 KB each: all but those across buffers and those of
	 * the buffers scanned before the call (3 of 13 at most)
	 */
	ck_assert_ptr_nonnull(fp = fopen(real, "rb"));
	ck_assert_ptr_nonnull(s = malloc(1 << 20));
	ck_assert_uint_gt(n = fread(s, 1, 1 << 20, fp), 100000);
	fclose(fp);
	picked = want_picks(s, n, real, 65536, &wanted, &hits);
	ck_assert_uint_gt(picked, 800);
	ck_assert_uint_ge(hits, wanted / 2);
	free(s);
}
END_TEST

#ifdef __SSE2__
/*
 * kp_csv_fields_copy() of every pending record of a set, from several
 * fields on, before and after picks (they end fields with NULs): each
 * field's bytes and a '"', as a whole read splits them, and the length
 * kp_csv_fields_len() gave.  Run once a scan: the wide ones copy by
 * kp_csv_squeeze(), sse2 field by field.
 */
static size_t
copies_as_split(const char *s, size_t n)
{
	struct kp_err err;
	FILE *fa = fmemopen((void *)s, n, "r"), *fb = fmemopen((void *)s, n, "r");
	struct kp_csv *a, *b;
	char *got = NULL, *want = NULL;
	size_t cap = 0, nrec = 0, len, nf, t, i, f, w, firsts[6];

	ck_assert_ptr_nonnull(fa);
	ck_assert_ptr_nonnull(fb);
	ck_assert_ptr_nonnull(a = kp_csv_open(fa, "a.csv"));
	ck_assert_ptr_nonnull(b = kp_csv_open(fb, "b.csv"));
	ck_assert_int_eq(kp_csv_lazy(b, 1), 0);
	while (kp_csv_next(a, &err) == 1) {
		ck_assert_int_eq(kp_csv_next(b, &err), 1);
		if (kp_csv_raw(b, &len) == NULL)
			continue;
		if (len + 16 > cap) {
			cap = 2 * len + 16;
			ck_assert_ptr_nonnull(got = realloc(got, cap));
			ck_assert_ptr_nonnull(want = realloc(want, cap));
		}
		nf = kp_csv_nfields(a);
		firsts[0] = 0, firsts[1] = 1, firsts[2] = 11, firsts[3] = nf / 2;
		firsts[4] = nf - 1, firsts[5] = nf;
		for (t = 0; t < 2; t++) {
			if (t == 1) {	/* the first, a middle and the last field picked */
				size_t idx[3] = { 0, nf / 2, nf - 1 };

				kp_csv_pick(b, idx, nf >= 3 ? 3 : 1);
			}
			for (f = 0; f < 6; f++) {
				if (firsts[f] > nf)
					continue;
				for (w = 0, i = firsts[f]; i < nf; i++) {
					const struct kp_field *fl = kp_csv_field(a, i);

					memcpy(want + w, fl->s, fl->len);
					w += fl->len;
					want[w++] = '"';
				}
				ck_assert_uint_eq(kp_csv_fields_len(b, firsts[f]), w);
				ck_assert_uint_eq(kp_csv_fields_copy(b, firsts[f], got), w);
				ck_assert_mem_eq(got, want, w);
			}
		}
		nrec++;
	}
	kp_csv_close(a);
	kp_csv_close(b);
	fclose(fa);
	fclose(fb);
	free(got);
	free(want);
	return nrec;
}

START_TEST(test_csv_fields_copy_as_split)
{
	static const char tricky[] =
	    "\"a\"\n"				/* one field */
	    "\"\"\n"				/* one empty field */
	    "\"x\",\"\",\"\",\"y\"\n"		/* empty fields between */
	    "\"p\",\"q\r\"\n"			/* the CR inside the last quotes */
	    "\"\r\"\n"				/* a CR alone */
	    "\"p\",\"q\"\r\n"			/* CRLF */
	    "\"0123456789012345678901234567890123456789012345678901234567890\",\"7\",\"8\"\n"
	    "\"012345678901234567890123456789012345678901234567890123456789\",\"7\",\"8\"\n"
	    "\"01234567890123456789012345678901234567890123456789012345678\",\"7\",\"8\"\n";
	size_t cap = 1 << 20, n = 0, k, nrec = 0;
	char *s = malloc(cap);
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	FILE *fp;

	ck_assert_uint_eq(copies_as_split(tricky, sizeof(tricky) - 1), 9);
	/* random records of 1-40 fields of 0-20 bytes: quotes at every bit of a block */
	ck_assert_ptr_nonnull(s);
	while (n < cap - 4096) {
		size_t nf = 1 + rnd(&seed) % 40, i;

		for (i = 0; i < nf; i++) {
			size_t len = (size_t)(rnd(&seed) % 21);

			if (i > 0)
				s[n++] = ',';
			s[n++] = '"';
			for (k = 0; k < len; k++, n++)
				s[n] = (char)(k % 7 == 3 ? ',' : '0' + (n + k) % 10);
			if (i + 1 == nf && nrec % 13 == 5)
				s[n++] = '\r';
			s[n++] = '"';
		}
		if (nrec % 11 == 3)
			s[n++] = '\r';
		s[n++] = '\n';
		nrec++;
	}
	ck_assert_uint_eq(copies_as_split(s, n), nrec);
	ck_assert_ptr_nonnull(fp = fopen(KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv", "rb"));
	n = fread(s, 1, cap, fp);
	fclose(fp);
	ck_assert_uint_gt(n, 100000);
	while (n > 0 && s[n - 1] != '\n')	/* whole records */
		n--;
	ck_assert_uint_gt(copies_as_split(s, n), 200);
	free(s);
}
END_TEST
#endif

static Suite *
csv_suite(const char *isa)
{
	Suite *s = suite_create(isa);
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_csv_skips_noise_lines);
	tcase_add_test(tc, test_csv_readahead_picks_as_split);
	tcase_add_test(tc, test_csv_want_picks_as_split);
	tcase_add_test(tc, test_csv_quotes_commas_newlines);
	tcase_add_test(tc, test_csv_truncated_quote_is_error);
	tcase_add_test(tc, test_csv_missing_final_newline_is_error);
	tcase_add_test(tc, test_csv_crlf_line_endings);
	tcase_add_test(tc, test_csv_real_raw_page);
	tcase_add_test(tc, test_csv_long_record_across_chunks);
	tcase_add_test(tc, test_csv_missing_file);
	tcase_add_test(tc, test_csv_records_across_buffer_ends);
	tcase_add_test(tc, test_csv_fast_and_slow_forms);
	tcase_add_test(tc, test_csv_fast_record_then_newline_in_quotes);
	tcase_add_test(tc, test_csv_all_quoted_no_newline_at_end);
	tcase_add_test(tc, test_csv_random_records_fast_and_slow);
	tcase_add_test(tc, test_csv_tricky_fields_every_scan);
#ifdef __SSE2__
	tcase_add_test(tc, test_csv_lazy_pick_and_fill);
	tcase_add_test(tc, test_csv_raw_of_pending_record);
#endif
	tcase_add_test(tc, test_csv_lazy_real_raw_page);
	tcase_add_test(tc, test_csv_lazy_picks_at_every_block_end);
#ifdef __SSE2__
	tcase_add_test(tc, test_csv_fields_copy_as_split);
#endif
	tcase_add_test(tc, test_csv_readahead_same_records);
	tcase_add_test(tc, test_csv_nul_in_record_not_pending);
	tcase_add_test(tc, test_csv_read_fn_as_stream);
	suite_add_tcase(s, tc);
	return s;
}

/* The whole suite once for each record scan this build and CPU have. */
int
main(void)
{
	static const char *const isas[] = { "avx512", "avx2", "sse2" };
	size_t i, runs = 0;
	int failed = 0;

	for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
		SRunner *sr;

		if (kp_csv_isa(isas[i]) == NULL)
			continue;
		sr = srunner_create(csv_suite(isas[i]));
		srunner_run_all(sr, CK_NORMAL);
		failed += srunner_ntests_failed(sr);
		srunner_free(sr);
		runs++;
	}
	if (runs == 0) {	/* a build without the fast form */
		SRunner *sr = srunner_create(csv_suite(kp_csv_isa(NULL)));

		srunner_run_all(sr, CK_NORMAL);
		failed += srunner_ntests_failed(sr);
		srunner_free(sr);
	}
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
