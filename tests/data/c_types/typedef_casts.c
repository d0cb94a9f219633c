/* Typedef names of arithmetic types in casts and sizeof, the file's and the C
   library's: the kernels and the CPU reference, which see no typedef, did not build. */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#define N 40
typedef double real;
typedef unsigned short u16;
typedef u16 half_word;
static real A[N];
static u16 B[N];
static int64_t C[N];
void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = (real) i / 3 + (half_word) (i * 5000);
    B[i] = (u16) (A[i] * 1000) + sizeof(real) + sizeof(half_word);
    C[i] = (int64_t) (uint8_t) (i * 37) * (size_t) 100000 - (int32_t) (i * 123456789u);
  }
#pragma endscop
}
int main(void)
{
  kernel(N);
  printf("@ A hex\n"); for (int i = 0; i < N; i++) printf("%a\n", A[i]);
  printf("@ B int\n"); for (int i = 0; i < N; i++) printf("%d\n", B[i]);
  printf("@ C int\n"); for (int i = 0; i < N; i++) printf("%lld\n", (long long) C[i]);
  return 0;
}
