/* Integer functions inlined into a subscript and values: C's truncating / and %
   on negative operands, and unsigned division of a wrapped value. */
#include <stdio.h>
#define N 40
static int half(int x) { return x / 2; }
static int md(int x) { return x % 3; }
static unsigned uhalf(unsigned x) { return x / 2u; }
static void kernel(int n, int A[N], int B[N], unsigned U[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[half(i - 5) + 3] += i;
    B[i] = md(i - 7) + half(-i);
    U[i] = uhalf((unsigned)(i - 3));
  }
#pragma endscop
}
int main(void)
{
  static int A[N], B[N], A2[N], B2[N];
  static unsigned U[N], U2[N];
  int i, n = N - 3, bad = 0;
  for (i = 0; i < N; i++) A[i] = A2[i] = i, B[i] = B2[i] = -1, U[i] = U2[i] = 7;
  kernel(n, A, B, U);
  for (i = 0; i < n; i++) {
    A2[(i - 5) / 2 + 3] += i;
    B2[i] = (i - 7) % 3 + (-i) / 2;
    U2[i] = ((unsigned)(i - 3)) / 2u;
  }
  for (i = 0; i < N; i++) bad += A[i] != A2[i], bad += B[i] != B2[i], bad += U[i] != U2[i];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
