/*
 * profile.c: the layout of a profile folder.  Every artifact's file name and
 * place (profile-target.yaml, details/metrics_summary.json, ...) and the stage
 * table (id, file, the ncu selection that lib/ncu.c turns into argv) live here
 * and nowhere else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "profile.h"

static const struct artifact {
	const char *name;	/* the file's name */
	const char *rel;	/* its path in the profile folder */
} artifacts[KP_NARTIFACTS] = {
#define ART(dir, name) { name, dir name }
	[KP_ART_TARGET] = ART("", "profile-target.yaml"),
	[KP_ART_MANIFEST] = ART("", "run_manifest.yaml"),
	[KP_ART_COMMANDS] = ART("", "commands.sh"),
	[KP_ART_REPORT] = ART("", "final_report.md"),
	[KP_ART_ENVIRONMENT] = ART(KP_DETAILS "/", "00_environment.txt"),
	[KP_ART_RAW_BASIC] = ART(KP_DETAILS "/", "01_basic_raw.csv"),
	[KP_ART_RAW_SOL] = ART(KP_DETAILS "/", "02_speed_of_light_raw.csv"),
	[KP_ART_RAW_MEMORY] = ART(KP_DETAILS "/", "03_memory_raw.csv"),
	[KP_ART_RAW_COMPUTE] = ART(KP_DETAILS "/", "04_compute_raw.csv"),
	[KP_ART_RAW_OCCUPANCY] = ART(KP_DETAILS "/", "05_occupancy_launch_raw.csv"),
	[KP_ART_RAW_ROOFLINE] = ART(KP_DETAILS "/", "06_roofline_raw.csv"),
	[KP_ART_RAW_SOURCE] = ART(KP_DETAILS "/", "07_source_raw.csv"),
	[KP_ART_RAW_FULL] = ART(KP_DETAILS "/", "08_full_raw.csv"),
	[KP_ART_DISCOVERY_RAW] = ART(KP_DETAILS "/", "00_discovery_raw.csv"),
	[KP_ART_CANDIDATES] = ART(KP_DETAILS "/", "kernel_candidates.json"),
	[KP_ART_METRICS_RAW] = ART(KP_DETAILS "/", "metrics_raw.csv"),
	[KP_ART_SUMMARY] = ART(KP_DETAILS "/", "metrics_summary.json"),
	[KP_ART_METRICS_ALL] = ART(KP_DETAILS "/", "metrics_all.json"),
	[KP_ART_EXTRACTED] = ART(KP_DETAILS "/", "metrics_extracted.jsonl"),
	[KP_ART_HOTSPOTS] = ART(KP_DETAILS "/", "source_hotspots.csv"),
	[KP_ART_SOURCE_EVIDENCE] = ART(KP_DETAILS "/", "source_evidence.json"),
	[KP_ART_NCU_DETAILS] = ART(KP_DETAILS "/", "ncu_details.csv"),
	[KP_ART_DECISION] = ART(KP_DETAILS "/", "bottleneck_decision.json"),
	[KP_ART_COMPARISON] = ART("comparison/", "comparison.json"),
	[KP_ART_REGRESSION] = ART("comparison/", "regression_report.md"),
	[KP_ART_KERNELS_CMP] = ART("comparison/", "kernels_comparison.json"),
	[KP_ART_KERNELS_REPORT] = ART("comparison/", "kernels_report.md"),
	[KP_ART_TREND] = ART("comparison/", "trend.md"),
	[KP_ART_PLOT_SCRIPT] = ART("visual/", "profile_summary.gp"),
	[KP_ART_ROOFLINE_DAT] = ART("visual/", "roofline.dat"),
	[KP_ART_IMPORT_SESSION] = ART(KP_DETAILS "/", "import_session.csv"),
	[KP_ART_IMPORT_SUMMARY] = ART(KP_DETAILS "/", "import_summary.csv"),
#undef ART
};

const char *
kp_artifact_name(enum kp_artifact a)
{
	return a < KP_NARTIFACTS ? artifacts[a].name : "?";
}

const char *
kp_artifact_rel(enum kp_artifact a)
{
	return a < KP_NARTIFACTS ? artifacts[a].rel : "?";
}

char *
kp_artifact_path(const char *profile_dir, enum kp_artifact a)
{
	return kp_path_join(profile_dir, kp_artifact_rel(a));
}

char *
kp_artifact_beside(const char *file, enum kp_artifact a)
{
	char *dir = kp_path_dir(file), *p;

	if (dir == NULL)
		return NULL;
	p = kp_path_join(dir, kp_artifact_name(a));
	free(dir);
	return p;
}

char *
kp_path_dir(const char *path)
{
	const char *s = strrchr(path, '/');

	if (s == NULL)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

/* ---- the ranks ---- */

#define RANK_DIR "rank"		/* details/rank1/ */

char *
kp_rank_dir(const char *details, long rank)
{
	char name[32];

	snprintf(name, sizeof(name), RANK_DIR "%ld", rank);
	return kp_path_join(details, name);
}

/* s with every '%' doubled, appended at o; returns the end. */
static char *
put_escaped(char *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%')
			*o++ = '%';
		*o++ = s[i];
	}
	return o;
}

