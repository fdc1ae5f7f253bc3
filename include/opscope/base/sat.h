/*
 * sat.h - int64 arithmetic that clamps instead of wrapping.
 *
 * Durations are int64 nanoseconds; a hostile or broken trace can hold
 * values near INT64_MAX whose sums overflow. Sums saturate at the int64
 * range (a load warning, OSC_WARN_HUGE_SUMS, says when they can), so that a
 * total is never negative, a percentage never over 100 and a mean never
 * outside [min, max].
 */
#ifndef OPSCOPE_SAT_H
#define OPSCOPE_SAT_H

#include <stdint.h>

/* a + b, clamped to the int64_t range. */
static inline int64_t osc_sat_add(int64_t a, int64_t b)
{
	int64_t s;

	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return s;
}

#endif
