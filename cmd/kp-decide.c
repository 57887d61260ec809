/*
 * kp-decide: classify a profiled kernel into the bottleneck taxonomy from its
 * metrics summary, hotspots and a rules file, citing the evidence.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_hotspots.h"
#include "kp_jsonl.h"
#include "kp_rules.h"
#include "kp_summary_file.h"
#include "kp_yaml.h"
#include "ncu_rules.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-decide [--rules FILE] [--metrics FILE] [--hotspots FILE]"
    " [--target FILE]\n"
    "                 [--source-evidence FILE] [--ncu-details FILE]\n"
    "                 [--kernel NAME | --kernel-index N] [-o FILE]\n";

/*
 * What main holds while pick_kernel and the rest may end the run with
 * kp_die: here it stays reachable, so that LeakSanitizer and valgrind do not
 * count it lost when the optimizer has let main's copy go.
 */
static struct kp_rules *rules;
static struct kp_summary_file *sf;

/* The index of the kernel the user asked for, or of the summary's primary one:
 * the kernels are unbuilt (kp_summary_file.h), their names are there. */
static size_t
pick_kernel(json_t *summary, const char *metrics, const char *name, long long index,
    int quiet_name)
{
	json_t *kernels = json_object_get(summary, "kernels"), *k;
	size_t i;

	if (!json_is_array(kernels) || json_array_size(kernels) == 0)
		kp_die(KP_EXIT_DATA, "%s: no kernels in the metrics summary", metrics);
	if (index >= 0) {
		if ((size_t)index >= json_array_size(kernels))
			kp_die(KP_EXIT_NOMATCH, "%s: --kernel-index %lld: the summary has %zu "
			    "kernels", metrics, index, json_array_size(kernels));
		return (size_t)index;
	}
	if (name != NULL) {
		json_array_foreach(kernels, i, k) {
			const char *n = json_string_value(json_object_get(k, "name"));
			const char *f = json_string_value(json_object_get(k, "function"));

			if ((n != NULL && strcmp(n, name) == 0) ||
			    (f != NULL && strcmp(f, name) == 0))
				return i;
		}
		if (!quiet_name)
			kp_die(KP_EXIT_NOMATCH, "%s: no kernel named \"%s\"", metrics, name);
	}
	/* "primary": the index of the kernel with the largest total duration. */
	k = json_object_get(summary, "primary");
	if (json_is_integer(k) && json_integer_value(k) >= 0 &&
	    (size_t)json_integer_value(k) < json_array_size(kernels))
		return (size_t)json_integer_value(k);
	return 0;
}

/* A kernel name from the target file (kernel.name), or NULL. */
static char *
target_kernel(const char *path)
{
	struct kp_err err;
	struct fy_document *d;
	char *s;

	if ((d = kp_yaml_load(path, &err)) == NULL)
		kp_die_err(&err);
	s = kp_yaml_str(d, "/kernel/name");
	fy_document_destroy(d);
	return s;
}

