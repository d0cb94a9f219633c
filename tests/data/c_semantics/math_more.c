#include <math.h>
#include <stdio.h>
void f(double a[6], float x[6], long l[6], int k[6])
{
#pragma scop
  for (int i = 0; i < 6; i++) {
    a[i] = remainder(a[i], 3.0) + fdim(a[i], 1.0) + ldexp(a[i], i) + tgamma(i + 1.5) + asinh(a[i])
           + rint(a[i] * 0.5) + logb(a[i] + 100.0);
    x[i] = nearbyintf(x[i] * 3.5f) + nextafterf(x[i], 0.0f) + scalbnf(x[i], 2);
    l[i] = lround(a[i] * 2.5) + llrint(x[i] * 2.0f);
    k[i] = ilogb(a[i] + 1000.0) + ilogbf(x[i] + 0.5f);
  }
#pragma endscop
}
int main(void)
{
  double a[6] = {-10.25, -2.5, 0.5, 2.5, 7.75, 1e3};
  float x[6] = {-4.5f, -0.25f, 0.0f, 0.75f, 2.5f, 9.0f};
  long l[6];
  int k[6];
  f(a, x, l, k);
  for (int i = 0; i < 6; i++)
    printf("%.17g %.9g %ld %d\n", a[i], x[i], l[i], k[i]);
  return 0;
}
