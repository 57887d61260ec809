/* kp_number.h: numbers as ncu prints them (lib/number.c). */
#ifndef KP_NUMBER_H
#define KP_NUMBER_H

#include <stddef.h>

/* ---- number.c: numbers as ncu prints them ---- */
enum kp_num { KP_NUM_OK = 0, KP_NUM_MISSING = 1, KP_NUM_BAD = -1 };
/* "1,918,432", "89.46", "-", "n/a", "" (missing), "inf", "nan"... */
enum kp_num kp_parse_number(const char *s, size_t len, double *out);
/* m x 10^-k correctly rounded (as strtod gives it): 0, or -1 when it cannot
 * be done without big numbers (then use strtod). */
int kp_decimal_exact(unsigned long long m, unsigned k, double *out);
/* [-]digits with thousands commas and one point, up to 2^64 - 1 digits in all:
 * the value strtod gives; 0, or -1 when it is not that form or too wide. */
int kp_parse_decimal_wide(const char *s, size_t len, double *out);
/* "(16, 16, 1)" -> 3 ints; 0 ok, -1 not a triple */
int kp_parse_dim3(const char *s, long v[3]);
double kp_median(double *v, size_t n);	/* sorts v in place; n > 0 */

#endif