static void
emit(json_t *decision, const char *profile_dir)
{
	struct kp_err err;
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(decision, "findings"), i, f)
		if (kp_jsonl_put(stdout, json_pack("{s:s, s:O, s:O, s:O, s:b}", "kind",
		    "finding", "class", json_object_get(f, "class"), "severity",
		    json_object_get(f, "severity"), "score", json_object_get(f, "score"),
		    "primary", i == 0), profile_dir, &err) < 0)
			kp_die_err(&err);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "hotspots", required_argument, NULL, 'H' },
		{ "source-evidence", required_argument, NULL, 'S' },
		{ "ncu-details", required_argument, NULL, 'N' },
		{ "target", required_argument, NULL, 't' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "kernel-index", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	const char *rulesf = NULL, *metrics = NULL, *hotf = NULL, *target = NULL;
	const char *kname = NULL, *output = NULL, *srcf = NULL, *ncuf = NULL;
	char *p_src = NULL;
	json_t *src = NULL, *ncu = NULL;
	char *profile_dir = NULL, *tname = NULL, *p_metrics = NULL, *p_hot = NULL;
	char *p_target = NULL, *p_out = NULL, *p_ncu = NULL;
	long long kindex = -1;
	struct kp_err err;
	json_t *summary, *kernel, *hotspots = NULL, *decision;
	int c, how;

	kp_init(argv[0], synopsis);
	while ((c = kp_getopt(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'r': rulesf = optarg; break;
		case 'm': metrics = optarg; break;
		case 'H': hotf = optarg; break;
		case 'S': srcf = optarg; break;
		case 'N': ncuf = optarg; break;
		case 't': target = optarg; break;
		case 'k': kname = optarg; break;
		case 'i':
			if (kp_strtonum(optarg, 0, 1000000, &kindex, &err) == -1)
				kp_die(KP_EXIT_USAGE, "--kernel-index: %s", err.msg);
			break;
		case 'o': output = optarg; break;
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	if (optind != argc)
		kp_usage(KP_EXIT_USAGE);
	how = output != NULL ? KP_OUT_NAMED : KP_OUT_DERIVED;	/* -o: the user's file */
	if (kname != NULL && kindex >= 0)
		kp_die(KP_EXIT_USAGE, "--kernel and --kernel-index exclude each other");

	if (metrics == NULL) {
		/* A pipeline: the profile folder from the first record on stdin. */
		if ((profile_dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		p_metrics = kp_artifact_path(profile_dir, KP_ART_SUMMARY);
		metrics = p_metrics;
		if (hotf == NULL) {
			p_hot = kp_artifact_path(profile_dir, KP_ART_HOTSPOTS);
			if (kp_is_file(p_hot))
				hotf = p_hot;
		}
		if (target == NULL) {
			p_target = kp_artifact_path(profile_dir, KP_ART_TARGET);
			if (kp_is_file(p_target))
				target = p_target;
		}
		if (ncuf == NULL) {	/* ncu's own rules, when the folder has its details page */
			p_ncu = kp_artifact_path(profile_dir, KP_ART_NCU_DETAILS);
			if (kp_is_file(p_ncu))
				ncuf = p_ncu;
		}
		if (output == NULL) {
			p_out = kp_artifact_path(profile_dir, KP_ART_DECISION);
			output = p_out;
		}
	}
	if (output == NULL)
		output = kp_artifact_name(KP_ART_DECISION);

	rules = rulesf != NULL ? kp_rules_load(rulesf, &err) : kp_rules_load_default(&err);
	if (rules == NULL)
		kp_die_err(&err);
	if (kp_is_dir(metrics))
		kp_die(KP_EXIT_DATA, "%s: is a directory", metrics);
	if ((sf = kp_summary_open(metrics, &err)) == NULL)
		kp_die_err(&err);
	summary = sf->summary;
	if (!json_is_object(summary) || !json_is_array(json_object_get(summary, "kernels")))
		kp_die(KP_EXIT_DATA, "%s: not a metrics summary (no \"kernels\" list)", metrics);
	if (target != NULL && kname == NULL && kindex < 0)
		kname = tname = target_kernel(target);
	if ((kernel = kp_summary_kernel(sf, pick_kernel(summary, metrics, kname, kindex,
	    tname != NULL), &err)) == NULL)
		kp_die_err(&err);
	if (hotf != NULL && (hotspots = kp_hs_csv_load(hotf, 1, &err)) == NULL)
		kp_die_err(&err);
	if (srcf == NULL && hotf != NULL) {	/* kp-hotspots writes it beside its CSV */
		p_src = kp_artifact_beside(hotf, KP_ART_SOURCE_EVIDENCE);
		if (p_src != NULL && kp_is_file(p_src))
			srcf = p_src;
	}
	if (srcf != NULL && (src = kp_json_load_file(srcf, &err)) == NULL)
		kp_die_err(&err);
	if (ncuf != NULL && (ncu = kp_ncu_rules_read(ncuf, &err)) == NULL)
		kp_die_err(&err);
	kp_rules_set_evidence(rules, src, ncu);
	if ((decision = kp_rules_decide_summary(rules, summary, metrics, kernel, hotspots,
	    &err)) == NULL)
		kp_die_err(&err);
	if (kp_out_json(output, decision, JSON_INDENT(2) | JSON_SORT_KEYS |
	    JSON_REAL_PRECISION(10), how, &err) == -1)
		kp_die_err(&err);
	emit(decision, profile_dir);

	json_decref(decision);
	json_decref(hotspots);
	json_decref(src);
	json_decref(ncu);
	free(p_src);
	kp_summary_close(sf);
	kp_rules_free(rules);
	free(tname);
	free(profile_dir);
	free(p_metrics);
	free(p_hot);
	free(p_target);
	free(p_out);
	free(p_ncu);
	kp_exit(KP_EXIT_OK);
}