char *
kp_rank_pattern(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dn = slash != NULL ? (size_t)(slash - path) : 0;
	const char *base = slash != NULL ? slash + 1 : path;
	char *out = malloc(2 * strlen(path) + sizeof(RANK_DIR) + 8), *o;

	if (out == NULL)
		return NULL;
	o = out;
	if (slash != NULL) {
		o = put_escaped(o, path, dn);
		*o++ = '/';
	}
	memcpy(o, RANK_DIR "%r/", sizeof(RANK_DIR) + 2);
	o += sizeof(RANK_DIR) + 2;
	o = put_escaped(o, base, strlen(base));
	*o = '\0';
	return out;
}

char *
kp_rank_expand(const char *pattern, long rank, struct kp_err *err)
{
	char num[32], *out, *o;
	const char *p;
	size_t nl;

	nl = (size_t)snprintf(num, sizeof(num), "%ld", rank);
	if ((out = malloc(strlen(pattern) * (nl + 1) + 1)) == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	for (o = out, p = pattern; *p != '\0'; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		if (p[1] == '%') {
			*o++ = '%';
			p++;
		} else if (p[1] == 'r') {
			memcpy(o, num, nl);
			o += nl;
			p++;
		} else {
			free(out);
			kp_errf(err, KP_EXIT_USAGE, "\"%.80s\": '%%' must be followed by r (the rank) "
			    "or %% (a '%%')", pattern);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

/* ---- the stages ---- */

static const char *const sel_basic[] = { "--set", "basic", NULL };
static const char *const sel_sol[] = { "--section", "SpeedOfLight", NULL };
static const char *const sel_memory[] = { "--section", "MemoryWorkloadAnalysis",
	"--section", "MemoryWorkloadAnalysis_Chart",
	"--section", "MemoryWorkloadAnalysis_Tables", NULL };
static const char *const sel_compute[] = { "--section", "ComputeWorkloadAnalysis",
	"--section", "InstructionStats", NULL };
static const char *const sel_occupancy[] = { "--section", "Occupancy",
	"--section", "LaunchStats", "--section", "SchedulerStats",
	"--section", "WarpStateStats", NULL };
static const char *const sel_roofline[] = { "--section", "SpeedOfLight",
	"--section", "SpeedOfLight_RooflineChart", NULL };
static const char *const sel_source[] = { "--section", "SourceCounters", NULL };
static const char *const sel_full[] = { "--set", "full", NULL };

/* The stages in their order; stage s writes the artifact KP_ART_RAW_BASIC + s. */
static const struct stage {
	const char *id;
	const char *const *sel;
} stages[KP_NSTAGES] = {
	{ "basic", sel_basic }, { "speed-of-light", sel_sol }, { "memory", sel_memory },
	{ "compute", sel_compute }, { "occupancy", sel_occupancy },
	{ "roofline", sel_roofline }, { "source", sel_source }, { "full", sel_full },
};

const char *
kp_stage_id(enum kp_stage s)
{
	return s < KP_NSTAGES ? stages[s].id : "?";
}

enum kp_artifact
kp_stage_artifact(enum kp_stage s)
{
	return s < KP_NSTAGES ? (enum kp_artifact)(KP_ART_RAW_BASIC + s) : KP_NARTIFACTS;
}

const char *
kp_stage_file(enum kp_stage s)
{
	return kp_artifact_name(kp_stage_artifact(s));
}

const char *
kp_stage_rel(enum kp_stage s)
{
	return kp_artifact_rel(kp_stage_artifact(s));
}

const char *const *
kp_stage_selection(enum kp_stage s)
{
	static const char *const none[] = { NULL };

	return s < KP_NSTAGES ? stages[s].sel : none;
}

int
kp_stage_parse(const char *id, enum kp_stage *out)
{
	int i;

	for (i = 0; i < KP_NSTAGES; i++)
		if (strcmp(id, stages[i].id) == 0) {
			*out = (enum kp_stage)i;
			return 0;
		}
	/* The old names of the workflow. */
	if (strcmp(id, "sol") == 0 || strcmp(id, "speed_of_light") == 0)
		return *out = KP_STAGE_SOL, 0;
	if (strcmp(id, "occupancy_launch") == 0 || strcmp(id, "launch") == 0)
		return *out = KP_STAGE_OCCUPANCY, 0;
	return -1;
}

int
kp_stages_parse(const char *spec, unsigned *mask, int *autop, struct kp_err *err)
{
	char *copy, *tok, *save = NULL;
	enum kp_stage s;

	*mask = 0;
	*autop = 0;
	if (strcmp(spec, "auto") == 0) {
		*mask = 1u << KP_STAGE_BASIC;
		*autop = 1;
		return 0;
	}
	if (strcmp(spec, "all") == 0) {
		*mask = (1u << KP_NSTAGES) - 1;
		return 0;
	}
	if ((copy = strdup(spec)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "auto") == 0) {
			*autop = 1;
			*mask |= 1u << KP_STAGE_BASIC;
		} else if (strcmp(tok, "all") == 0) {
			*mask = (1u << KP_NSTAGES) - 1;
		} else if (kp_stage_parse(tok, &s) == 0) {
			*mask |= 1u << s;
		} else {
			kp_errf(err, KP_EXIT_USAGE, "--stages: unknown stage \"%s\" "
			    "(auto, all, basic, speed-of-light, memory, compute, occupancy, "
			    "roofline, source, full)", tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (*mask == 0)
		return kp_errf(err, KP_EXIT_USAGE, "--stages: no stage given");
	return 0;
}
