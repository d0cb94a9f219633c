/* polycu fakelibc: <math.h> (C11 7.12, plus the POSIX M_* constants).
 *
 * The type-generic classification macros (isnan, fpclassify, ...) are
 * declared as functions of double: a call then survives verbatim into the
 * generated CUDA, where the real <math.h> gives it its meaning. */
#ifndef _POLYCU_MATH_H
#define _POLYCU_MATH_H

typedef float float_t;
typedef double double_t;

/* Overflowing and 0/0 constant expressions give IEEE infinity and NaN. */
#define HUGE_VAL (1e300 * 1e300)
#define HUGE_VALF ((float)HUGE_VAL)
#define HUGE_VALL ((long double)HUGE_VAL)
#define INFINITY ((float)HUGE_VAL)
#define NAN ((float)(0.0 / 0.0))

#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
#define math_errhandling (MATH_ERRNO | MATH_ERREXCEPT)

#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

int fpclassify(double x);
int isfinite(double x);
int isinf(double x);
int isnan(double x);
int isnormal(double x);
int signbit(double x);
int isgreater(double x, double y);
int isgreaterequal(double x, double y);
int isless(double x, double y);
int islessequal(double x, double y);
int islessgreater(double x, double y);
int isunordered(double x, double y);

/* The functions of each floating type: double, float (f), long double (l). */
#define _POLYCU_T double
#define _POLYCU_F(name) name
#include <_polycu_mathcalls.h>
#undef _POLYCU_T
#undef _POLYCU_F

#define _POLYCU_T float
#define _POLYCU_F(name) name##f
#include <_polycu_mathcalls.h>
#undef _POLYCU_T
#undef _POLYCU_F

#define _POLYCU_T long double
#define _POLYCU_F(name) name##l
#include <_polycu_mathcalls.h>
#undef _POLYCU_T
#undef _POLYCU_F

#endif
