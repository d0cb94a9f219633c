/* polycu fakelibc: the <math.h> functions of one floating type (internal).
 *
 * C11 7.12 declares each function three times: for double (sqrt), float
 * (sqrtf) and long double (sqrtl).  <math.h> includes this list once per type,
 * with _POLYCU_T the type and _POLYCU_F(name) the function's name for it, so
 * the list is written once.  _POLYCU_UNARY(f) declares T f(T x) and
 * _POLYCU_BINARY(f) declares T f(T x, T y); the other signatures are spelled
 * out.  No include guard: each inclusion is for another type; included with
 * _POLYCU_T undefined, it declares nothing. */
#ifdef _POLYCU_T
#define _POLYCU_UNARY(f) _POLYCU_T _POLYCU_F(f)(_POLYCU_T x);
#define _POLYCU_BINARY(f) _POLYCU_T _POLYCU_F(f)(_POLYCU_T x, _POLYCU_T y);

/* 7.12.4 trigonometric functions */
_POLYCU_UNARY(acos) _POLYCU_UNARY(asin) _POLYCU_UNARY(atan)
_POLYCU_T _POLYCU_F(atan2)(_POLYCU_T y, _POLYCU_T x);
_POLYCU_UNARY(cos) _POLYCU_UNARY(sin) _POLYCU_UNARY(tan)

/* 7.12.5 hyperbolic functions */
_POLYCU_UNARY(acosh) _POLYCU_UNARY(asinh) _POLYCU_UNARY(atanh)
_POLYCU_UNARY(cosh) _POLYCU_UNARY(sinh) _POLYCU_UNARY(tanh)

/* 7.12.6 exponential and logarithmic functions */
_POLYCU_UNARY(exp) _POLYCU_UNARY(exp2) _POLYCU_UNARY(expm1)
_POLYCU_T _POLYCU_F(frexp)(_POLYCU_T value, int *exp);
int _POLYCU_F(ilogb)(_POLYCU_T x);
_POLYCU_T _POLYCU_F(ldexp)(_POLYCU_T x, int exp);
_POLYCU_UNARY(log) _POLYCU_UNARY(log10) _POLYCU_UNARY(log1p) _POLYCU_UNARY(log2)
_POLYCU_UNARY(logb)
_POLYCU_T _POLYCU_F(modf)(_POLYCU_T value, _POLYCU_T *iptr);
_POLYCU_T _POLYCU_F(scalbn)(_POLYCU_T x, int n);
_POLYCU_T _POLYCU_F(scalbln)(_POLYCU_T x, long n);

/* 7.12.7 power and absolute-value functions */
_POLYCU_UNARY(cbrt) _POLYCU_UNARY(fabs) _POLYCU_BINARY(hypot) _POLYCU_BINARY(pow)
_POLYCU_UNARY(sqrt)

/* 7.12.8 error and gamma functions */
_POLYCU_UNARY(erf) _POLYCU_UNARY(erfc) _POLYCU_UNARY(lgamma) _POLYCU_UNARY(tgamma)

/* 7.12.9 nearest integer functions */
_POLYCU_UNARY(ceil) _POLYCU_UNARY(floor) _POLYCU_UNARY(nearbyint) _POLYCU_UNARY(rint)
long _POLYCU_F(lrint)(_POLYCU_T x);
long long _POLYCU_F(llrint)(_POLYCU_T x);
_POLYCU_UNARY(round)
long _POLYCU_F(lround)(_POLYCU_T x);
long long _POLYCU_F(llround)(_POLYCU_T x);
_POLYCU_UNARY(trunc)

/* 7.12.10 remainder functions */
_POLYCU_BINARY(fmod) _POLYCU_BINARY(remainder)
_POLYCU_T _POLYCU_F(remquo)(_POLYCU_T x, _POLYCU_T y, int *quo);

/* 7.12.11 manipulation functions */
_POLYCU_BINARY(copysign)
_POLYCU_T _POLYCU_F(nan)(const char *tagp);
_POLYCU_BINARY(nextafter)
_POLYCU_T _POLYCU_F(nexttoward)(_POLYCU_T x, long double y);

/* 7.12.12 maximum, minimum and positive difference; 7.12.13 fused multiply-add */
_POLYCU_BINARY(fdim) _POLYCU_BINARY(fmax) _POLYCU_BINARY(fmin)
_POLYCU_T _POLYCU_F(fma)(_POLYCU_T x, _POLYCU_T y, _POLYCU_T z);

#undef _POLYCU_UNARY
#undef _POLYCU_BINARY
#endif
