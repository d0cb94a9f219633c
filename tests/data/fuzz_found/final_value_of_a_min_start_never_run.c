/* polycu-fuzz seed=3700063 options="--tile-size 2", minimised.  k starts at
   MIN(n - 1, i + 1) (unsigned n, converted to int) and its loop runs no iteration
   at i = p: C leaves k at n - 1.  The initial value was modelled over the counter's
   own space, where the conversion split it by k's range; projecting k out gave both
   n - 1 and i + 1 at the last i, and the final value took i + 1 (6 instead of 4). */
#include <stdio.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))

void kernel(unsigned n, int p, double A[8])
{
  int i = -1, k = -2;
#pragma scop
  for (i = 0; i <= p; ++i)
    for (k = MIN(n - 1, i + 1); k >= i; k -= 1)
      A[k] += 1.0;
#pragma endscop
  printf("@ i int\n%d\n@ k int\n%d\n", i, k);
}

int main(void)
{
  static double A[8];
  for (int i0 = 0; i0 < 8; i0++) A[i0] = (double) (3 * i0 - 7);
  kernel(5u, 5, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 8; i0++) printf("%.17g\n", A[i0]);
  return 0;
}
