/* Both branches, and an 'else if' chain: each instance runs exactly one branch,
   every write of the statement is a may-write. */
#include <stdio.h>
#include <math.h>
#define N 256

static void kernel(int n, double A[N], double C[N], double B[N], double D[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] >= 0.5 * C[i])
      B[i] = A[i] - C[i];
    else
      B[i] = C[i] * 2;
  for (i = 0; i < n; i++)
    if (fabs(A[i]) > 5.0e8) {
      D[i] = -A[i];
    } else if (A[i] < 0 || C[i] < 0) {
      D[i] = A[i] * C[i];
    } else {
      D[i] += 1;
    }
#pragma endscop
}

static void plain(int n, double A[N], double C[N], double B[N], double D[N])
{
  int i;
  for (i = 0; i < n; i++)
    if (A[i] >= 0.5 * C[i])
      B[i] = A[i] - C[i];
    else
      B[i] = C[i] * 2;
  for (i = 0; i < n; i++)
    if (fabs(A[i]) > 5.0e8) {
      D[i] = -A[i];
    } else if (A[i] < 0 || C[i] < 0) {
      D[i] = A[i] * C[i];
    } else {
      D[i] += 1;
    }
}

int main(void)
{
  static double A[N], C[N], B[N], D[N], B2[N], D2[N];
  int i, bad = 0, n = N - 5;
  for (i = 0; i < N; i++) {
    A[i] = ((i * 4001) % 1999 - 999) * 1.0e6 - 0.5;
    C[i] = ((i * 613) % 97 - 48) * 3.0e7;
    B[i] = B2[i] = -7.0;
    D[i] = D2[i] = 1.0e15 + i;
  }
  kernel(n, A, C, B, D);
  plain(n, A, C, B2, D2);
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (D[i] != D2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
