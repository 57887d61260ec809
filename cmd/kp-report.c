/*
 * kp-report: write the evidence-first final_report.md of a profile folder.
 */
#include <getopt.h>
#include <stdlib.h>

#include "kp.h"

static const char synopsis[] = "usage: kp-report [dir]\n";

static _Noreturn void
usage(int status)
{
	fputs(synopsis, status == 0 ? stdout : stderr);
	exit(status);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct kp_err err;
	char *dir = NULL, *path;
	json_t *rec;
	int c;

	kp_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(KP_EXIT_OK);
		case 'V':
			kp_print_version();
			return kp_close_stdout() < 0 ? KP_EXIT_ENV : KP_EXIT_OK;
		default:
			usage(KP_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage(KP_EXIT_USAGE);
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
	return kp_close_stdout() < 0 ? KP_EXIT_ENV : KP_EXIT_OK;
}
