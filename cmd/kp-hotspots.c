/*
 * kp-hotspots: rank the source lines, SASS instructions and PTX lines where a
 * kernel spends its time, from ncu's source page.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_hotspots.h"
#include "kp_jsonl.h"
#include "kp_source.h"
#include "profile.h"
#include "source_evidence.h"

#define SOURCE_PAGE kp_stage_rel(KP_STAGE_SOURCE)
#define HOTSPOTS_CSV kp_artifact_rel(KP_ART_HOTSPOTS)

static const char synopsis[] =
    "usage: kp-hotspots [--metric name] [--top n] [-o file] [file]\n"
    "       kp-hotspots --input file --output file\n";

/* ev: where the page's evidence goes when it is read from a file (*have_ev 1). */
static struct kp_hotspots *
read_page(const char *path, const struct kp_hs_opts *o, json_t **ev, int *have_ev,
    struct kp_err *err)
{
	struct kp_hotspots *h;
	FILE *fp;

	if (strcmp(path, "-") == 0)
		return kp_hotspots_read(stdin, "<stdin>", o, err);
	if (kp_is_dir(path)) {
		kp_errf(err, KP_EXIT_DATA, "%s: is a directory", path);
		return NULL;
	}
	if ((fp = fopen(path, "rb")) == NULL) {
		kp_errf(err, KP_EXIT_DATA, "%s: %s", path, strerror(errno));
		return NULL;
	}
	h = kp_hotspots_read_ev(fp, path, o, ev, err);
	fclose(fp);
	*have_ev = ev != NULL && h != NULL;
	return h;
}

/* After an unknown --metric: list the page's numeric columns on stderr. */
static void
list_metrics(const char *path)
{
	struct kp_src *s;
	struct kp_err err;
	FILE *fp = strcmp(path, "-") == 0 ? NULL : fopen(path, "rb");
	size_t i;

	if (fp == NULL)
		return;
	if ((s = kp_src_open(fp, path, &err)) != NULL) {
		fprintf(stderr, "%s: metrics of this page:\n", kp_progname());
		for (i = 0; i < kp_src_nmetrics(s); i++)
			if (kp_src_metric_numeric(s, i))
				fprintf(stderr, "\t%s\n", kp_src_metric(s, i));
		kp_src_close(s);
	}
	fclose(fp);
}

/*
 * The page read, or what stands for it: an unknown metric lists the page's
 * columns and exits 2; a page without a table (no lineinfo) says so on one line
 * and gives the unavailable row, *status KP_EXIT_NOSOURCE; anything else exits.
 */
