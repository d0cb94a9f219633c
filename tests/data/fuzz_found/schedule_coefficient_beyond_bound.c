/* polycu-fuzz seed=3400210 options="" */
/* Reduced by hand.  The unsigned k wraps modulo 2^32 in the model, and isl's step
   that carries dependences (which schedule_max_coefficient does not bound) met it
   with S[i, j, k] -> [13204693752377389598923991723 i - 4294967296 j + k, i, j].
   Mapping that schedule took isl over 200 s (isl_set_dim_max, isl_pw_aff_min_val
   and gist_params on launch sets with these coefficients, gpu/mapping.py), and its
   values overflow 64 bits.  Such a schedule is now refused like a failure of isl
   (schedule/isl_scheduler.py, bounded): about 4 s. */
#include <stdio.h>

void kernel(int n, double B[8])
{
#pragma scop
  for (int i = 0; i < n + 2; i += 3)
    for (long j = n - 1; j >= 1; j--)
      for (unsigned k = j + 1; k <= n; k += 1)
        B[k + 1] += B[(k + 1) - 1];
#pragma endscop
}

int main(void)
{
  static double B[8];
  for (int i0 = 0; i0 < 8; i0++) B[i0] = (double) ((-8 + 7 * i0) % 41) * 2.5e-08;
  kernel(5, B);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 8; i0++) printf("%.17g\n", (double) B[i0]);
  return 0;
}
