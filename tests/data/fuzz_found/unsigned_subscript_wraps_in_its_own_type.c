/* polycu-fuzz seed=4800140, rewritten by hand: C[i][(j - u) + 2u] with an unsigned
   u.  C evaluates the subscript in unsigned arithmetic, which wraps back into the
   row; the linearised index i * 8 + (j - u) + 2u added the 2 in long long after
   (j - u) had become 2^32 - 2, and wrote 32 GB past the array (tests run it on the
   GPU side with --run-on gpu: test_c_semantics). */
#include <stdio.h>

static double A[6][8], B[6][8], C[6][8];

void kernel(int n, unsigned u)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 8; j++) {
      A[i][j / 2] += B[i][j];
      C[i][(j - u) + 2u] = B[i][j / 2 + 1 - 1] * 2.0;
    }
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++) {
      A[i][j] = i + 0.5 * j;
      B[i][j] = 3 * i - j;
      C[i][j] = -1;
    }
  kernel(6, 2u);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++)
      printf("%g %g\n", A[i][j], C[i][j]);
  return 0;
}
