/*
 * kp-report: write the evidence-first final_report.md of a profile folder.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_jsonl.h"
#include "kp_report.h"

static const char synopsis[] = "usage: kp-report [dir]\n";

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 },
	};
	struct kp_err err;
	char *dir = NULL, *path;
	json_t *rec;
	int c;

	kp_init(argv[0], synopsis);
	while ((c = kp_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	argc -= optind;
	argv += optind;
	if (argc > 1)
		kp_usage(KP_EXIT_USAGE);
	if (argc == 1)
		dir = argv[0];
	else if ((dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
		kp_die_err(&err);
	if ((path = kp_report_write(dir, &err)) == NULL)
		kp_die_err(&err);
	rec = json_pack("{s:s, s:s, s:s}", "kind", "report", "profile_dir", dir, "path", path);
	if (rec == NULL || kp_jsonl_write(stdout, rec, &err) < 0)
		kp_die(KP_EXIT_ENV, "write error on standard output");
	json_decref(rec);
	free(path);
	if (argc == 0)
		free(dir);
	kp_exit(KP_EXIT_OK);
}
