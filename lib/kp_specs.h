/* kp_specs.h: see kp.h.  Declarations of the specs module. */
#ifndef KP_SPECS_H
#define KP_SPECS_H

#endif
