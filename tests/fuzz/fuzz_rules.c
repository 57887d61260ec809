/* libFuzzer target: the bottleneck rules loader (references/rules/*.yaml). */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_rules.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err;
	struct kp_rules *r;

	static json_t *kernel;
	char why[256];
	json_t *d;

	if (kernel == NULL) {
		/* one kernel of the captured hgemm_v0 summary: the rules are evaluated too */
		kernel = json_loads("{\"name\":\"k\",\"function\":\"k\",\"launches\":6,"
		    "\"summary\":{\"duration_ns\":1915520,\"sm_throughput_pct\":80.65,"
		    "\"memory_throughput_pct\":89.26,\"l1tex_throughput_pct\":89.65,"
		    "\"dram_throughput_pct\":0.19,\"achieved_occupancy_pct\":97.5,"
		    "\"tensor_pipe_pct\":0.01,\"shared_bank_conflicts\":972046,"
		    "\"stalls\":{\"barrier\":3.61,\"mio_throttle\":3.19}}}", 0, NULL);
		if (kernel == NULL)
			abort();
	}
	r = kp_rules_load(fuzz_file(data, size, ".yaml"), &err);
	if (r == NULL)
		return 0;
	if ((d = kp_rules_decide(r, kernel, NULL, &err)) != NULL)
		json_decref(d);
	(void)kp_rules_followup(r, kernel, why, sizeof(why));
	kp_rules_free(r);
	return 0;
}
