/*
 * csvpage.c: which ncu page a CSV file is, the launch columns every page has,
 * and reading one file (raw page: rawpage.c; details page: detailspage.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_metrics.h"
#include "kp_number.h"
#include "kp_utf8.h"
#include "metrics_int.h"

static int
field_is(const struct kp_csv *c, size_t i, const char *s)
{
	const struct kp_field *f = kp_csv_field(c, i);

	return f != NULL && strcmp(f->s, s) == 0;
}

long
mx_header_index(const struct kp_csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < kp_csv_nfields(c); i++)
		if (field_is(c, i, name))
			return (long)i;
	return -1;
}

/* What a first record says the file is. */
static const char *
page_of(const struct kp_csv *c)
{
	const struct kp_field *f0 = kp_csv_field(c, 0);

	if (field_is(c, 0, "ID") && field_is(c, 1, "Process ID")) {
		if (mx_header_index(c, "Section Name") >= 0 && mx_header_index(c, "Metric Name") >= 0 &&
		    mx_header_index(c, "Metric Unit") >= 0 && mx_header_index(c, "Metric Value") >= 0)
			return "details";
		return "raw";
	}
	if (f0 == NULL)
		return "unknown";
	if (strcmp(f0->s, "Kernel Name") == 0 || strcmp(f0->s, "File Path") == 0 ||
	    strcmp(f0->s, "Address") == 0 || strcmp(f0->s, "# Address") == 0 ||
	    strcmp(f0->s, "Line No") == 0 || strcmp(f0->s, "Source") == 0)
		return "source";
	if (field_is(c, 0, "Process ID") && mx_header_index(c, "Invocations") >= 0)
		return "summary";
	if (strcmp(f0->s, "Launch Attribute") == 0)
		return "session";
	return "unknown";
}

static int
not_a_page(const struct kp_csv *c, const char *page, struct kp_err *err)
{
	const char *what = "not ncu CSV of the raw or details page";

	if (strcmp(page, "source") == 0)
		what = "an ncu source page (--page source), not the raw or details page";
	else if (strcmp(page, "summary") == 0)
		what = "an ncu --print-summary page, not the raw or details page";
	else if (strcmp(page, "session") == 0)
		what = "an ncu session page (--page session), not the raw or details page";
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %s", kp_csv_name(c), kp_csv_line(c), what);
}

static int
no_records(const struct kp_csv *c, struct kp_err *err)
{
	const char *e = kp_csv_last_error_line(c);

	if (e != NULL && strncmp(e, "==ERROR==", 9) == 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no CSV: ncu reported: %s",
		    kp_csv_name(c), kp_csv_noise_lines(c), e);
	if (kp_csv_noise_lines(c) == 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:1: empty file", kp_csv_name(c));
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no CSV records (%lu lines of other output%s%s)",
	    kp_csv_name(c), kp_csv_noise_lines(c), kp_csv_noise_lines(c),
	    e ? "; last: " : "", e ? e : "");
}

int
mx_parse_id(const struct kp_csv *c, size_t i, long long *id, struct kp_err *err)
{
	const struct kp_field *f = kp_csv_field(c, i);
	double v;

	if (f == NULL || kp_parse_number(f->s, f->len, &v) != KP_NUM_OK || v != rint(v) ||
	    v < 0 || v > 9e15)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: bad launch ID \"%s\"", kp_csv_name(c),
		    kp_csv_line(c), f ? f->s : "");
	*id = (long long)v;
	return 0;
}

void
mx_fixed_find(const struct kp_csv *c, struct fixed *fx)
{
	fx->id = mx_header_index(c, "ID");
	fx->name = mx_header_index(c, "Kernel Name");
	fx->block = mx_header_index(c, "Block Size");
	fx->grid = mx_header_index(c, "Grid Size");
	fx->cc = mx_header_index(c, "CC");
	fx->device = mx_header_index(c, "device__attribute_display_name");
}

