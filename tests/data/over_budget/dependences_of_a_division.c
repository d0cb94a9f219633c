/* polycu-fuzz seed=2800070 (the counters read after the SCoP dropped): its dependences took isl minutes before the budget; polycu emits a located error instead */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int m, int p, double A[24][21], double B[m + 20][m + 1])
{
  int i = (-122), j = (-123), k = (-124);
#pragma scop
  for (i = 0; (i <= m) && (i < p); i += 1)
    for (j = i + 1; j < (p - i); j++)
    {
      if ((j % 3) == 1)
        for (k = 0; k < m; k = k + 2)
        {
          A[(k / 3) + 1][k + 1] += j;
          A[k][j + 1] = B[j + 1][k + 1];
        }
      for (k = 0; k <= p; k++)
        A[k + 1][j] = ((k >= (1 + 1)) ? A[j + 3][MIN(j, m - 1)] : p) + 100000.0;
    }
#pragma endscop
  printf("@ i int\n");
  printf("@ j int\n");
  printf("@ k int\n");
}

int main(void)
{
  static double A[24][21];
  static double B[21][2];
  for (int i0 = 0; i0 < 24; i0++) for (int i1 = 0; i1 < 21; i1++) A[i0][i1] = (double) ((2 + 1 * (i0 - 1) + 13 * i1) % 61) * 0.25;
  for (int i0 = 0; i0 < 21; i0++) for (int i1 = 0; i1 < 2; i1++) B[i0][i1] = (double) ((-4 + 3 * i0 + 13 * i1) % 7) * 0.001;
  kernel(1, 21, A, B);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 24; i0++) for (int i1 = 0; i1 < 21; i1++) printf("%.17g\n", (double) A[i0][i1]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 21; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.17g\n", (double) B[i0][i1]);
  return 0;
}
