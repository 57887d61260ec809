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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kp.h"

#define CHUNK (256 * 1024)

struct kp_csv {
	FILE *fp;
	int own;
	char *name;
	char *buf;
	size_t pos, end;
	int eof;
	char *rec;		/* unquoted field bytes, each NUL-terminated */
	size_t reclen, reccap;
	size_t *offs;		/* field start offsets into rec */
	struct kp_field *fields;
	size_t nf, fcap;
	unsigned long line;	/* lines consumed so far */
	unsigned long recline;	/* line where the current record began */
	unsigned long noise;
	char lasterr[512];
};

struct kp_csv *
kp_csv_open(FILE *fp, const char *name)
{
	struct kp_csv *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->fp = fp;
	c->name = strdup(name ? name : "<stdin>");
	c->buf = malloc(CHUNK);
	c->reccap = 4096;
	c->rec = malloc(c->reccap);
	c->fcap = 64;
	c->offs = malloc(c->fcap * sizeof(*c->offs));
	c->fields = malloc(c->fcap * sizeof(*c->fields));
	if (!c->name || !c->buf || !c->rec || !c->offs || !c->fields) {
		kp_csv_close(c);
		return NULL;
	}
	return c;
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
	free(c->buf);
	free(c->rec);
	free(c->offs);
	free(c->fields);
	free(c);
}

/* Make at least one unread byte available; 0 at end of input, -1 on error. */
static int
fill(struct kp_csv *c)
{
	size_t n;

	if (c->pos < c->end)
		return 1;
	if (c->eof)
		return 0;
	n = fread(c->buf, 1, CHUNK, c->fp);
	c->pos = 0;
	c->end = n;
	if (n == 0) {
		c->eof = 1;
		return ferror(c->fp) ? -1 : 0;
	}
	return 1;
}

static int
rec_put(struct kp_csv *c, const char *s, size_t n)
{
	if (c->reclen + n + 1 > c->reccap) {
		size_t cap = c->reccap;
		char *nr;

		while (c->reclen + n + 1 > cap)
			cap *= 2;
		if ((nr = realloc(c->rec, cap)) == NULL)
			return -1;
		c->rec = nr;
		c->reccap = cap;
	}
	memcpy(c->rec + c->reclen, s, n);
	c->reclen += n;
	return 0;
}

static int
field_start(struct kp_csv *c)
{
	if (c->nf == c->fcap) {
		size_t cap = c->fcap * 2;
		size_t *no = realloc(c->offs, cap * sizeof(*no));
		struct kp_field *nfl;

		if (no == NULL)
			return -1;
		c->offs = no;
		if ((nfl = realloc(c->fields, cap * sizeof(*nfl))) == NULL)
			return -1;
		c->fields = nfl;
		c->fcap = cap;
	}
	c->offs[c->nf++] = c->reclen;
	return 0;
}

static unsigned long
count_nl(const char *s, size_t n)
{
	unsigned long k = 0;
	const char *e = s + n;

	while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		k++;
		s++;
	}
	return k;
}

/* Skip one non-CSV line, remembering ==ERROR== / ==WARNING== text. */
static int
skip_line(struct kp_csv *c)
{
	int first = 1;
	size_t kept = 0;

	for (;;) {
		int r = fill(c);
		char *nl;
		size_t n;

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		nl = memchr(c->buf + c->pos, '\n', c->end - c->pos);
		n = (nl ? (size_t)(nl - (c->buf + c->pos)) : c->end - c->pos);
		if (first) {
			const char *s = c->buf + c->pos;
			if ((n >= 9 && memcmp(s, "==ERROR==", 9) == 0) ||
			    (n >= 11 && memcmp(s, "==WARNING==", 11) == 0)) {
				kept = n < sizeof(c->lasterr) - 1 ? n : sizeof(c->lasterr) - 1;
				memcpy(c->lasterr, s, kept);
				c->lasterr[kept] = '\0';
			}
			first = 0;
		}
		c->pos += n;
		if (nl) {
			c->pos++;
			break;
		}
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

int
kp_csv_next(struct kp_csv *c, struct kp_err *err)
{
	int r;
	size_t i;

	for (;;) {
		if ((r = fill(c)) <= 0)
			goto eof;
		if (c->buf[c->pos] == '"')
			break;
		if (skip_line(c) < 0)
			goto eof;
	}
	c->recline = c->line + 1;
	c->reclen = 0;
	c->nf = 0;
	for (;;) {		/* one field per iteration */
		if (field_start(c) < 0)
			goto nomem;
		if ((r = fill(c)) < 0)
			goto eof;
		if (r == 0)
			return truncated(c, err, "no newline at end of file");
		if (c->buf[c->pos] == '"') {
			c->pos++;
			for (;;) {
				char *q;
				size_t n;

				if ((r = fill(c)) < 0)
					goto eof;
				if (r == 0)
					return truncated(c, err, "unterminated quoted field");
				q = memchr(c->buf + c->pos, '"', c->end - c->pos);
				n = q ? (size_t)(q - (c->buf + c->pos)) : c->end - c->pos;
				c->line += count_nl(c->buf + c->pos, n);
				if (rec_put(c, c->buf + c->pos, n) < 0)
					goto nomem;
				c->pos += n;
				if (q == NULL)
					continue;
				c->pos++;	/* the quote */
				if ((r = fill(c)) < 0)
					goto eof;
				if (r == 1 && c->buf[c->pos] == '"') {
					if (rec_put(c, "\"", 1) < 0)
						goto nomem;
					c->pos++;
					continue;
				}
				break;
			}
		}
		/* Unquoted text (or stray text after a closing quote) up to , or \n. */
		for (;;) {
			size_t s;
			char ch = 0;

			if ((r = fill(c)) < 0)
				goto eof;
			if (r == 0)
				return truncated(c, err, "no newline at end of file");
			for (s = c->pos; s < c->end; s++) {
				ch = c->buf[s];
				if (ch == ',' || ch == '\n')
					break;
			}
			if (rec_put(c, c->buf + c->pos, s - c->pos) < 0)
				goto nomem;
			c->pos = s;
			if (s < c->end)
				break;
		}
		{
			char ch = c->buf[c->pos++];

			if (rec_put(c, "", 1) < 0)	/* NUL ends the field */
				goto nomem;
			if (ch == '\n') {
				c->line++;
				break;
			}
		}
	}
	for (i = 0; i < c->nf; i++) {
		size_t end = (i + 1 < c->nf ? c->offs[i + 1] : c->reclen) - 1;
		c->fields[i].s = c->rec + c->offs[i];
		c->fields[i].len = end - c->offs[i];
		/* A CR before the newline belongs to the line ending, not the field. */
		if (i + 1 == c->nf && c->fields[i].len > 0 &&
		    c->rec[c->offs[i] + c->fields[i].len - 1] == '\r') {
			c->fields[i].len--;
			c->rec[c->offs[i] + c->fields[i].len] = '\0';
		}
	}
	return 1;
eof:
	if (r < 0 || ferror(c->fp))
		return kp_errf(err, KP_EXIT_DATA, "%s: read error: %s", c->name,
		    strerror(errno ? errno : EIO));
	return 0;
nomem:
	return kp_errf(err, KP_EXIT_ENV, "%s:%lu: out of memory", c->name, c->recline);
}

size_t
kp_csv_nfields(const struct kp_csv *c)
{
	return c->nf;
}

const struct kp_field *
kp_csv_field(const struct kp_csv *c, size_t i)
{
	return i < c->nf ? &c->fields[i] : NULL;
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
