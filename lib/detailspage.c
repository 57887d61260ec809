/*
 * detailspage.c: the details page (--page details): one row per metric of a
 * launch, grouped by section.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_number.h"
#include "kp_summary_keys.h"
#include "kp_units.h"
#include "metrics_int.h"

#define DISPLAY_RANK 10		/* a raw metric of the same launch wins */

struct details {
	struct fixed fx;
	long sec, name, unit, value;
	char lastunit[64];
	struct kp_unit u;
	char key[512];
};

static int
details_row(struct ex *x, struct kp_csv *c, struct details *d, struct kp_err *err)
{
	const struct kp_field *sec, *name, *unit, *val;
	struct kernel *k;
	long long id;
	double v;
	long m;
	uint32_t cell = CELL_ABSENT;
	int key, rank = DISPLAY_RANK, sum = 0;

	if (mx_parse_id(c, (size_t)d->fx.id, &id, err) < 0)
		return -1;
	if (kp_csv_nfields(c) <= (size_t)d->name)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, too few for a details "
		    "row (truncated?)", kp_csv_name(c), kp_csv_line(c), kp_csv_nfields(c));
	if (!x->l.open || x->l.id != id) {
		if (mx_launch_end(x, err) < 0 || (k = mx_row_kernel(x, c, &d->fx, err)) == NULL ||
		    mx_launch_start(x, k, id, err) < 0)
			return -1;
	}
	k = x->l.k;
	sec = kp_csv_field(c, (size_t)d->sec);
	name = kp_csv_field(c, (size_t)d->name);
	unit = kp_csv_field(c, (size_t)d->unit);
	val = kp_csv_field(c, (size_t)d->value);
	if (val == NULL || name->len == 0 || kp_parse_number(val->s, val->len, &v) != KP_NUM_OK ||
	    !isfinite(v))
		return 0;	/* a rule row, or a value that is not a number */
	if (unit == NULL)
		unit = val;	/* never: Metric Unit precedes Metric Value */
	if (strcmp(unit->s, d->lastunit) != 0 || d->lastunit[0] == '\0') {
		kp_unit_parse(unit->s, &d->u);
		snprintf(d->lastunit, sizeof(d->lastunit), "%s", unit->s);
	}
	snprintf(d->key, sizeof(d->key), "%s/%s", sec->s, name->s);
	if ((m = mx_metric_get(x, d->key, d->u.known ? d->u.base : unit->s)) < 0 ||
	    mx_kernel_metric(x, k, (uint32_t)m, d->u.known ? d->u.base : unit->s) < 0 ||
	    mx_cell_parse(&x->l, val->s, val->len, d->u.scale, &cell, &v) < 0 ||
	    (x->l.keep && mx_cells_fit(&x->l, (size_t)m) < 0))
		return mx_nomem(err);
	if (x->l.keep)
		x->l.cells[m] = cell;
	if (!d->u.known && mx_kernel_unknown_unit(k, unit->s) < 0)
		return mx_nomem(err);
	if (strcmp(sec->s, CLI_SECTION) == 0)
		key = mx_raw_source(x, name->s, &rank, &sum);
	else
		key = kp_summary_key_of_display(sec->s, name->s);
	if (key == -1)
		return mx_nomem(err);
	if (key >= 0)
		mx_launch_put(x, key, rank, sum, v, CELL_ABSENT);
	if (mx_launch_all_metric(x, d->key, v, mx_metric_unit(x, k, (uint32_t)m)) < 0)
		return mx_nomem(err);
	return 0;
}

int
mx_read_details(struct ex *x, struct kp_csv *c, struct kp_err *err)
{
	struct details d;
	int r;

	memset(&d, 0, sizeof(d));
	mx_fixed_find(c, &d.fx);
	d.sec = mx_header_index(c, "Section Name");
	d.name = mx_header_index(c, "Metric Name");
	d.unit = mx_header_index(c, "Metric Unit");
	d.value = mx_header_index(c, "Metric Value");
	if (d.fx.name < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: details page without a \"Kernel "
		    "Name\" column", kp_csv_name(c), kp_csv_line(c));
	while ((r = kp_csv_next(c, err)) == 1)
		if (details_row(x, c, &d, err) < 0)
			return -1;
	if (r < 0 || mx_launch_end(x, err) < 0)
		return -1;
	return 0;
}
