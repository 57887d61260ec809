/* libFuzzer target: the source-page reader (kp_src_open / kp_src_next) and the
 * hotspot ranking over it, on arbitrary bytes, then the CSV it writes. */
#define _GNU_SOURCE	/* fmemopen, open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kp_diag.h"
#include "kp_hotspots.h"
#include "kp_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_hs_opts o = { 0 };
	struct kp_src_row row;
	struct kp_err err;
	struct kp_src *s;
	struct kp_hotspots *h;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp, *w;
	int n = 0;

	if (size == 0)
		return 0;
	/* the row reader alone */
	if ((fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	if ((s = kp_src_open(fp, "fuzz.csv", &err)) != NULL) {
		while (n++ < 100000 && kp_src_next(s, &row, &err) > 0)
			;
		kp_src_close(s);
	}
	fclose(fp);
	/* the ranking and the CSV kp-hotspots writes from it */
	if ((fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	o.metric = KP_HS_DEFAULT_METRIC;
	o.top = 20;
	o.per_line = 3;
	if ((h = kp_hotspots_read(fp, "fuzz.csv", &o, &err)) != NULL) {
		if ((w = open_memstream(&out, &outlen)) != NULL) {
			kp_hotspots_write_csv(w, h, &err);
			fclose(w);
		}
		free(out);
		kp_hotspots_free(h);
	}
	fclose(fp);
	return 0;
}
