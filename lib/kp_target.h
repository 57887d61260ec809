/* kp_target.h: see kp.h.  Declarations of the target module. */
#ifndef KP_TARGET_H
#define KP_TARGET_H

#endif
