/* A 2-D stencil over a flat buffer (rows i - 1 and i + 1, columns j - 1 and j + 1)
   and a 3-D volume addressed both as (i * ny + j) * nz + k and as i * ny * nz + j * nz
   + k, with long sizes: the rows are exact only inside each row, which holds here. */
#include <stdio.h>
#include <stdlib.h>

void smooth(long ny, long nx, long nz, int steps, float *U, float *V, double *W, double *P)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (long i = 1; i < ny - 1; i++)
      for (long j = 1; j < nx - 1; j++)
        V[i * nx + j] = 0.2f * (U[i * nx + j] + U[(i - 1) * nx + j] + U[(i + 1) * nx + j]
                                + U[i * nx + j - 1] + U[i * nx + (j + 1)]);
    for (long i = 1; i < ny - 1; i++)
      for (long j = 1; j < nx - 1; j++)
        U[i * nx + j] = V[i * nx + j];
  }
  for (long i = 0; i < ny; i++)
    for (long j = 0; j < nx; j++)
      for (long k = 1; k < nz; k++)
        W[(i * nx + j) * nz + k] += W[i * nx * nz + j * nz + k - 1] * P[j * nz + k];
#pragma endscop
}

int main(void)
{
  long ny = 19, nx = 23, nz = 7;
  float *U = malloc(sizeof(float) * ny * nx), *V = malloc(sizeof(float) * ny * nx);
  double *W = malloc(sizeof(double) * ny * nx * nz), *P = malloc(sizeof(double) * nx * nz);
  for (long i = 0; i < ny * nx; i++) { U[i] = (float) ((i * 37) % 101) / 7; V[i] = -1; }
  for (long i = 0; i < ny * nx * nz; i++) W[i] = ((i * 3) % 19) * 0.125 - 1;
  for (long i = 0; i < nx * nz; i++) P[i] = ((i * 11) % 7) * 0.25 - 0.5;
  smooth(ny, nx, nz, 4, U, V, W, P);
  for (long i = 0; i < ny * nx; i++) printf("%.9g %.9g\n", (double) U[i], (double) V[i]);
  for (long i = 0; i < ny * nx * nz; i++) printf("%.17g\n", W[i]);
  free(U); free(V); free(W); free(P);
  return 0;
}
