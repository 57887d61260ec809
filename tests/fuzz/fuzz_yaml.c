/* libFuzzer target: YAML loading and the YAML <-> JSON conversions. */
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_diag.h"
#include "kp_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err;
	struct fy_document *d, *back;
	json_t *j;

	if (size == 0)
		return 0;
	d = kp_yaml_load_string((const char *)data, size, "fuzz.yaml", &err);
	if (d == NULL)
		return 0;
	j = kp_yaml_to_json(fy_document_root(d));
	(void)kp_yaml_line(kp_yaml_node(d, "/kernel/name"));
	back = kp_json_to_yaml(j, &err);
	fy_document_destroy(back);
	json_decref(j);
	fy_document_destroy(d);
	return 0;
}
