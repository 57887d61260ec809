/* kp_units.h: ncu unit strings to base units (lib/units.c). */
#ifndef KP_UNITS_H
#define KP_UNITS_H

/* ---- units.c: ncu unit strings to base units ---- */
/*
 * Base units: time in ns; bytes; rates per second (byte/s, sector/s, ...);
 * frequency in hz; % and counts as they are.  An unknown unit keeps scale 1 and
 * known == 0, so the caller reports it instead of scaling silently.
 */
struct kp_unit {
	double scale;		/* value_in_base = value * scale */
	char base[48];		/* base unit string, e.g. "ns", "byte/s" */
	int known;
};
void kp_unit_parse(const char *unit, struct kp_unit *u);

#endif
