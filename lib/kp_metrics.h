/* kp_metrics.h: see kp.h.  Declarations of the metrics module. */
#ifndef KP_METRICS_H
#define KP_METRICS_H

#endif
