/*
 * request.c: what a person or an agent asked for, in free text ("with visual
 * report, source and roofline", "no sudo"), turned into fields of the target.
 *
 * Each requirement is cut into clauses at , ; newlines, ". ", " and ", " but ",
 * " plus ".  A clause is negated when it holds one of the words no, not,
 * without, skip, don't, do not, disable, never, exclude, omit, avoid; after a
 * negated clause, " or " / " nor " carry the negation ("without visual report
 * or source").  Requests outside one-kernel profiling are listed with a
 * reason; clauses that name nothing known are kept as they are.  Nothing is
 * dropped, and a password is never kept: everything after the word
 * "password" in a requirement becomes "[redacted]".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_request.h"

struct scope {
	const char *words;	/* "|"-separated keywords */
	const char *reason;
};

static const struct scope out_of_scope[] = {
	{ "password|passwd", "kp never stores or passes a sudo password; set up passwordless "
	    "sudo for ncu, or ask for privilege mode full_sudo" },
	{ "timeline|nsys|nsight systems|trace", "a timeline is Nsight Systems' job; kp profiles "
	    "one kernel with Nsight Compute" },
	{ "launch gap|launch gaps|gaps between|launch overhead|launch latency|idle time",
	    "gaps between launches are outside one kernel; use Nsight Systems" },
	{ "nccl|communication|all-reduce|allreduce|all reduce|collective",
	    "communication and NCCL are outside kernel-only scope; use Nsight Systems" },
	{ "multi-gpu|multi gpu|multiple gpus|multigpu|distributed|multi-node",
	    "kp profiles one kernel on one GPU" },
	{ "end-to-end|end to end|e2e|whole application|whole program|wall clock|wall-clock",
	    "end-to-end time is outside kernel-only scope; kp measures one kernel" },
	{ "dataloader|data loader|data loading|input pipeline",
	    "the data loader runs on the CPU, outside kernel-only scope" },
	{ "cpu|host side|host code|python overhead",
	    "CPU-side time is outside kernel-only scope; use a CPU profiler or Nsight Systems" },
	{ "memcpy|host to device|device to host|pcie transfer|h2d|d2h",
	    "host-device copies are not kernels; use Nsight Systems" },
};

static const char negations[] =
    "no|not|without|skip|don't|dont|do not|disable|disabled|never|exclude|omit|avoid|none";

/* Does the lower-case text hold the keyword where a word starts?  exact: and
 * where it ends too ("no", "l2"); else a suffix may follow ("visualization",
 * "sources", "autotuning"). */
static int
has_word(const char *text, const char *kw, size_t kwlen, int exact)
{
	const char *p;

	for (p = text; *p; p++) {
		if (strncmp(p, kw, kwlen) != 0)
			continue;
		if (p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '\''))
			continue;
		if (exact && (isalnum((unsigned char)p[kwlen]) || p[kwlen] == '\''))
			continue;
		return 1;
	}
	return 0;
}

