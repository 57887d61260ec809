/*
 * csv_squeeze.h: csv.c's copy of a fast-form record's fields with the
 * separators between them dropped, sixteen bytes a step.  Not a header of the
 * library.
 */
#ifndef KP_CSV_SQUEEZE_H
#define KP_CSV_SQUEEZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * 1 where kp_csv_squeeze() may run on this CPU (x86-64 with SSSE3), else 0.
 */
int kp_csv_squeeze_usable(void);

/*
 * rec[from..end) into dst without the two bytes after each closing quote
 * (masks: one bit per byte of rec, a 64-bit word per block of 64): in
 * ncu's form those are the "," and the next field's opening quote, so each
 * field's bytes are followed by its closing quote alone; a NUL (a closing
 * quote that kp_csv_pick() has made a field's end) is written as '"'.
 * Returns the
 * bytes written.  rec is read in whole blocks of 64 (the last one's too),
 * and dst written up to 8 bytes past what is returned.
 */
size_t kp_csv_squeeze(const char *rec, const uint64_t *masks, size_t from, size_t end,
    char *dst);

#endif
