/*
 * nussinov - Nussinov's dynamic program for RNA secondary structure:
 * table[i][j] is the largest number of non-crossing base pairs in the
 * subsequence seq[i..j].
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

/* PolyBench/C 4.2.1 computes nussinov on int unless told otherwise;
   keeping that default keeps the dumps comparable. */
#if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) &&     \
    !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_INT
#endif

#include <polybench.h>
#include "nussinov.h"

/* An RNA base coded 0..3 (A, G, C, U); complementary bases sum to 3. */
typedef char base;

/* 1 when the two bases can pair, else 0. */
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
/* The larger score; a macro (not a function) as in the original, so the
   kernel stays a sequence of affine statements. */
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

/* The PolyBench/C 4.2.1 input: seq[i] = (i + 1) mod 4, table all zero. */
static void init_array(int n, base POLYBENCH_1D(seq, N, n),
                       DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    seq[i] = (base)((i + 1) % 4);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

/* Dumps the upper triangle (diagonal included) row by row; line breaks
   count the printed entries. */
static void print_array(int n, DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;
  int t = 0;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("table");
  for (i = 0; i < n; i++)
    for (j = i; j < n; j++)
      {
        if (t % 20 == 0)
          fprintf(POLYBENCH_DUMP_TARGET, "\n");
        fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, table[i][j]);
        t++;
      }
  POLYBENCH_DUMP_END("table");
  POLYBENCH_DUMP_FINISH;
}

/* Rows bottom-up, columns left to right, so that every sub-interval is
   final before it is used: leave i or j unpaired, pair i with j (only if
   they are not adjacent), or split the interval at k. */
static void kernel_nussinov(int n, base POLYBENCH_1D(seq, N, n),
                            DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = _PB_N - 1; i >= 0; i--)
    for (j = i + 1; j < _PB_N; j++)
      {
        if (j - 1 >= 0)
          table[i][j] = max_score(table[i][j], table[i][j - 1]);
        if (i + 1 < _PB_N)
          table[i][j] = max_score(table[i][j], table[i + 1][j]);
        if (j - 1 >= 0 && i + 1 < _PB_N)
          {
            if (i < j - 1)
              table[i][j] = max_score(table[i][j],
                                      table[i + 1][j - 1]
                                        + match(seq[i], seq[j]));
            else
              table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
          }
        for (k = i + 1; k < j; k++)
          table[i][j] = max_score(table[i][j],
                                  table[i][k] + table[k + 1][j]);
      }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_1D_ARRAY_DECL(seq, base, N, n);
  POLYBENCH_2D_ARRAY_DECL(table, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));

  polybench_start_instruments;
  kernel_nussinov(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(table)));

  POLYBENCH_FREE_ARRAY(seq);
  POLYBENCH_FREE_ARRAY(table);
  return 0;
}
