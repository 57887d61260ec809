/* kp_compare.h: see kp.h.  Declarations of the compare module. */
#ifndef KP_COMPARE_H
#define KP_COMPARE_H

#endif
