#include <stdio.h>
#include <stdlib.h>
void f(int n, long A[8], int B[8])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = sizeof('a') * i + sizeof(L'b');   /* C: 'a' is an int, 4 bytes; C++: 1 */
    B[i] = abs('0' - 'a' + i) + ('z' > i ? 'z' : i);
  }
#pragma endscop
}
int main(void)
{
  long A[8];
  int B[8];
  f(8, A, B);
  for (int k = 0; k < 8; k++)
    printf("%ld %d\n", A[k], B[k]);
  return 0;
}
