/* One counter for several loops: the last loop that runs leaves its value.  The
   second loop runs only when m > 0 and counts down by 3 to a MAX bound; the third
   is guarded by an 'if' on both parameters and bounded by a MIN. */
#include <stdio.h>
#define N 200
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static long kernel(int n, int m, double A[N], double B[N])
{
  int i = -1, k = -2;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] + 1;
  if (m > 0)
    for (i = n - 1; i >= MAX(m, 2); i -= 3)
      B[i] = A[i] * 2;
  for (k = 0; k < MIN(n, m); k++)
    if (n > 10 && m < 50)
      for (i = k; i < MIN(n, 2 * k); i++)
        A[i] += B[k];
#pragma endscop
  return (long) i * 1000 + k;
}

static long plain(int n, int m, double A[N], double B[N])
{
  int i = -1, k = -2;
  for (i = 0; i < n; i++)
    A[i] = B[i] + 1;
  if (m > 0)
    for (i = n - 1; i >= MAX(m, 2); i -= 3)
      B[i] = A[i] * 2;
  for (k = 0; k < MIN(n, m); k++)
    if (n > 10 && m < 50)
      for (i = k; i < MIN(n, 2 * k); i++)
        A[i] += B[k];
  return (long) i * 1000 + k;
}

int main(void)
{
  static double A[N], B[N], A2[N], B2[N];
  int sizes[][2] = {{150, 40}, {150, 60}, {0, 0}, {5, 0}, {5, 3}, {12, -4}, {1, 1}, {11, 11}};
  int i, k, bad = 0;
  for (k = 0; k < 8; k++) {
    for (i = 0; i < N; i++) {
      A[i] = A2[i] = i * 0.25;
      B[i] = B2[i] = (i % 7) - 3;
    }
    bad += kernel(sizes[k][0], sizes[k][1], A, B) != plain(sizes[k][0], sizes[k][1], A2, B2);
    for (i = 0; i < N; i++)
      bad += (A[i] != A2[i]) + (B[i] != B2[i]);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
