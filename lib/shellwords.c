/*
 * shellwords.c: words of a command line, split the way a POSIX shell splits
 * them (quotes and backslashes), with nothing expanded or run: "$(...)", `...`,
 * ";", "|", "&", "<", ">", "*" and "#" are ordinary characters of a word.
 * Also the reverse (quoting a word for sh) and escaping a name for a regex.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_shellwords.h"
#include "kp_utf8.h"

struct buf {
	char *s;
	size_t len, cap;
};

static int
put(struct buf *b, char c)
{
	char *n;

	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		if ((n = realloc(b->s, cap)) == NULL)
			return -1;
		b->s = n;
		b->cap = cap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Append the word in b to a and start a new one. */
static int
flush_word(json_t *a, struct buf *b)
{
	int rc = json_array_append_new(a, json_stringn(b->s ? b->s : "", b->len));

	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
	return rc;
}

json_t *
kp_shell_split(const char *line, struct kp_err *err)
{
	json_t *a = json_array();
	struct buf b = { NULL, 0, 0 };
	const char *p = line, *open = NULL;
	int inword = 0, bad = 0;

	if (a == NULL || line == NULL) {
		json_decref(a);
		kp_errf(err, KP_EXIT_USAGE, "no command line");
		return NULL;
	}
	{
		/* words are kept as JSON and YAML text: a byte that is not UTF-8
		 * cannot be, and must not be dropped (a different command) */
		size_t len = strlen(line), at = kp_utf8_check(line, len);

		if (at != len) {
			json_decref(a);
			kp_errf(err, KP_EXIT_USAGE, "not UTF-8 (byte 0x%02x at offset %zu): a "
			    "command is kept as text; give the bytes another way (a wrapper "
			    "script)", (unsigned char)line[at], at);
			return NULL;
		}
	}
	while (*p != '\0' && !bad) {
		char c = *p;

		if (is_blank(c)) {
			if (inword && flush_word(a, &b) != 0)
				bad = 1;
			inword = 0;
			p++;
			continue;
		}
		if (c == '\\') {
			if (p[1] == '\0') {
				kp_errf(err, KP_EXIT_USAGE, "command line ends with a backslash");
				bad = 2;
				break;
			}
			if (p[1] == '\n') {	/* line continuation */
				p += 2;
				continue;
			}
			inword = 1;
			bad = put(&b, p[1]) != 0;
			p += 2;
			continue;
		}
		if (c == '\'') {
			open = p++;
			inword = 1;
			while (*p != '\0' && *p != '\'')
				if (put(&b, *p++) != 0)
					bad = 1;
			if (*p == '\0') {
				kp_errf(err, KP_EXIT_USAGE,
				    "unterminated single quote at column %zu", (size_t)(open - line) + 1);
				bad = 2;
				break;
			}
			p++;
			continue;
		}
		if (c == '"') {
			open = p++;
			inword = 1;
			while (*p != '\0' && *p != '"' && !bad) {
				if (*p == '\\' && p[1] != '\0' && strchr("\\\"$`\n", p[1]) != NULL) {
					if (p[1] != '\n')
						bad = put(&b, p[1]) != 0;
					p += 2;
				} else
					bad = put(&b, *p++) != 0;
			}
			if (*p == '\0') {
				kp_errf(err, KP_EXIT_USAGE,
				    "unterminated double quote at column %zu", (size_t)(open - line) + 1);
				bad = 2;
				break;
			}
			p++;
			continue;
		}
		inword = 1;
		bad = put(&b, c) != 0;
		p++;
	}
	if (!bad && inword && flush_word(a, &b) != 0)
		bad = 1;
	free(b.s);
	if (bad) {
		if (bad == 1)
			kp_errf(err, KP_EXIT_ENV, "out of memory");
		json_decref(a);
		return NULL;
	}
	return a;
}

char *
kp_shell_quote(const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_@%+=:,./-";
	size_t n = strlen(word), i, j;
	char *q;

	if (n > 0 && strspn(word, safe) == n)
		return strdup(word);
	/* 'it'\''s': every ' becomes '\'' (4 bytes). */
	if ((q = malloc(4 * n + 3)) == NULL)
		return NULL;
	j = 0;
	q[j++] = '\'';
	for (i = 0; i < n; i++) {
		if (word[i] == '\'') {
			memcpy(q + j, "'\\''", 4);
			j += 4;
		} else
			q[j++] = word[i];
	}
	q[j++] = '\'';
	q[j] = '\0';
	return q;
}

char *
kp_shell_join(json_t *argv)
{
	struct buf b = { NULL, 0, 0 };
	json_t *v;
	size_t i;

	if (put(&b, ' ') != 0)
		return NULL;
	b.len = 0;
	b.s[0] = '\0';
	json_array_foreach(argv, i, v) {
		char *q = kp_shell_quote(json_is_string(v) ? json_string_value(v) : "");
		const char *s;

		if (q == NULL) {
			free(b.s);
			return NULL;
		}
		if (i > 0 && put(&b, ' ') != 0)
			goto oom;
		for (s = q; *s; s++)
			if (put(&b, *s) != 0)
				goto oom;
		free(q);
		continue;
oom:
		free(q);
		free(b.s);
		return NULL;
	}
	return b.s;
}

char *
kp_regex_escape(const char *s)
{
	static const char meta[] = "\\.^$|?*+()[]{}";
	size_t n = strlen(s), i, j = 0;
	char *e;

	if ((e = malloc(2 * n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strchr(meta, s[i]) != NULL)
			e[j++] = '\\';
		e[j++] = s[i];
	}
	e[j] = '\0';
	return e;
}
