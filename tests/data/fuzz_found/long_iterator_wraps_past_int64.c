/* The differential tester's seed 2500034, reduced: a long iterator i < m (an int)
   and an unsigned j <= i.  For impossible values of m (beyond 2^63) the model has
   dependences that wrap i past 2^63 - 1; with no bound on schedule coefficients
   isl met them with i + (2^63 - 1) * t, and the loop bounds of the generated code
   overflowed 64-bit arithmetic (A's diagonal was divided too few times). */
#include <stdio.h>

void kernel(int m, int tsteps, unsigned A[5][5])
{
  long i;
  unsigned j;
  int t;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 0; i < m; ++i)
      for (j = 0; j <= i; j += 1)
        A[j + 1][j + 1] /= 7;
#pragma endscop
}

int main(void)
{
  static unsigned A[5][5];
  for (int i0 = 0; i0 < 5; i0++)
    for (int i1 = 0; i1 < 5; i1++)
      A[i0][i1] = 4000000000u - (unsigned) (977 * i0 + 131 * i1);
  kernel(4, 3, A);
  for (int i0 = 0; i0 < 5; i0++)
    for (int i1 = 0; i1 < 5; i1++)
      printf("%u\n", A[i0][i1]);
  return 0;
}
