#include <stdio.h>
void f(long n, long A[8], double B[8])
{
#pragma scop
  for (long i = n - 8; i < n; i++) {
    A[i - (n - 8)] = i;
    B[i - (n - 8)] = i / 3;
  }
#pragma endscop
}
int main(void)
{
  long A[8];
  double B[8];
  f(4294967301L, A, B);  /* 2^32 + 5: as an int it would be 5 */
  for (int k = 0; k < 8; k++)
    printf("%ld %.17g\n", A[k], B[k]);
  return 0;
}
