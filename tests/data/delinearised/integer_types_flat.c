/* Flat buffers indexed with size_t counters and strides (arithmetic modulo 2^64, as
   the address), rows in reverse ((n - 1 - i) * n: an n * n term), unsigned short
   offsets (promoted to int) and integer elements that wrap. */
#include <stdio.h>
#include <stdlib.h>

void flip(size_t n, size_t m, unsigned short off, int *X, unsigned *Y, long *Z)
{
#pragma scop
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      Y[i * m + j] = (unsigned) X[(n - 1 - i) * m + j] * 2654435761u + Y[i * m + j];
  for (int i = 0; i < (int) n; i++)
    for (int j = off; j < (int) m; j++)
      Z[i * (long) m + j - off] += (long) X[m * i + j] * -3;
#pragma endscop
}

int main(void)
{
  size_t n = 21, m = 17;
  int *X = malloc(sizeof(int) * n * m);
  unsigned *Y = malloc(sizeof(unsigned) * n * m);
  long *Z = malloc(sizeof(long) * n * m);
  for (size_t k = 0; k < n * m; k++) {
    X[k] = (int) (k * 2147483u) - 1000000000;
    Y[k] = (unsigned) k * 40503u;
    Z[k] = (long) k * -9000000001L;
  }
  flip(n, m, 2, X, Y, Z);
  for (size_t k = 0; k < n * m; k++) printf("%d %u %ld\n", X[k], Y[k], Z[k]);
  free(X); free(Y); free(Z);
  return 0;
}
