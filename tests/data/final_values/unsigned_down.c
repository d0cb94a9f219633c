/* Counters of modular types read after the SCoP: the usual downward idiom
   'for (u = n - 1; u < n; u--)' leaves u at UINT_MAX (it wrapped around), a
   size_t counter stepping by 4 ends past n, an unsigned char counter wraps from
   240 to 4, and an unsigned long one counting down by 3 wraps below 0. */
#include <stdio.h>
#include <stddef.h>
#define N 400

static unsigned long long kernel(unsigned n, double A[N], double B[N])
{
  unsigned u = 7;
  size_t s = 9;
  unsigned char c = 11;
  unsigned long d = 13;
#pragma scop
  for (u = n - 1; u < n; u--)
    A[u] = A[u] * 0.5 + 1;
  for (s = 1; s < n; s += 4)
    B[s] += A[s - 1];
  for (c = 200; c >= 100; c += 20)
    B[c - 100] += 1;
  for (d = n; d <= n; d -= 3)
    A[d / 2] += 2;
#pragma endscop
  return u * 3ULL + s * 5ULL + c * 7ULL + d * 11ULL;
}

static unsigned long long plain(unsigned n, double A[N], double B[N])
{
  unsigned u = 7;
  size_t s = 9;
  unsigned char c = 11;
  unsigned long d = 13;
  for (u = n - 1; u < n; u--)
    A[u] = A[u] * 0.5 + 1;
  for (s = 1; s < n; s += 4)
    B[s] += A[s - 1];
  for (c = 200; c >= 100; c += 20)
    B[c - 100] += 1;
  for (d = n; d <= n; d -= 3)
    A[d / 2] += 2;
  return u * 3ULL + s * 5ULL + c * 7ULL + d * 11ULL;
}

int main(void)
{
  static double A[N], B[N], A2[N], B2[N];
  unsigned sizes[] = {N - 3, 0, 1, 2, 5, 64};
  int i, k, bad = 0;
  for (k = 0; k < 6; k++) {
    for (i = 0; i < N; i++) {
      A[i] = A2[i] = (i * 7) % 13 - 6.25;
      B[i] = B2[i] = i % 5;
    }
    bad += kernel(sizes[k], A, B) != plain(sizes[k], A2, B2);
    for (i = 0; i < N; i++)
      bad += (A[i] != A2[i]) + (B[i] != B2[i]);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