static int
kernel_fill(struct kernel *k, const struct kp_csv *c, const struct fixed *fx)
{
	const struct kp_field *f;

	if (!k->have_block && fx->block >= 0 && (f = kp_csv_field(c, (size_t)fx->block)) != NULL)
		k->have_block = kp_parse_dim3(f->s, k->block) == 0;
	if (!k->have_grid && fx->grid >= 0 && (f = kp_csv_field(c, (size_t)fx->grid)) != NULL)
		k->have_grid = kp_parse_dim3(f->s, k->grid) == 0;
	if (k->cc == NULL && fx->cc >= 0 && (f = kp_csv_field(c, (size_t)fx->cc)) != NULL &&
	    f->len > 0 && (k->cc = strdup(f->s)) == NULL)
		return -1;
	if (k->device == NULL && fx->device >= 0 &&
	    (f = kp_csv_field(c, (size_t)fx->device)) != NULL && f->len > 0 &&
	    (k->device = strdup(f->s)) == NULL)
		return -1;
	return 0;
}

/* The kernel of a row; the last one is cached (rows of a kernel come together). */
struct kernel *
mx_row_kernel(struct ex *x, const struct kp_csv *c, const struct fixed *fx, struct kp_err *err)
{
	const struct kp_field *f = kp_csv_field(c, (size_t)fx->name);
	struct kernel *k;

	if (f == NULL || f->len == 0) {
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: no kernel name", kp_csv_name(c),
		    kp_csv_line(c));
		return NULL;
	}
	if ((k = mx_kernel_find(x, f->s, f->len)) != NULL) {
		if (kernel_fill(k, c, fx) < 0)
			mx_nomem(err);
		return k;
	}
	if (kp_utf8_check(f->s, f->len) != f->len) {
		/* JSON cannot hold it: say so, instead of "out of memory" later */
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: kernel name is not valid UTF-8", kp_csv_name(c),
		    kp_csv_line(c));
		return NULL;
	}
	if ((k = mx_kernel_get(x, f->s, f->len)) == NULL || kernel_fill(k, c, fx) < 0)
		mx_nomem(err);
	return k;
}

int
mx_read_file(struct ex *x, const char *path, struct kp_err *err)
{
	struct kp_csv *c;
	struct stat st;
	const char *page;
	int r, reg;

	if (strcmp(path, "-") == 0)
		c = kp_csv_open(stdin, "<stdin>");
	else
		c = kp_csv_open_path(path, err);
	if (c == NULL)
		return strcmp(path, "-") == 0 ? mx_nomem(err) : -1;
	x->path = kp_csv_name(c);
	x->file_launches = 0;
	/* only how the sample is kept depends on them (mx_text_room, pack), never the output */
	reg = strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
	x->big_file = reg && st.st_size >= MX_BIG_FILE;
	/*
	 * A small file's kept launches are most often all of its launches,
	 * each packed once and read back once: their cells are kept as they
	 * are (2.2 KB against under 1 KB for torch_mix, within MX_BUDGET,
	 * which counts four bytes a metric either way), not packed.  A pipe
	 * may be any length: packed.
	 */
	x->flat = reg && !x->big_file;
	mx_launch_reset(x);
	if ((r = kp_csv_next(c, err)) <= 0) {
		if (r == 0)
			no_records(c, err);
		kp_csv_close(c);
		return -1;
	}
	page = page_of(c);
	if (strcmp(page, "raw") == 0)
		r = mx_read_raw(x, c, err);
	else if (strcmp(page, "details") == 0)
		r = mx_read_details(x, c, err);
	else
		r = not_a_page(c, page, err);
	if (r == 0 && x->file_launches == 0)
		r = kp_errf(err, KP_EXIT_DATA, "%s:%lu: %s page without any launch (truncated?)",
		    kp_csv_name(c), kp_csv_line(c), page);
	if (r == 0 && json_array_append_new(x->inputs, json_pack("{s:s, s:s, s:I}", "path",
	    x->path, "page", page, "launches", (json_int_t)x->file_launches)) < 0)
		r = mx_nomem(err);
	mx_launch_reset(x);
	x->path = NULL;
	free(x->jpath);
	x->jpath = NULL;
	x->jpath_state = 0;
	kp_csv_close(c);
	return r;
}

const char *
kp_metrics_page(const char *path, struct kp_err *err)
{
	static const char *const pages[] = { "raw", "details", "source", "summary",
		"session" };
	struct kp_csv *c;
	const char *page = NULL, *p;
	size_t i;
	int r;

	if ((c = kp_csv_open_path(path, err)) == NULL)
		return NULL;
	if ((r = kp_csv_next(c, err)) == 0)
		no_records(c, err);
	if (r == 1) {
		p = page_of(c);
		page = "unknown";
		for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
			if (strcmp(p, pages[i]) == 0)
				page = pages[i];
	}
	kp_csv_close(c);
	return page;
}
