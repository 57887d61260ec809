/* libFuzzer target: the ncu CSV reader on arbitrary bytes (raw, details, source pages). */
#include <stdint.h>
#include <stdio.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_number.h"
#include "kp_units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err;
	FILE *fp;
	struct kp_csv *c;
	size_t i;
	double v;

	if (size == 0 || (fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	if ((c = kp_csv_open(fp, "fuzz.csv")) != NULL) {
		while (kp_csv_next(c, &err) == 1) {
			for (i = 0; i < kp_csv_nfields(c); i++) {
				const struct kp_field *f = kp_csv_field(c, i);
				struct kp_unit u;
				long d[3];

				kp_parse_number(f->s, f->len, &v);
				kp_parse_dim3(f->s, d);
				if (f->len < 40)
					kp_unit_parse(f->s, &u);
			}
		}
		kp_csv_close(c);
	}
	fclose(fp);
	return 0;
}
