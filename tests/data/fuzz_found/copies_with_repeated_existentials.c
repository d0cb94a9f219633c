/* polycu-fuzz seed=4700234: with --run-on gpu, the copies of A's shared tile had
   domains with a dozen copies of one unnamed existential (the parity of a loop
   counting down by 2); isl's AST builder spent minutes on them under its operation
   budget.  codegen/ast.py now names them (compute_divs): 2 s. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef double real;
typedef float real32;
typedef unsigned u32;
typedef long i64;

void kernel(int n, real A[8][8])
{
  int i = (-122), j = (-123), k = (-124);
#pragma scop
  for (i = n - 1; i >= 0; i = i - 2)
    for (j = n - 1; j >= MAX(0, i - 2); j--)
      for (k = 6; k > (-1); k -= 1)
        A[j + 3][k] = A[i][(k / 3) + 1];
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
  printf("@ k int\n");
  printf("%lld\n", (long long) k);
}

int main(void)
{
  static real A[8][8];
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 8; i1++) A[i0][i1] = (real) ((1 + 3 * (i0 - 2) + 13 * (i1 - 1)) % 23) * 2.5e-08;
  kernel(5, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 8; i1++) printf("%.17g\n", (real) A[i0][i1]);
  return 0;
}
