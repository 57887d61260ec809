/* utf8.c: where a byte string stops being UTF-8. */
#include <stdio.h>
#include <string.h>

#include "kp_diag.h"
#include "kp_utf8.h"

/*
 * The offset of the first byte that does not start a well-formed UTF-8
 * sequence (no overlongs, surrogates or code points past U+10FFFF), or len.
 */
size_t
kp_utf8_check(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n, j;
	unsigned long cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			n = 1, cp = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			n = 2, cp = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			n = 3, cp = s[i] & 0x07;
		else
			return i;
		if (len - i <= n)
			return i;
		for (j = 1; j <= n; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return i;
		i += n + 1;
	}
	return len;
}

/* Is argv[k] an option in names, alone or as --name=value?  1 alone, 2 joined. */
static int
is_opt(const char *arg, const char *const *names)
{
	size_t n;

	for (; names != NULL && *names != NULL; names++) {
		n = strlen(*names);
		if (strncmp(arg, *names, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
			return arg[n] == '\0' ? 1 : 2;
	}
	return 0;
}

int
kp_args_text(int argc, char **argv, const char *const *skip, struct kp_err *err)
{
	char shown[200];
	const char *opt;
	size_t bad, len, i, j;
	int k, nargs = -1, o;

	for (k = 1; k < argc; k++) {
		if (nargs >= 0)
			nargs++;
		else if (strcmp(argv[k], "--") == 0 || strcmp(argv[k], "--args") == 0)
			nargs = 0;	/* the rest are words, whatever they look like */
		else if ((o = is_opt(argv[k], skip)) != 0) {
			k += o == 1;
			continue;
		}
		len = strlen(argv[k]);
		if ((bad = kp_utf8_check(argv[k], len)) == len)
			continue;
		for (i = j = 0; i < len && j + 5 < sizeof shown; i++) {
			unsigned char c = (unsigned char)argv[k][i];

			if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
				j += (size_t)snprintf(shown + j, sizeof shown - j, "\\x%02x", c);
			else
				shown[j++] = (char)c;
		}
		shown[j] = '\0';
		if (nargs > 0)
			return kp_errf(err, KP_EXIT_USAGE, "%s: word %d, \"%s%s\", is not UTF-8 "
			    "(byte 0x%02x at offset %zu): it cannot be kept as text; nothing was "
			    "written or run", argv[k - nargs], nargs, shown, i < len ? "..." : "",
			    (unsigned char)argv[k][bad], bad);
		opt = argv[k][0] != '-' && k > 1 && argv[k - 1][0] == '-' ? argv[k - 1] : "";
		return kp_errf(err, KP_EXIT_USAGE, "%s%s\"%s%s\" is not UTF-8 (byte 0x%02x at "
		    "offset %zu): it cannot be kept as text; nothing was written or run", opt,
		    *opt ? ": " : "", shown, i < len ? "..." : "", (unsigned char)argv[k][bad],
		    bad);
	}
	return 0;
}
