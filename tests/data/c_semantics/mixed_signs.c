#include <stdio.h>
void f(unsigned n, int A[10], double B[10])
{
#pragma scop
  for (int i = 0; i < 10; i++)
    if (i - 3 < n)                  /* i - 3 converts to unsigned: huge for i < 3 */
      A[i] = 7;
  for (unsigned j = 0; j < 10; j++)
    B[j] = j - 5;                   /* unsigned arithmetic: 2^32 - 5 for j = 0 */
#pragma endscop
}
int main(void)
{
  int A[10] = {0};
  double B[10];
  f(5u, A, B);
  for (int k = 0; k < 10; k++)
    printf("%d %.17g\n", A[k], B[k]);
  return 0;
}
