/* A struct scalar parameter read in the SCoP (p.alpha * A[i] + p.beta) and a
   pointer to a struct whose array field is updated through '->' (ps->acc[i]),
   next to its scalar field ps->count, which the SCoP only reads. */
#include <stdio.h>
#define N 700

struct coefficients { double alpha; double beta; };
struct accumulator { double acc[N]; int count; };

static void kernel(int n, struct coefficients p, double A[N], double B[N],
                   struct accumulator *ps)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = p.alpha * A[i] + p.beta;
  for (i = 0; i < n; i++)
    ps->acc[i] = ps->acc[i] * ps->count + B[n - 1 - i];
#pragma endscop
}

static void plain(int n, struct coefficients p, double A[N], double B[N],
                  struct accumulator *ps)
{
  int i;
  for (i = 0; i < n; i++)
    B[i] = p.alpha * A[i] + p.beta;
  for (i = 0; i < n; i++)
    ps->acc[i] = ps->acc[i] * ps->count + B[n - 1 - i];
}

int main(void)
{
  static double A[N], B[N], B2[N];
  static struct accumulator s, s2;
  struct coefficients p = { 1.5, -0.75 };
  int i, bad = 0, n = N - 11;
  for (i = 0; i < N; i++) {
    A[i] = ((i * 37) % 101 - 50) * 0.5;
    B[i] = B2[i] = 2.0e8 + i;
    s.acc[i] = s2.acc[i] = (i % 9) - 4.0;
  }
  s.count = s2.count = 3;
  kernel(n, p, A, B, &s);
  plain(n, p, A, B2, &s2);
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (s.acc[i] != s2.acc[i]);
  bad += s.count != s2.count;
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
