/* A 2-D array of structs whose field c is itself a 2-D array: b[i][j].c[k][l],
   scaled by the struct's own float field w and summed into a field of another
   struct array; b's field 'tag' is never touched by the SCoP and must keep the
   host's values (the whole structs travel). */
#include <stdio.h>
#define N 40
#define K 3
#define L 4

typedef struct { double c[K][L]; float w; int tag; } cell;
struct total { double sum; double last; };

static void kernel(int n, cell b[N][N], struct total r[N])
{
  int i, j, k, l;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < K; k++)
        for (l = 0; l < L; l++)
          b[i][j].c[k][l] = b[i][j].c[k][l] * b[i][j].w + (k - l);
  for (i = 0; i < n; i++) {
    r[i].sum = 0;
    for (j = 0; j < n; j++)
      for (k = 0; k < K; k++)
        r[i].sum += b[i][j].c[k][L - 1 - k];
  }
#pragma endscop
}

static void plain(int n, cell b[N][N], struct total r[N])
{
  int i, j, k, l;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < K; k++)
        for (l = 0; l < L; l++)
          b[i][j].c[k][l] = b[i][j].c[k][l] * b[i][j].w + (k - l);
  for (i = 0; i < n; i++) {
    r[i].sum = 0;
    for (j = 0; j < n; j++)
      for (k = 0; k < K; k++)
        r[i].sum += b[i][j].c[k][L - 1 - k];
  }
}

int main(void)
{
  static cell b[N][N], b2[N][N];
  static struct total r[N], r2[N];
  int i, j, k, l, bad = 0, n = N - 5;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++) {
      for (k = 0; k < K; k++)
        for (l = 0; l < L; l++)
          b[i][j].c[k][l] = b2[i][j].c[k][l] = ((i * 3 + j * 5 + k * 7 + l) % 17) * 0.5 - 4;
      b[i][j].w = b2[i][j].w = 0.25f * ((i + j) % 5);
      b[i][j].tag = b2[i][j].tag = i * 1000 + j;
    }
    r[i].sum = r2[i].sum = -1;
    r[i].last = r2[i].last = 1.0e10 + i;
  }
  kernel(n, b, r);
  plain(n, b2, r2);
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++) {
      for (k = 0; k < K; k++)
        for (l = 0; l < L; l++)
          bad += b[i][j].c[k][l] != b2[i][j].c[k][l];
      bad += (b[i][j].w != b2[i][j].w) + (b[i][j].tag != b2[i][j].tag);
    }
    bad += (r[i].sum != r2[i].sum) + (r[i].last != r2[i].last);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
