/*
 * csv_scan.h: csv.c's record scan for the instruction sets with a popcnt,
 * included there once per set.  The includer defines SCAN_NAME (the
 * function), SCAN_ATTR (its target attribute) and SCAN_MASKS (a block's
 * quotes, separators, and newlines or NULs); they are undefined here.  Not a header
 * of the library.
 *
 * No parity of the quotes: in ncu's form every quote but the first and the
 * last is one of a separator "," (t: its first quote at p, so the next
 * field's opening quote is at p + 2).  So a line has the form when its
 * quotes are exactly 0, the last one e, and p and p + 2 for each separator
 * p: the separators do not overlap (none at p + 2 of another), none starts
 * at 0 or ends at e, and the quotes number 2 + 2 x the separators.  The
 * closing quotes are then the separators' first quotes and e.
 */
static SCAN_ATTR uint64_t
SCAN_NAME(const char *b, size_t avail, uint64_t *masks, uint32_t *cnt, size_t *lenp)
{
	size_t base, k, len, e, nblk, nq = 0, nt = 0, j;
	uint64_t q, t, nl, prev = 0, bad = 0, lm;

	for (k = 0, base = 0;; k++, base += 64) {
		if (base >= avail)
			return SCAN_MORE;
		SCAN_MASKS(b + base, &q, &t, &nl);
		if (avail - base < 64)
			nl &= ((uint64_t)1 << (avail - base)) - 1;
		if (nl != 0)
			break;
		cnt[k] = (uint32_t)nt;
		masks[k] = t;
		bad |= t & (t << 2 | prev >> 62);
		prev = t;
		nq += (size_t)__builtin_popcountll(q);
		nt += (size_t)__builtin_popcountll(t);
	}
	/* the newline's block: the bytes before it (none when it is the first) */
	j = (size_t)__builtin_ctzll(nl);
	if (b[base + j] == '\0')
		return SCAN_NUL;
	lm = j == 0 ? 0 : ~(uint64_t)0 >> (64 - j);
	q &= lm;
	t &= lm;
	cnt[k] = (uint32_t)nt;
	masks[k] = t;
	bad |= t & (t << 2 | prev >> 62);
	nq += (size_t)__builtin_popcountll(q);
	nt += (size_t)__builtin_popcountll(t);
	*lenp = len = base + j;
	nblk = (len + 63) / 64;
	masks[nblk] = 0;
	cnt[nblk] = (uint32_t)nt;
	if (bad != 0 || (masks[0] & 1) != 0 || !last_quote(b, len, &e) ||
	    nq != 2 + 2 * nt || (e >= 2 && (masks[(e - 2) / 64] >> ((e - 2) % 64) & 1) != 0))
		return SCAN_OTHER;
	/* e closes the last field */
	masks[e / 64] |= (uint64_t)1 << (e % 64);
	for (k = e / 64 + 1; k <= nblk; k++)
		cnt[k]++;
	return SCAN_FORM;
}

#undef SCAN_NAME
#undef SCAN_ATTR
#undef SCAN_MASKS
