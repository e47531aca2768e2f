/* compression.h - compression curves p_A(U) (*Queue-theory interference model*, section 4.4): the
 * slowdown of an app when CompressionB uses a fraction U of the switch.
 *
 * Measured points are noisy but the true curve cannot fall as the switch
 * gets busier, so they are fitted with a monotone non-decreasing curve by
 * weighted pool-adjacent-violators (isotonic regression, weights = sample
 * counts) and evaluated by linear interpolation, clamped at both ends. */
#ifndef NETVAR_COMPRESSION_H
#define NETVAR_COMPRESSION_H

#include <stddef.h>

/* Most points one curve may hold (bounds the fit's scratch copy). */
#define NV_CURVE_MAX_POINTS 1000000u

typedef struct nv_curve_point {
    double utilization;  /* U in [0, 1] */
    double slowdown_pct; /* (T_interfered - T_alone) / T_alone * 100 */
    double weight;       /* sample count behind the point, > 0 */
} nv_curve_point;

/* Fit n points (any order; equal U values are pooled first).  Writes one
 * point per distinct U, sorted by U with non-decreasing slowdown, into fit
 * (capacity n) and their number into *n_fit; weight is the pooled weight.
 * *residual_pct is the weighted RMS of (measured - fitted) over the input
 * points, in percentage points.  Returns 0, or -1 when n is 0 or too large,
 * a value is not finite, U is outside [0,1], a weight is not > 0, or
 * memory runs out. */
int nv_isotonic_fit(const nv_curve_point *pts, size_t n, nv_curve_point *fit, size_t *n_fit,
                    double *residual_pct);

/* p(U) on a fitted curve (points sorted by strictly increasing U): linear
 * between points, the first/last value outside them.  0 when n_fit is 0;
 * a NaN u reads as 0.  Allocation-free, O(log n). */
double nv_curve_eval(const nv_curve_point *fit, size_t n_fit, double u);

#endif
