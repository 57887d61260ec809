/*
 * hotspots.c: rank the lines and instructions of one kernel's source page.
 *
 * The page is read once (source.c).  Each block is held until its end, then
 * merged into per-line and per-instruction sums, unless it repeats an earlier
 * block exactly (ncu prints some blocks twice).  A block whose file and
 * function were already seen starts a new launch copy; copies are summed, so
 * the ranking is over the kernel, not per launch.  Within one copy an
 * instruction listed twice under the same line counts once, and the kernel's
 * total counts each address once (inlined code is listed under the header
 * line and under the calling line).
 *
 * hotspots_agg.c reads and sums the page, hotspots_rank.c ranks it; this
 * file frees and writes the rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_hotspots.h"
#include "hotspots_int.h"

void
hs_row_free(struct kp_hotspot *r)
{
	free(r->source_file);
	free(r->function);
	free(r->sass_opcode);
	free(r->ptx_opcode);
	free(r->metric);
	free(r->stall_reason);
	free(r->evidence);
	free(r->address);
}

void
kp_hotspots_free(struct kp_hotspots *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++)
		hs_row_free(&h->rows[i]);
	free(h->rows);
	free(h);
}

/* ---- output ---- */
static int
csv_field(FILE *fp, const char *s, int last)
{
	int rc;

	if (strpbrk(s, ",\"\r\n") == NULL)
		rc = fputs(s, fp);
	else
		rc = kp_csv_put_quoted(fp, s) < 0 ? EOF : 0;
	if (rc != EOF)
		rc = fputc(last ? '\n' : ',', fp);
	return rc == EOF ? -1 : 0;
}

static void
fmt_value(char *buf, size_t n, double v)
{
	if (isnan(v))
		buf[0] = '\0';
	else if (v == floor(v) && fabs(v) < 1e17)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.17g", v);
}

int
kp_hotspots_write_csv(FILE *fp, const struct kp_hotspots *h, struct kp_err *err)
{
	size_t i;

	for (i = 0; i < KP_HSC_N; i++)
		if (csv_field(fp, kp_hs_cols[i], i == KP_HSC_N - 1) < 0)
			goto fail;
	for (i = 0; i < h->n; i++) {
		const struct kp_hotspot *r = &h->rows[i];
		char ln[32] = "", val[64];

		if (r->line > 0)
			snprintf(ln, sizeof(ln), "%ld", r->line);
		fmt_value(val, sizeof(val), r->value);
		if (csv_field(fp, r->source_file, 0) < 0 || csv_field(fp, ln, 0) < 0 ||
		    csv_field(fp, r->function, 0) < 0 || csv_field(fp, r->sass_opcode, 0) < 0 ||
		    csv_field(fp, r->ptx_opcode, 0) < 0 || csv_field(fp, r->metric, 0) < 0 ||
		    csv_field(fp, val, 0) < 0 || csv_field(fp, r->stall_reason, 0) < 0 ||
		    csv_field(fp, r->bottleneck_class, 0) < 0 ||
		    csv_field(fp, r->confidence, 0) < 0 || csv_field(fp, r->evidence, 1) < 0)
			goto fail;
	}
	return 0;
fail:
	return kp_errno(err, KP_EXIT_ENV, "write error");
}

json_t *
kp_hotspot_json(const struct kp_hotspot *r, const char *profile_dir)
{
	static const char *const level[] = { "", "line", "instruction", "unavailable", "range" };
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "kind", json_string("hotspot"));
	json_object_set_new(o, "level", json_string(level[r->level]));
	json_object_set_new(o, "rank", json_integer(r->rank));
	json_object_set_new(o, "source_file", json_string(r->source_file));
	json_object_set_new(o, "line", r->line > 0 ? json_integer(r->line) : json_null());
	json_object_set_new(o, "function", json_string(r->function));
	json_object_set_new(o, "sass_opcode", json_string(r->sass_opcode));
	json_object_set_new(o, "ptx_opcode", json_string(r->ptx_opcode));
	json_object_set_new(o, "metric", json_string(r->metric));
	if (isnan(r->value))
		json_object_set_new(o, "value", json_null());
	else if (r->value == floor(r->value) && fabs(r->value) < 9e15)
		json_object_set_new(o, "value", json_integer((json_int_t)r->value));
	else
		json_object_set_new(o, "value", json_real(r->value));
	json_object_set_new(o, "stall_reason", json_string(r->stall_reason));
	json_object_set_new(o, "bottleneck_class", json_string(r->bottleneck_class));
	json_object_set_new(o, "confidence", json_string(r->confidence));
	json_object_set_new(o, "evidence", json_string(r->evidence));
	if (r->address[0])
		json_object_set_new(o, "address", json_string(r->address));
	if (r->samples > 0) {
		json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
		json_object_set_new(o, "unattributed_samples",
		    json_integer((json_int_t)r->unattributed));
		if (!isnan(r->stall_samples))
			json_object_set_new(o, "stall_samples",
			    json_integer((json_int_t)r->stall_samples));
	}
	if (profile_dir != NULL)
		json_object_set_new(o, "profile_dir", json_string(profile_dir));
	return o;
}
