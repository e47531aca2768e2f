/* sort_cmp.h - qsort/bsearch comparators for the arrays netvar sorts:
 * C strings in strcmp's (byte) order, which every sorted name list it
 * keeps or writes uses (node, switch and port names, app keys), and
 * ints and doubles in ascending order, uint32_t counts largest first (medians, quantiles, profiles; a NaN compares
 * equal to everything, so callers drop NaNs before sorting). */
#ifndef NV_SORT_CMP_H
#define NV_SORT_CMP_H

#include <stdint.h>
#include <string.h>

/* a and b point at char * elements */
static inline int nv_cmp_strp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* a and b point at int elements, ascending */
static inline int nv_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* a and b point at uint32_t elements, largest first */
static inline int nv_cmp_u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* a and b point at double elements */
static inline int nv_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
