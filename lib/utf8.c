/* utf8.c: where a byte string stops being UTF-8. */
#include "kp.h"

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
