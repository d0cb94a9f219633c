#include <math.h>
#include <stdio.h>
#include <stdlib.h>
void f(float x[4], double d[4], double z[4], int w[4], double r[4])
{
#pragma scop
  for (int i = 0; i < 4; i++) {
    z[i] = exp(x[i]);               /* C: the double exp, even for a float argument */
    w[i] = abs(d[i]);               /* C: int abs, d truncated */
    r[i] = sqrt(i) + fabsf(d[i]);   /* int to double; double to float */
  }
#pragma endscop
}
int main(void)
{
  float x[4] = {100.0f, -3.5f, 88.75f, 1.0f};
  double d[4] = {-2.7, 3.9, -1e9, 0.5}, z[4], r[4];
  int w[4];
  f(x, d, z, w, r);
  for (int k = 0; k < 4; k++)
    printf("%.17g %d %.9g\n", z[k], w[k], r[k]);
  return 0;
}