/* Does text hold any of "a|b|c"? exact: whole words only. */
static int
any_word(const char *text, const char *words, int exact)
{
	const char *p = words, *bar;

	for (;;) {
		size_t n;

		bar = strchr(p, '|');
		n = bar ? (size_t)(bar - p) : strlen(p);
		if (has_word(text, p, n, exact))
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

char *
kp_request_redact(const char *text)
{
	const char *p;
	char *out;
	size_t n;

	for (p = text; *p; p++)
		if (strncasecmp(p, "password", 8) == 0 || strncasecmp(p, "passwd", 6) == 0)
			break;
	if (*p == '\0')
		return strdup(text);
	p += strncasecmp(p, "password", 8) == 0 ? 8 : 6;
	/* Keep an "s" and the separator that follow: "passwords are", "password: x". */
	while (*p == 's' || *p == 'S')
		p++;
	if (*p == '\0')
		return strdup(text);
	n = (size_t)(p - text);
	if ((out = malloc(n + 13)) == NULL)
		return NULL;
	memcpy(out, text, n);
	strcpy(out + n, " [redacted]");
	return out;
}

static void
set_bool(json_t *f, const char *key, int v)
{
	json_object_set_new(f, key, json_boolean(v));
}

static void
add_view(json_t *f, const char *view)
{
	json_t *a = json_object_get(f, "source_views"), *x;
	size_t i;

	if (a == NULL) {
		json_object_set_new(f, "source_views", json_array());
		a = json_object_get(f, "source_views");
	}
	json_array_foreach(a, i, x)
		if (strcmp(json_string_value(x), view) == 0)
			return;
	json_array_append_new(a, json_string(view));
}

/* The word after "baseline", "against", "vs" or "versus", in the clause's own
 * case: "compare against ./profile/v0_20260101" gives "./profile/v0_20260101". */
static void
find_baseline(json_t *f, const char *orig, const char *low)
{
	static const char *const marks[] = { "baseline", "against", "versus", "vs", NULL };
	static const char stop[] = "|the|a|an|previous|last|old|with|to|is|at|of|baseline|run|profile|";
	size_t i;

	for (i = 0; marks[i]; i++) {
		const char *hit = low;
		size_t kl = strlen(marks[i]);

		while ((hit = strstr(hit, marks[i])) != NULL) {
			const char *w;
			size_t wl, off;
			char word[512];
			char bar[516];

			if ((hit != low && isalnum((unsigned char)hit[-1])) ||
			    isalnum((unsigned char)hit[kl])) {
				hit++;
				continue;
			}
			w = hit + kl;
			while (*w == ' ' || *w == ':' || *w == '=' || *w == '\t')
				w++;
			for (wl = 0; w[wl] && !isspace((unsigned char)w[wl]); wl++)
				;
			if (wl == 0 || wl >= sizeof(word))
				break;
			off = (size_t)(w - low);
			memcpy(word, w, wl);
			word[wl] = '\0';
			snprintf(bar, sizeof(bar), "|%s|", word);
			if (strstr(stop, bar) != NULL) {
				hit = w;
				continue;
			}
			json_object_set_new(f, "baseline", json_stringn(orig + off, wl));
			return;
		}
	}
}

struct clause {
	char *orig;	/* trimmed, original case */
	char *low;	/* lower case */
	int neg;
};

/* Feature keywords; the first match wins only per feature, several features
 * may be named in one clause ("memory, compute"). Returns features found. */
static int
features(json_t *f, struct clause *c)
{
	const char *t = c->low;
	int on = !c->neg, n = 0;

	if (any_word(t, "visual|plot|chart|picture|png|svg|figure", 0)) {
		set_bool(f, "visual", on);
		if (on && any_word(t, "svg", 0))
			json_object_set_new(f, "format", json_string("svg"));
		else if (on && any_word(t, "png", 0))
			json_object_set_new(f, "format", json_string("png"));
		n++;
	}
	if (any_word(t, "source|sass|ptx|hotspot|line-level|lineinfo|cuda source", 0)) {
		set_bool(f, "source", on);
		if (on && any_word(t, "sass", 0))
			add_view(f, "sass");
		if (on && any_word(t, "ptx", 0))
			add_view(f, "ptx");
		if (on && any_word(t, "cuda", 0))
			add_view(f, "cuda");
		n++;
	}
	if (any_word(t, "roofline", 0)) {
		set_bool(f, "roofline", on);
		n++;
	}
	if (any_word(t, "memory|bandwidth|dram|cache|l1|l2|hbm", 0)) {
		set_bool(f, "memory", on);
		n++;
	}
	if (any_word(t, "compute|tensor core|tensor pipe|flop|alu|fma|instruction", 0)) {
		set_bool(f, "compute", on);
		n++;
	}
	if (any_word(t, "occupancy|register|launch config", 0)) {
		set_bool(f, "occupancy", on);
		n++;
	}
	if (any_word(t, "full|everything|all sections|all metrics|complete", 0)) {
		set_bool(f, "full", on);
		n++;
	}
	if (any_word(t, "compare|comparison|regression|baseline|before/after|before and after", 0)) {
		set_bool(f, "compare", on);
		if (on)
			find_baseline(f, c->orig, c->low);
		n++;
	}
	if (any_word(t, "bottleneck|rule|decision|diagnos|classif", 0)) {
		set_bool(f, "bottleneck", on);
		n++;
	}
	if (any_word(t, "microbenchmark|micro-benchmark|micro benchmark|deterministic", 0)) {
		set_bool(f, "microbenchmark", on);
		n++;
	}
	if (any_word(t, "autotune|auto-tune|autotuning|auto-tuning", 0)) {
		const char *pol = "warmup";

		if (c->neg || any_word(t, "pin|pinned|fixed", 0))
			pol = "pinned";
		else if (any_word(t, "include|profile all|profile-all|all configs", 0))
			pol = "profile-all";
		json_object_set_new(f, "autotune", json_string(pol));
		n++;
		if (any_word(t, "triton", 0))
			set_bool(f, "triton", 1);	/* "no Triton autotuning" is still Triton */
	} else if (any_word(t, "triton", 0)) {
		set_bool(f, "triton", on);
		n++;
	}
	if (any_word(t, "sudo|as root|privilege|admin|elevated", 0)) {
		set_bool(f, "sudo", on);
		n++;
	}
	if (any_word(t, "clock", 0)) {
		int unlocked = c->neg || any_word(t, "unlock|boost|free", 0);
		json_object_set_new(f, "clock_control", json_string(unlocked ? "none" : "base"));
		n++;
	}
	return n;
}

/* Filler: a clause made only of these says nothing. */
static int
only_filler(const char *low)
{
	static const char filler[] = "|with|please|also|include|including|a|an|the|and|"
	    "i|want|need|report|s|it|too|as|well|of|for|to|me|give|generate|add|";
	char w[64];
	const char *p = low;

	while (*p) {
		size_t n = 0;

		while (*p && !isalnum((unsigned char)*p))
			p++;
		while (isalnum((unsigned char)p[n]) && n < sizeof(w) - 3)
			n++;
		if (n == 0)
			break;
		w[0] = '|';
		memcpy(w + 1, p, n);
		w[n + 1] = '|';
		w[n + 2] = '\0';
		if (strstr(filler, w) == NULL)
			return 0;
		p += n;
	}
	return 1;
}

static char *
trim(const char *s, size_t n)
{
	char *o;

	while (n > 0 && (isspace((unsigned char)*s) || *s == '.')) {
		s++;
		n--;
	}
	while (n > 0 && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '.'))
		n--;
	if ((o = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(o, s, n);
	o[n] = '\0';
	return o;
}

/* The separators that end a clause; *carry says whether negation carries over. */
static size_t
sep_at(const char *p, int *carry)
{
	static const struct { const char *s; int carry; } seps[] = {
		{ ",", 0 }, { ";", 0 }, { "\n", 0 }, { ". ", 0 }, { " and ", 0 },
		{ " but ", 0 }, { " plus ", 0 }, { " or ", 1 }, { " nor ", 1 }, { " & ", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		size_t n = strlen(seps[i].s);
		if (strncasecmp(p, seps[i].s, n) == 0) {
			*carry = seps[i].carry;
			return n;
		}
	}
	return 0;
}

static void
one_clause(json_t *res, struct clause *c)
{
	json_t *f = json_object_get(res, "fields");
	size_t i;

	if (c->orig[0] == '\0' || only_filler(c->low))
		return;
	for (i = 0; i < sizeof(out_of_scope) / sizeof(out_of_scope[0]); i++) {
		if (!any_word(c->low, out_of_scope[i].words, 0))
			continue;
		if (c->neg && i > 0)
			return;	/* "no timeline": nothing to do, nothing lost */
		json_array_append_new(json_object_get(res, "unsupported"),
		    json_pack("{s:s, s:s}", "text", c->orig, "reason", out_of_scope[i].reason));
		return;
	}
	if (features(f, c) == 0)
		json_array_append_new(json_object_get(res, "not_understood"), json_string(c->orig));
}

static int
parse_text(json_t *res, const char *text)
{
	const char *p = text, *start = text;
	int carry = 0, prevneg = 0;

	for (;;) {
		int nextcarry = 0;
		size_t sl = *p ? sep_at(p, &nextcarry) : 1;

		if (sl > 0) {
			struct clause c;
			size_t i;

			c.orig = trim(start, (size_t)(p - start));
			c.low = c.orig ? strdup(c.orig) : NULL;
			if (c.orig == NULL || c.low == NULL) {
				free(c.orig);
				free(c.low);
				return -1;
			}
			for (i = 0; c.low[i]; i++)
				c.low[i] = (char)tolower((unsigned char)c.low[i]);
			c.neg = any_word(c.low, negations, 1) || (carry && prevneg);
			/* "skip 20 launches" is a launch window, not a negation. */
			if (c.neg && strncmp(c.low, "skip ", 5) == 0 && isdigit((unsigned char)c.low[5]))
				c.neg = 0;
			one_clause(res, &c);
			if (c.orig[0] != '\0') {
				prevneg = c.neg;
				carry = nextcarry;
			}
			free(c.orig);
			free(c.low);
			if (*p == '\0')
				break;
			p += sl;
			start = p;
			continue;
		}
		p++;
	}
	return 0;
}

json_t *
kp_request_parse(json_t *texts, struct kp_err *err)
{
	json_t *res, *v;
	size_t i;

	res = json_pack("{s:o, s:o, s:o, s:o}", "fields", json_object(), "unsupported",
	    json_array(), "not_understood", json_array(), "original", json_array());
	if (res == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	json_array_foreach(texts, i, v) {
		char *red;

		if (!json_is_string(v))
			continue;
		if ((red = kp_request_redact(json_string_value(v))) == NULL ||
		    parse_text(res, red) != 0) {
			free(red);
			json_decref(res);
			kp_errf(err, KP_EXIT_ENV, "out of memory");
			return NULL;
		}
		json_array_append_new(json_object_get(res, "original"), json_string(red));
		free(red);
	}
	return res;
}
