// Session 39 (docs/results/staging.md): FP64 division as straight-line code verified
// exactly, checked bit for bit against '/' on the GPU.  nvcc -O3 -arch=sm_90 scripts/division_probe.cu
/* FP64 division as straight-line code, verified exactly.
   q is accepted only if |fma(-y, q, x)| < |y| * ulp(q) / 2 (T exact: a power of two
   times y, normal), q normal and not a power of two, x and y in [2^-250, 2^251):
   RN is monotone and T representable, so |x - y q| < T, |x / y - q| < ulp(q) / 2,
   q = RN(x / y).  Otherwise ok becomes false and the caller divides with '/'. */
__device__ __forceinline__ double polycu_ddiv_fast(double x, double y, bool &ok)
{
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(y));
  double e = fma(-y, r, 1.0);
  e = fma(e, e, e);
  r = fma(r, e, r);
  e = fma(-y, r, 1.0);
  r = fma(r, e, r);
  double q = x * r;
  const double rem = fma(-y, q, x);
  q = fma(r, rem, q);
  const unsigned hx = __double2hiint(x), hy = __double2hiint(y), hq = __double2hiint(q);
  const unsigned bx = (hx >> 20) & 0x7ff, by = (hy >> 20) & 0x7ff, bq = (hq >> 20) & 0x7ff;
  const double half_ulp = __hiloint2double((int) ((hq & 0x7ff00000u) - (53u << 20)), 0);
  const double rem1 = fma(-y, q, x);
  ok = ok && bx - 773u <= 500u && by - 773u <= 500u && bq - 513u <= 1020u
       && ((hq & 0x000fffffu) | (unsigned) __double2loint(q)) != 0
       && fabs(rem1) < fabs(y) * half_ulp;
  return q;
}
__device__ __forceinline__ double polycu_ddiv(double x, double y)
{
  bool ok = true;
  const double q = polycu_ddiv_fast(x, y, ok);
  return ok ? q : x / y;
}
// polycu_ddiv against '/' bit for bit: random bit patterns, random values in the fast
// range, near powers of two, and adi-like operands; counts fallbacks.
#include <cstdio>
#include <cstdint>
__device__ uint64_t mix(uint64_t z) { z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
__global__ void check(uint64_t seed, int kind, unsigned long long *bad, unsigned long long *slow, long n)
{
  for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < n; i += (long) gridDim.x * blockDim.x) {
    uint64_t a = mix(seed ^ (i * 2)), b = mix(seed ^ (i * 2 + 1));
    double x, y;
    if (kind == 0) { x = __longlong_as_double(a); y = __longlong_as_double(b); }
    else if (kind == 1) {  // exponents within +-260 of 1023, any significand
      x = __longlong_as_double((a & 0x800fffffffffffffull) | ((uint64_t) (763 + (a >> 52) % 521) << 52));
      y = __longlong_as_double((b & 0x800fffffffffffffull) | ((uint64_t) (763 + (b >> 52) % 521) << 52));
    } else if (kind == 2) {  // few significand bits: exact quotients, powers of two, ties' neighbours
      x = (double) (int64_t) ((a >> 40) - (1ull << 23)) * ldexp(1.0, (int) (a % 64) - 32);
      y = (double) (int64_t) ((b >> 44) - (1ull << 19)) * ldexp(1.0, (int) (b % 64) - 32);
    } else {  // significands near 1 and near 2
      x = __longlong_as_double(0x3ff0000000000000ull + (a & 0xff) - 128 * (a >> 63) + ((a >> 8) % 3 << 52));
      y = __longlong_as_double(0x3ff0000000000000ull + (b & 0xff) + ((b >> 8) % 3 << 52));
    }
    bool ok = true;
    const double f = polycu_ddiv_fast(x, y, ok), g = polycu_ddiv(x, y), h = x / y;
    if (!ok) atomicAdd(slow, 1ull);
    if (__double_as_longlong(g) != __double_as_longlong(h) && !(g != g && h != h)) atomicAdd(bad, 1ull);
    if (ok && __double_as_longlong(f) != __double_as_longlong(h)) atomicAdd(bad, 1ull);
  }
}
int main()
{
  unsigned long long *d, h[2];
  cudaMalloc(&d, 16);
  const long n = 1l << 32;
  for (int kind = 0; kind < 4; kind++) {
    cudaMemset(d, 0, 16);
    check<<<132 * 16, 256>>>(12345 + kind, kind, d, d + 1, n);
    cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    printf("kind %d: %ld pairs, %llu wrong, %llu fell back to '/'\n", kind, n, h[0], h[1]);
  }
  return cudaGetLastError() != cudaSuccess;
}
