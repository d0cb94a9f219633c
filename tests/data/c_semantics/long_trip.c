/* A trip count above 2^32 (issue 10, point 1): as an int, n = 2^32 + 5 becomes 5. */
#include <stdio.h>
#include <stdlib.h>
void fill(long n, char *B)
{
#pragma scop
  for (long i = 0; i < n; i++)
    B[i] = 1;
#pragma endscop
}
int main(void)
{
  long n = 4294967301L;
  char *B = calloc(n, 1);
  if (!B)
    return 2;
  fill(n, B);
  long count = 0;
  for (long i = 0; i < n; i++)
    count += B[i];
  printf("%ld\n", count);
  free(B);
  return 0;
}
