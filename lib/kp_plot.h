/* kp_plot.h: see kp.h.  Declarations of the plot module. */
#ifndef KP_PLOT_H
#define KP_PLOT_H

#endif
