/* kp_collect.h: see kp.h.  Declarations of the collect module. */
#ifndef KP_COLLECT_H
#define KP_COLLECT_H

#endif
