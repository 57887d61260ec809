/* kp_fmt.h: numbers in readable decimal units for the reports (lib/fmt.c). */
#ifndef KP_FMT_H
#define KP_FMT_H

#include <stddef.h>

/* ---- fmt.c: numbers for people ----
 * Values come in kp's base units (ns, byte, byte/s, hz, %, counts).  Prefixes are
 * decimal, as ncu's are: 1 kB = 1000 byte, 1 TB/s = 1e12 byte/s, 1 MHz = 1e6 hz.
 * Readable forms keep three significant digits ("1.92 ms", "628 us", "4.81 TB/s",
 * "3.20 GHz"); percentages keep one decimal ("89.4 %").  Every function writes
 * into buf (NUL-terminated, truncated to len) and returns buf. */
char *kp_fmt_num(char *buf, size_t len, double v);	/* "1918432", "0.523", "1.5e-07" */
char *kp_fmt_unit(char *buf, size_t len, double v, const char *base);	/* "1.92 ms" */
/* The base value, exact enough to recompute from ("1918432 ns", "80.74 %"). */
char *kp_fmt_base(char *buf, size_t len, double v, const char *base);
/* A signed relative change: "+3.1 %", "-67.3 %". */
char *kp_fmt_change_pct(char *buf, size_t len, double pct);
/* The base unit of a metrics-summary key ("duration_ns" -> "ns", "*_pct" -> "%",
 * "stalls.*" -> "" (cycles per issued instruction), counts -> ""). */
const char *kp_summary_key_unit(const char *key);

#endif
