/* fuzz seed 5622249 (session 39, the GPU campaign of the conditions on data),
   minimised: the unsigned counter i starts at a long n, and B, a pointer, is sized by
   the largest index the SCoP touches, a maximum over n whose pieces reached n below
   -2^63 and printed -9223372036854775809LL (polycu stopped with an internal error;
   -9223372036854775808LL would also negate an unsigned literal).  The maximum is now
   taken where the parameters are within their types, and LLONG_MIN prints as
   (-9223372036854775807LL - 1). */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef double real;
typedef float real32;
typedef unsigned u32;
typedef long i64;

void kernel(i64 n, int *B, int E[6][5], int F[6])
{
  u32 i = 4294967174u;
#pragma scop
  for (i = n; i <= 5; i++)
  {
    if ((i - 1) && E[i][(3 - 3u) + 3u])
      B[i] = 1;
    else
      F[i] = 1;
  }
#pragma endscop
  printf("@ i unsigned\n");
  printf("%llu\n", (unsigned long long) i);
}

int main(void)
{
  static int B[7];
  static int E[6][5];
  static int F[6];
  for (int i0 = 0; i0 < 7; i0++) B[i0] = (int) ((unsigned long long) ((4 + 1 * i0) % 7) * 1ULL + 65529ULL);
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 5; i1++) E[i0][i1] = (int) ((unsigned long long) ((14 + 7 * i0 + 13 * i1) % 41) * 1ULL + 18446744073709551575ULL);
  for (int i0 = 0; i0 < 6; i0++) F[i0] = (int) ((unsigned long long) ((-15 + 3 * i0) % 41) * 1ULL + 40ULL);
  kernel(0L, B, E, F);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 7; i0++) printf("%lld\n", (long long) B[i0]);
  printf("@ E int\n");
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%lld\n", (long long) E[i0][i1]);
  printf("@ F int\n");
  for (int i0 = 0; i0 < 6; i0++) printf("%lld\n", (long long) F[i0]);
  return 0;
}
