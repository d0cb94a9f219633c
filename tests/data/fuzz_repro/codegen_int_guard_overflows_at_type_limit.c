/* polycu-fuzz seed=5602003 options="--run-on=gpu" */
/* Minimised by hand: j's final value is assigned where n + 2147483645 >= m (j
   stops before INT_MAX); printed in int that sum overflowed, so j kept -123. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

typedef double real;

void kernel(int n, int m, real A[15])
{
  int i = (-122), j = (-123);
#pragma scop
  for (i = n - 1; i > (-1); i -= 2)
  {
    for (j = i + 1; j <= (m - i); ++j)
    {
      A[j] += (i - A[j - 1]) + (7.0 - A[j - 1]);
    }
  }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  static real A[15];
  for (int i0 = 0; i0 < 15; i0++) A[i0] = (real) ((0 + -5 * i0) % 7) * 2.5e-08;
  kernel(10, 12, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 15; i0++) printf("%.17g\n", (real) A[i0]);
  return 0;
}
