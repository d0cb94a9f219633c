/* A for loop with data-dependent bounds: sparse matrix times vector in CSR form.
   Row i runs k from row[i] to row[i + 1] (empty rows run zero times) and reads
   x[col[k]], an indirect subscript, which the model takes as any element of x.
   Each row writes only y[i]: the rows run in parallel. */
#include <stdio.h>
#define N 200
#define NNZ 4000

static void kernel(int n, int row[N + 1], int col[NNZ], double val[NNZ], double x[N],
                   double y[N])
{
  int i, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++) {
    s = 0.0;
    for (k = row[i]; k < row[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
#pragma endscop
}

static void plain(int n, int row[N + 1], int col[NNZ], double val[NNZ], double x[N],
                  double y[N])
{
  int i, k;
  double s;
  for (i = 0; i < n; i++) {
    s = 0.0;
    for (k = row[i]; k < row[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}

int main(void)
{
  static int row[N + 1], col[NNZ];
  static double val[NNZ], x[N], y[N], y2[N];
  int i, k, bad = 0, n = N, count = 0;
  for (i = 0; i < N; i++) {
    row[i] = count;
    count += (i % 7 == 3) ? 0 : (i * 13) % 37;      /* some rows are empty */
    x[i] = 1.0 + (i % 11) * 0.25;
    y[i] = y2[i] = -5.0;
  }
  row[N] = count;
  for (k = 0; k < count; k++) {
    col[k] = (k * 31 + 7) % N;
    val[k] = (k % 9) - 4.5;
  }
  kernel(n, row, col, val, x, y);
  plain(n, row, col, val, x, y2);
  for (i = 0; i < N; i++)
    bad += y[i] != y2[i];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
