#include <stdio.h>
void f(double A[20], double B[20])
{
#pragma scop
  for (int i = 0; i < 20; i++)
    if ((unsigned)(i - 3) < 4u)
      A[i] = B[i] + 1;
#pragma endscop
}
int main(void)
{
  double A[20] = {0}, B[20];
  for (int k = 0; k < 20; k++)
    B[k] = k;
  f(A, B);
  for (int k = 0; k < 20; k++)
    printf("%g\n", A[k]);
  return 0;
}
