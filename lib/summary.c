/*
 * summary.c: the metrics summary as files.  kp-extract writes two:
 * metrics_summary.json, whose kernels carry in "metrics"/"units" only the ncu
 * metrics kp itself reads (kp_key_metric), and metrics_all.json with every
 * metric.  The short file is what kp-decide, kp-report and kp-compare parse on
 * every run; the long one is read only when a look-up misses in the short map
 * (a rule of the user's own naming another metric, kp-plot's roofline terms).
 * A kernel is partial when its "metrics_count" exceeds its "metrics" map.
 * A summary without "metrics_all" (an older file, or one held in memory) is
 * complete as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "kp_summary.h"
#include "kp_summary_keys.h"

/*
 * ncu metrics that kp reads besides the summary keys' sources: the derived
 * quantities of rules_eval.c and rules_derive.c and the metrics the shipped rules name
 * (references/rules/bottleneck_rules.yaml; tests/cli/decide-short-summary
 * checks that a decision never needs metrics_all.json on the captures).
 * Sorted for bsearch.
 */
static const char *const read_by_kp[] = {
	"device__attribute_multiprocessor_count",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
	"lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
	"sm__cycles_active.avg",
	"sm__cycles_elapsed.avg",
	"sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
	"sm__issue_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
	"smsp__inst_executed.sum",
	"smsp__inst_executed_op_ldgsts.sum",
	"smsp__issue_active.avg.pct_of_peak_sustained_active",
	"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
	"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
	"smsp__thread_inst_executed_per_inst_executed.ratio",
	"smsp__warps_eligible.avg.per_cycle_active",
};

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
kp_key_metric(const char *name)
{
	if (strncmp(name, "launch__", 8) == 0 || kp_metric_feeds_summary(name))
		return 1;
	return bsearch(&name, read_by_kp, sizeof read_by_kp / sizeof read_by_kp[0],
	    sizeof read_by_kp[0], cmp_name) != NULL;
}

int
kp_summary_partial(json_t *kernel)
{
	json_t *n = json_object_get(kernel, "metrics_count");

	return json_is_integer(n) &&
	    json_integer_value(n) > (json_int_t)json_object_size(json_object_get(kernel, "metrics"));
}

int
kp_summary_load_all(json_t *summary, const char *summary_path, struct kp_err *err)
{
	const char *name = json_string_value(json_object_get(summary, "metrics_all"));
	json_t *ks = json_object_get(summary, "kernels"), *all, *aks, *k;
	const char *slash;
	char *path;
	size_t i;

	if (name == NULL)
		return 0;
	if (*name == '\0' || strchr(name, '/') != NULL || strcmp(name, "..") == 0)
		return kp_errf(err, KP_EXIT_DATA, "%s: \"metrics_all\" must be a file name"
		    " in the same folder", summary_path);
	if ((slash = strrchr(summary_path, '/')) == NULL)
		path = strdup(name);
	else if ((path = malloc((size_t)(slash - summary_path) + strlen(name) + 2)) != NULL)
		sprintf(path, "%.*s/%s", (int)(slash - summary_path), summary_path, name);
	if (path == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	if (!kp_is_file(path)) {
		kp_errf(err, KP_EXIT_DATA, "%s: missing (%s holds only the metrics kp reads);"
		    " run kp-extract again", path, summary_path);
		free(path);
		return -1;
	}
	if ((all = kp_json_load_file(path, err)) == NULL) {
		free(path);
		return -1;
	}
	aks = json_object_get(all, "kernels");
	if (!json_is_array(aks) || json_array_size(aks) != json_array_size(ks)) {
		kp_errf(err, KP_EXIT_DATA, "%s: not the metrics of %s (%s kernels)", path,
		    summary_path, json_is_array(aks) ? "other" : "no");
		goto fail;
	}
	json_array_foreach(ks, i, k) {
		json_t *a = json_array_get(aks, i);
		json_t *met = json_object_get(a, "metrics"), *units = json_object_get(a, "units");

		if (!json_equal(json_object_get(a, "name"), json_object_get(k, "name")) ||
		    !json_is_object(met) || !json_is_object(units)) {
			kp_errf(err, KP_EXIT_DATA, "%s: kernel %zu is not that of %s", path, i,
			    summary_path);
			goto fail;
		}
		if (json_object_set(k, "metrics", met) < 0 || json_object_set(k, "units", units) < 0) {
			kp_errf(err, KP_EXIT_ENV, "out of memory");
			goto fail;
		}
	}
	json_object_del(summary, "metrics_all");
	json_decref(all);
	free(path);
	return 0;
fail:
	json_decref(all);
	free(path);
	return -1;
}

json_t *
kp_summary_primary(json_t *summary)
{
	json_t *p = json_object_get(summary, "primary");

	if (!json_is_integer(p))
		return NULL;
	return json_array_get(json_object_get(summary, "kernels"),
	    (size_t)json_integer_value(p));
}

int
kp_summary_value(json_t *kernel, const char *key, double *out)
{
	json_t *sum = json_object_get(kernel, "summary"), *v;

	if (strncmp(key, "stalls.", 7) == 0)
		v = json_object_get(json_object_get(sum, "stalls"), key + 7);
	else if ((v = json_object_get(sum, key)) == NULL)
		v = json_object_get(json_object_get(kernel, "metrics"), key);
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}