static struct kp_hotspots *
load(const char *path, const struct kp_hs_opts *o, int *status, json_t **ev, int *have_ev)
{
	struct kp_hotspots *h;
	struct kp_err err;

	if ((h = read_page(path, o, ev, have_ev, &err)) != NULL)
		return h;
	if (err.status == KP_EXIT_USAGE) {
		kp_warn("%s", err.msg);
		list_metrics(path);
		exit(KP_EXIT_USAGE);
	}
	if (err.status != KP_EXIT_NOSOURCE)
		kp_die_err(&err);
	kp_warn("%s", err.msg);
	if ((h = kp_hotspots_unavailable(o->metric, err.msg)) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	*status = KP_EXIT_NOSOURCE;
	return h;
}

/*
 * The page summed up for kp-decide, beside the CSV; a page that has no table
 * leaves none (and removes an old one, so that no stale evidence is read).
 * have_ev: ev is the page's, summed while it was ranked; else it is read here.
 */
static void
write_evidence(const char *pagepath, const char *csvpath, json_t *ev, int have_ev)
{
	struct kp_err err;
	char *out = kp_artifact_beside(csvpath, KP_ART_SOURCE_EVIDENCE);
	json_t *mine = NULL;
	FILE *fp;

	if (out == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (!have_ev && pagepath != NULL && (fp = fopen(pagepath, "r")) != NULL) {
		ev = mine = kp_source_evidence_read(fp, pagepath, &err);
		fclose(fp);
	}
	if (ev != NULL) {
		if (kp_write_json_atomic(out, ev, JSON_INDENT(2) | JSON_SORT_KEYS |
		    JSON_REAL_PRECISION(10), &err) == -1)
			kp_die_err(&err);
	} else
		unlink(out);
	json_decref(mine);
	free(out);
}

/*
 * kp_jsonl_write's bytes (the same flags, then '\n') from one buffer:
 * json_dumpf gives stdio a call per token, a third of a run on a small page.
 */
static int
put_record(json_t *j, struct kp_err *err)
{
	const size_t flags = JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10);
	char stack[4096], *buf = stack;
	size_t n = json_dumpb(j, stack, sizeof(stack) - 1, flags);
	int rc = 0;

	if (n == 0)
		return kp_jsonl_write(stdout, j, err);
	if (n > sizeof(stack) - 1) {
		if ((buf = malloc(n + 1)) == NULL)
			return kp_jsonl_write(stdout, j, err);
		json_dumpb(j, buf, n, flags);
	}
	buf[n] = '\n';
	if (fwrite(buf, 1, n + 1, stdout) != n + 1)
		rc = kp_errf(err, KP_EXIT_ENV, "write error: %s", strerror(errno ? errno : EIO));
	if (buf != stack)
		free(buf);
	return rc;
}

static void
write_csv(const char *path, int how, const struct kp_hotspots *h)
{
	struct kp_atomic a;
	struct kp_err err;

	if (kp_out_open(&a, path, how, &err) < 0)
		kp_die_err(&err);
	if (kp_hotspots_write_csv(a.fp, h, &err) < 0) {
		kp_atomic_abort(&a);
		kp_errf(&err, KP_EXIT_ENV, "%s: write error", path);
		kp_die_err(&err);
	}
	if (kp_atomic_commit(&a, &err) < 0)
		kp_die_err(&err);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct kp_hs_opts o = { NULL, 20, 3 };
	struct kp_hotspots *h;
	struct kp_err err;
	json_t *ev = NULL;
	int have_ev = 0;
	const char *input = NULL, *output = NULL;
	char *dir = NULL, *page = NULL, *csv = NULL;
	long long n;
	size_t i;
	int ch, status = KP_EXIT_OK;

	kp_init(argv[0], synopsis);
	while ((ch = kp_getopt(argc, argv, "ho:", longopts)) != -1) {
		switch (ch) {
		case 'm':
			o.metric = optarg;
			break;
		case 'n':
			if (kp_strtonum(optarg, 1, 1000000, &n, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--top: %s", err.msg);
			o.top = (int)n;
			break;
		case 'o':
			output = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	argc -= optind;
	argv += optind;
	if (argc > 1 || (argc == 1 && input != NULL))
		kp_usage(KP_EXIT_USAGE);
	if (argc == 1)
		input = argv[0];

	if (input != NULL) {
		h = load(input, &o, &status, output != NULL ? &ev : NULL, &have_ev);
		csv = output ? strdup(output) : NULL;
	} else {
		if (isatty(STDIN_FILENO))
			kp_die(KP_EXIT_USAGE, "no input: give a source page or pipe a "
			    "profile_dir record");
		if ((dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		if (!kp_is_dir(dir))
			kp_die(KP_EXIT_DATA, "%s: no such profile folder", dir);
		page = kp_path_join(dir, SOURCE_PAGE);
		csv = output ? strdup(output) : kp_path_join(dir, HOTSPOTS_CSV);
		if (page == NULL || csv == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		if (!kp_is_file(page) && !kp_is_dir(page)) {
			char why[1024];

			snprintf(why, sizeof(why), "%s has no %s (the source stage was not "
			    "collected)", dir, SOURCE_PAGE);
			h = kp_hotspots_unavailable(o.metric, why);
		} else
			h = load(page, &o, &status, &ev, &have_ev);
		if (h == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
	}
	if (csv != NULL) {
		write_csv(csv, output != NULL ? KP_OUT_NAMED : KP_OUT_DERIVED, h);
		write_evidence(input != NULL ? input : (kp_is_file(page) ? page : NULL), csv, ev,
		    have_ev);
	}
	for (i = 0; i < h->n; i++) {
		json_t *j = kp_hotspot_json(&h->rows[i], dir);

		if (j == NULL || put_record(j, &err) < 0) {
			json_decref(j);
			break;
		}
		json_decref(j);
	}
	kp_hotspots_free(h);
	json_decref(ev);
	free(dir);
	free(page);
	free(csv);
	kp_exit(status);
}
