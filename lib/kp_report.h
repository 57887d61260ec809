/* kp_report.h: see kp.h.  Declarations of the report module. */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#endif
