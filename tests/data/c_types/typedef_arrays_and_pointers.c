/* Typedef names of array and pointer types: 'P[i][k]' uses 2 of 1 subscripts and
   'out[i]' uses 1 of 0 were rejected; a typedef is the same type (C11 6.7.8). */
#include <stdio.h>
#define N 30
typedef double vec3[3];
typedef vec3 mat3[3];
typedef float *fptr;
struct cell { double v; int k; };
typedef struct cell *cellp;
typedef double real;
typedef real *rptr;
static vec3 P[N];
static mat3 M;
void kernel(int n, fptr w, cellp c, rptr out)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    out[i] = c[i].v * c[i].k;
    for (k = 0; k < 3; k++) {
      out[i] += P[i][k] * w[k];
      for (j = 0; j < 3; j++)
        out[i] += M[k][j] * P[i][j] * 0.5;
    }
  }
#pragma endscop
}
int main(void)
{
  static float w[3] = {0.5f, 1.5f, -2.0f};
  static struct cell c[N];
  static double out[N];
  for (int i = 0; i < N; i++) {
    c[i].v = i * 0.75 - 4; c[i].k = i % 4 - 1;
    for (int k = 0; k < 3; k++) P[i][k] = i * 0.25 - k;
  }
  for (int k = 0; k < 3; k++) for (int j = 0; j < 3; j++) M[k][j] = k - 2 * j;
  kernel(N, w, c, out);
  printf("@ out hex\n"); for (int i = 0; i < N; i++) printf("%a\n", out[i]);
  return 0;
}
