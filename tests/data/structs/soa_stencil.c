/* A struct of arrays (SoA): a global grid whose fields u and v are arrays, a
   Jacobi-like stencil over time steps (u -> v -> u), and the scalar field 'scale'
   read in the SCoP; the field 'steps_done' is written as a scalar. */
#include <stdio.h>
#define N 500
#define T 20

struct grid { double u[N]; double v[N]; double scale; int steps_done; };
struct grid g, h;

static void kernel(int n, int tsteps)
{
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      g.v[i] = g.scale * (g.u[i - 1] + g.u[i] + g.u[i + 1]);
    for (i = 1; i < n - 1; i++)
      g.u[i] = g.scale * (g.v[i - 1] + g.v[i] + g.v[i + 1]);
  }
  g.steps_done = tsteps;
#pragma endscop
}

static void plain(int n, int tsteps)
{
  int t, i;
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      h.v[i] = h.scale * (h.u[i - 1] + h.u[i] + h.u[i + 1]);
    for (i = 1; i < n - 1; i++)
      h.u[i] = h.scale * (h.v[i - 1] + h.v[i] + h.v[i + 1]);
  }
  h.steps_done = tsteps;
}

int main(void)
{
  int i, bad = 0, n = N - 3;
  for (i = 0; i < N; i++) {
    g.u[i] = h.u[i] = ((i * 7919) % 1001 - 500) * 0.01;
    g.v[i] = h.v[i] = -1.0e6 - i;
  }
  g.scale = h.scale = 1.0 / 3.0;
  g.steps_done = h.steps_done = -1;
  kernel(n, T);
  plain(n, T);
  for (i = 0; i < N; i++)
    bad += (g.u[i] != h.u[i]) + (g.v[i] != h.v[i]);
  bad += (g.steps_done != h.steps_done) + (g.scale != h.scale);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
