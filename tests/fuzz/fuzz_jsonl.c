/* libFuzzer target: the JSONL record reader. */
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err;
	struct kp_jsonl *r;
	FILE *fp;
	json_t *j;

	if (size == 0 || (fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	if ((r = kp_jsonl_open(fp, "fuzz.jsonl")) != NULL) {
		int rc, n = 0;
		/* at most 1000 records; the count first, so no record read is left unfreed */
		while (n++ < 1000 && (rc = kp_jsonl_next(r, &j, &err)) != 0) {
			if (rc == 1) {
				(void)kp_record_profile_dir(j);
				json_decref(j);
			}
		}
		kp_jsonl_close(r);
	}
	fclose(fp);
	return 0;
}
