/* specs.c: GPU limits and peak rates from gpu_specs.yaml (schema kp-gpu-specs/1). */
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_specs.h"
#include "kp_yaml.h"

json_t *
kp_specs_load(const char *path, struct kp_err *err)
{
	char *def = NULL;
	struct fy_document *d;
	json_t *j, *gpus, *g;
	size_t i;

	if (path == NULL) {
		if ((def = kp_datafile("nvidia/architectures/gpu_specs.yaml", err)) == NULL)
			return NULL;
		path = def;
	}
	d = kp_yaml_load(path, err);
	if (d == NULL) {
		free(def);
		return NULL;
	}
	j = kp_yaml_to_json(fy_document_root(d));
	fy_document_destroy(d);
	gpus = json_object_get(j, "gpus");
	if (!json_is_array(gpus)) {
		kp_errf(err, KP_EXIT_DATA, "%s: no \"gpus\" list", path);
		json_decref(j);
		free(def);
		return NULL;
	}
	json_array_foreach(gpus, i, g) {
		if (!json_is_string(json_object_get(g, "name"))) {
			kp_errf(err, KP_EXIT_DATA, "%s: gpus[%zu] has no name", path, i);
			json_decref(j);
			free(def);
			return NULL;
		}
	}
	free(def);
	return j;
}

json_t *
kp_specs_find(json_t *specs, const char *device_name)
{
	json_t *gpus = json_object_get(specs, "gpus"), *g, *m, *best = NULL;
	size_t i, k, bestlen = 0;

	if (device_name == NULL || !json_is_array(gpus))
		return NULL;
	json_array_foreach(gpus, i, g) {
		const char *name = json_string_value(json_object_get(g, "name"));

		if (name != NULL && strcmp(name, device_name) == 0)
			return g;
		/* The longest matching substring wins ("H100 PCIe" over "H100"). */
		json_array_foreach(json_object_get(g, "match"), k, m) {
			const char *s = json_string_value(m);
			if (s != NULL && strstr(device_name, s) != NULL && strlen(s) > bestlen) {
				best = g;
				bestlen = strlen(s);
			}
		}
	}
	return best;
}
