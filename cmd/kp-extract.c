/*
 * kp-extract: ncu's raw or details CSV pages -> metrics_summary.json,
 * metrics_extracted.jsonl and one JSONL record per kernel on stdout.
 */
#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_jsonl.h"
#include "kp_metrics.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-extract [--all-metrics] [-o dir | --output-dir dir] [file ...]\n"
    "       kp-extract [--all-metrics] --input file --output-dir dir\n";

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NN_<stage>_raw.csv, but not the discovery run (every kernel, 00_). */
static int
stage_file(const char *n)
{
	size_t len = strlen(n);

	return len > 11 && isdigit((unsigned char)n[0]) && isdigit((unsigned char)n[1]) &&
	    n[2] == '_' && strcmp(n + len - 8, "_raw.csv") == 0 && strncmp(n, "00_", 3) != 0;
}

/* The input files of a profile folder (malloc'd array of malloc'd paths). */
static char **
profile_inputs(const char *details, size_t *np)
{
	struct kp_err err;
	char **v = NULL, *p;
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	if ((p = kp_path_join(details, kp_artifact_name(KP_ART_METRICS_RAW))) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (kp_is_file(p)) {
		if ((v = malloc(sizeof(*v))) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		v[0] = p;
		*np = 1;
		return v;
	}
	free(p);
	if ((d = opendir(details)) == NULL)
		kp_die(KP_EXIT_DATA, "%s:", details);
	while ((e = readdir(d)) != NULL) {
		const char *page;

		if (!stage_file(e->d_name))
			continue;
		if ((p = kp_path_join(details, e->d_name)) == NULL ||
		    (v = realloc(v, (n + 1) * sizeof(*v))) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		/* 07_source_raw.csv is the source page: kp-hotspots reads it */
		if ((page = kp_metrics_page(p, &err)) != NULL && strcmp(page, "source") == 0) {
			free(p);
			continue;
		}
		v[n++] = p;
	}
	closedir(d);
	if (n == 0)
		kp_die(KP_EXIT_DATA, "%s: no %s and no NN_<stage>_raw.csv", details,
		    kp_artifact_name(KP_ART_METRICS_RAW));
	qsort(v, n, sizeof(*v), cmpstr);
	*np = n;
	return v;
}

/* Does stdin hold a JSONL record ('{') rather than CSV?  Leaves the byte unread. */
static int
stdin_is_record(void)
{
	int ch;

	while ((ch = getchar()) != EOF && isspace(ch))
		;
	if (ch == EOF)
		return 0;
	ungetc(ch, stdin);
	return ch == '{';
}

/* Once per unit: values in a unit kp does not know are kept unscaled. */
/*
 * A kernel of the summary written: its unknown units to stderr (each once),
 * its record to stdout.
 */
struct kernels_out {
	json_t *seen;		/* units warned about */
	const char *profile_dir;
};

static int
put_kernel(json_t *k, int primary, void *arg, struct kp_err *err)
{
	struct kernels_out *o = arg;
	json_t *u, *rec;
	size_t j;

	json_array_foreach(json_object_get(k, "unknown_units"), j, u) {
		const char *s = json_string_value(u);

		if (s == NULL || json_object_get(o->seen, s) != NULL)
			continue;
		json_object_set_new(o->seen, s, json_true());
		kp_warn("unknown unit \"%s\": values kept unscaled", s);
	}
	rec = json_pack("{s:s, s:O, s:O, s:O, s:O, s:b}", "kind", "kernel",
	    "name", json_object_get(k, "name"), "function",
	    json_object_get(k, "function"), "launches", json_object_get(k, "launches"),
	    "summary", json_object_get(k, "summary"), "primary", primary);
	return kp_jsonl_put(stdout, rec, o->profile_dir, err);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "all-metrics", no_argument, NULL, 'a' },
		{ "output-dir", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct kp_err err;
	const char *outdir = NULL;
	char *profile_dir = NULL, *details = NULL, **inputs = NULL;
	const char *stdin_name[] = { "-" };
	const char **paths;
	size_t npaths, ninputs = 0, i;
	int ch, all = 0;
	struct kernels_out ko;

	kp_init(argv[0], synopsis);
	while ((ch = kp_getopt(argc, argv, "ho:", longopts)) != -1) {
		switch (ch) {
		case 'a':
			all = 1;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'i':
			if ((inputs = realloc(inputs, (ninputs + 1) * sizeof(*inputs))) == NULL)
				kp_die(KP_EXIT_ENV, "out of memory");
			inputs[ninputs++] = optarg;
			break;
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	argc -= optind;
	argv += optind;
	if (ninputs > 0 && argc > 0)
		kp_usage(KP_EXIT_USAGE);
	if (ninputs > 0 && outdir == NULL) {
		kp_warn("--input needs --output-dir");
		kp_usage(KP_EXIT_USAGE);
	}

	if (ninputs > 0) {
		paths = (const char **)inputs;
		npaths = ninputs;
	} else if (argc > 0) {
		paths = (const char **)argv;
		npaths = (size_t)argc;
	} else if (stdin_is_record()) {
		if ((profile_dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		if ((details = kp_path_join(profile_dir, "details")) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		if (!kp_is_dir(details))
			kp_die(KP_EXIT_DATA, "%s: not a profile folder (no details/)", profile_dir);
		paths = (const char **)profile_inputs(details, &npaths);
		if (outdir == NULL)
			outdir = details;
	} else {
		paths = stdin_name;
		npaths = 1;
	}
	if (outdir == NULL)
		outdir = ".";

	ko.seen = json_object();
	ko.profile_dir = profile_dir;
	if (ko.seen == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (kp_extract_to_dir(paths, npaths, outdir, profile_dir, all, put_kernel, &ko, &err) < 0)
		kp_die_err(&err);
	json_decref(ko.seen);
	if (profile_dir != NULL) {
		for (i = 0; i < npaths; i++)
			free((char *)paths[i]);
		free(paths);
	}
	free(profile_dir);
	free(details);
	free(inputs);
	kp_exit(KP_EXIT_OK);
}
