/* kp_rules.h: see kp.h.  Declarations of the rules module. */
#ifndef KP_RULES_H
#define KP_RULES_H

#endif
