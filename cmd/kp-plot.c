/*
 * kp-plot: draw a profile folder's summary picture with gnuplot.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_jsonl.h"
#include "kp_plot.h"
#include "kp_specs.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-plot [-n] [--format png|svg] [-o file] [dir]\n"
    "       kp-plot [-n] [--format png|svg] report details image\n";

static char tmp_image[PATH_MAX];	/* registered: unlinked on a signal (kp_init) */

static const char *
suffix(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	return dot != NULL && (slash == NULL || dot > slash) ? dot + 1 : "";
}

/* dirname() without touching its argument; malloc'd. */
static char *
dir_of(const char *path)
{
	char *c = strdup(path), *d;

	if (c == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	d = strdup(dirname(c));
	free(c);
	if (d == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	return d;
}

static char *
absolute(const char *path)
{
	char cwd[PATH_MAX], *p;

	if (path[0] == '/')
		p = strdup(path);
	else if (getcwd(cwd, sizeof cwd) == NULL)
		kp_die(KP_EXIT_ENV, "getcwd:");
	else
		p = kp_path_join(cwd, path);
	if (p == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	return p;
}

/* The drawn temporary file copied into image, a device or FIFO, through libkp's
 * output helper (which writes those in place). */
static int
copy_into(const char *tmp, const char *image, int how, struct kp_err *err)
{
	struct kp_atomic a;
	size_t len;
	char *data = kp_read_file(tmp, &len, err);
	int rc;

	if (data == NULL)
		return -1;
	if (kp_out_open(&a, image, how, err) < 0) {
		free(data);
		return -1;
	}
	if (len > 0 && fwrite(data, 1, len, a.fp) != len) {
		kp_errf(err, KP_EXIT_ENV, "%s: write error", image);
		kp_atomic_abort(&a);
		free(data);
		return -1;
	}
	free(data);
	rc = kp_atomic_commit(&a, err);
	return rc;
}

/*
 * Draw into a temporary file, then put it at image; nothing is left on failure.
 * A regular image (or a new one, or the target of the link -o named) gets the
 * temporary beside it and a rename; a device or FIFO (-o /dev/null) gets the
 * temporary in the visual folder, copied into it in place: never renamed over.
 */
static void
draw(const char *gnuplot, const char *visdir, const char *image, int how, const char *format)
{
	struct kp_err err;
	char *real, *idir, *abs;
	const char *base;
	mode_t mask, mode;
	int fd, direct;

	if (kp_out_resolve(image, how, &real, &direct, &mode, &err) < 0)
		kp_die_err(&err);
	idir = direct ? strdup(visdir) : dir_of(real);
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (idir == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (snprintf(tmp_image, sizeof tmp_image, "%s/.%s.XXXXXX", idir,
	    direct ? "profile_summary" : base) >= (int)sizeof tmp_image)
		kp_die(KP_EXIT_USAGE, "%s: path too long", image);
	free(idir);
	if ((fd = mkstemp(tmp_image)) < 0) {
		char what[PATH_MAX + 8];

		snprintf(what, sizeof what, "%s", tmp_image);
		tmp_image[0] = '\0';
		kp_die(KP_EXIT_ENV, "%s:", what);
	}
	kp_tmp_register(tmp_image);
	mask = umask(0);
	umask(mask);
	if (access(real, F_OK) != 0)
		mode = 0666 & ~mask;
	fchmod(fd, mode);
	close(fd);
	abs = absolute(tmp_image);
	if (kp_plot_run(gnuplot, visdir, kp_artifact_name(KP_ART_PLOT_SCRIPT), abs, &err) < 0 ||
	    kp_plot_check_image(tmp_image, format, NULL, NULL, &err) < 0) {
		unlink(tmp_image);
		kp_tmp_forget(tmp_image);
		tmp_image[0] = '\0';
		free(abs);
		kp_warn("%s", err.msg);
		kp_die(err.status, "%s not written; the script is %s/%s", image, visdir,
		    kp_artifact_name(KP_ART_PLOT_SCRIPT));
	}
	free(abs);
	if (direct) {
		if (copy_into(tmp_image, image, how, &err) < 0) {
			unlink(tmp_image);
			tmp_image[0] = '\0';
			kp_die_err(&err);
		}
		unlink(tmp_image);
	} else if (rename(tmp_image, real) < 0) {
		unlink(tmp_image);
		kp_tmp_forget(tmp_image);
		tmp_image[0] = '\0';
		kp_die(KP_EXIT_ENV, "%s:", image);
	}
	kp_tmp_forget(tmp_image);
	tmp_image[0] = '\0';
	free(real);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-draw", no_argument, NULL, 'n' },
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 },
	};
	struct kp_err err;
	struct kp_plot *p;
	char *dir = NULL, *details, *visdir, *image = NULL, *script, *gnuplot;
	const char *format = NULL, *out = NULL;
	json_t *specs, *rec;
	int c, nodraw = 0, free_dir = 0;

	kp_init(argv[0], synopsis);
	while ((c = kp_getopt(argc, argv, "hno:", opts)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "png") != 0 && strcmp(optarg, "svg") != 0) {
				kp_warn("--format %s: png or svg", optarg);
				kp_usage(KP_EXIT_USAGE);
			}
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'n':
			nodraw = 1;
			break;
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	argc -= optind;
	argv += optind;
	if (argc == 2 || argc > 3 || (argc == 3 && out != NULL))
		kp_usage(KP_EXIT_USAGE);
	if (argc == 3) {
		/* the old form: final_report.md details image */
		dir = dir_of(argv[0]);
		free_dir = 1;
		if ((details = strdup(argv[1])) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		out = argv[2];
	} else {
		if (argc == 1)
			dir = argv[0];
		else if ((dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		else
			free_dir = 1;
		if ((details = kp_path_join(dir, "details")) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
	}
	if (!kp_is_dir(dir))
		kp_die(KP_EXIT_DATA, "%s: not a profile folder", dir);
	if (!kp_is_dir(details))
		kp_die(KP_EXIT_DATA, "%s: no details folder", details);
	if (format == NULL)
		format = out != NULL && strcmp(suffix(out), "svg") == 0 ? "svg" : "png";

	if ((specs = kp_specs_load(NULL, &err)) == NULL)
		kp_warn("%s: the roofline is drawn without ceilings", err.msg);
	if ((p = calloc(1, sizeof *p)) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (kp_plot_collect(p, dir, details, specs, &err) < 0)
		kp_die_err(&err);
	json_decref(specs);
	if ((visdir = kp_path_join(dir, "visual")) == NULL ||
	    (script = kp_path_join(visdir, kp_artifact_name(KP_ART_PLOT_SCRIPT))) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (kp_plot_write(p, visdir, format, &err) < 0)
		kp_die_err(&err);
	if (!nodraw) {
		char name[32];

		if ((gnuplot = kp_plot_find_gnuplot(&err)) == NULL)
			kp_die_err(&err);
		snprintf(name, sizeof name, "profile_summary.%s", format);
		if ((image = out != NULL ? strdup(out) : kp_path_join(visdir, name)) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		draw(gnuplot, visdir, image, out != NULL ? KP_OUT_NAMED : KP_OUT_DERIVED, format);
		free(gnuplot);
	}
	rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "kind", "plot", "profile_dir", dir,
	    "path", image != NULL ? image : script, "script", script, "format", format,
	    "panels", kp_plot_panels_json(p));
	if (rec == NULL || kp_jsonl_write(stdout, rec, &err) < 0)
		kp_die(KP_EXIT_ENV, "write error on standard output");
	json_decref(rec);
	free(image);
	free(script);
	free(visdir);
	free(details);
	free(p);
	if (free_dir)
		free(dir);
	kp_exit(KP_EXIT_OK);
}
