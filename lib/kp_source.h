/* kp_source.h: see kp.h.  Declarations of the source module. */
#ifndef KP_SOURCE_H
#define KP_SOURCE_H

#endif
