/* libFuzzer target: the profile-target.yaml loader (parse, validate, defaults). */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_shellwords.h"
#include "kp_target.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err;
	json_t *t;

	t = kp_target_load(fuzz_file(data, size, ".yaml"), &err);
	if (t == NULL)
		return 0;
	/* a loaded target validates again, and its argv joins and splits back */
	if (kp_target_validate(t, &err) != 0)
		abort();
	/* every target.env name that loads is a variable name (commands.sh, env) */
	{
		const char *key;
		json_t *v;

		json_object_foreach(json_object_get(json_object_get(t, "target"), "env"), key, v)
			if (!kp_env_name_valid(key, strlen(key)) || !json_is_string(v))
				abort();
	}
	/* the args round-trip through the shell quoting that commands.sh uses */
	json_t *argv = json_object_get(json_object_get(t, "target"), "args");
	if (json_is_array(argv)) {
		char *line = kp_shell_join(argv);
		if (line != NULL) {
			json_t *back = kp_shell_split(line, &err);
			if (back == NULL || !json_equal(back, argv))
				abort();
			json_decref(back);
			free(line);
		}
	}
	const char *name = json_string_value(json_object_get(json_object_get(t, "kernel"), "name"));
	if (name != NULL)
		free(kp_regex_escape(name));
	json_decref(t);
	return 0;
}
