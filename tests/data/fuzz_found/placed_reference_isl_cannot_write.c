/* polycu-fuzz seed=5500195 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(long n, int m, double alpha0, double A[m + 2][m + 5], double B[11][6], double C[6][10])
{
#pragma scop
  for (unsigned i = 0; i <= (m + 1); i++)
  {
    for (int j = 0; j <= (m + 1); j += 1)
    {
      A[i][(j - 3u) + 3u] *= alpha0;
      for (int k = 0; k < (n + 1); ++k)
        A[i][(j - 3u) + 3u] = A[i][(j - 3u) + 3u] + (B[i][(k - 3u) + 3u] * C[k][(j - 3u) + 3u]);
    }
  }
#pragma endscop
}

int main(void)
{
  static double A[10][13];
  static double B[11][6];
  static double C[6][10];
  for (int i0 = 0; i0 < 10; i0++) for (int i1 = 0; i1 < 13; i1++) A[i0][i1] = (double) ((19 + -5 * i0 + 1 * i1) % 61) * 1000.0;
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 6; i1++) B[i0][i1] = (double) ((16 + 1 * i0 + 13 * i1) % 23) * 0.25;
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 10; i1++) C[i0][i1] = (double) ((19 + 1 * i0 + 1 * i1) % 23) * 0.001;
  kernel(5L, 8, 0.1, A, B, C);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 10; i0++) for (int i1 = 0; i1 < 13; i1++) printf("%.17g\n", (double) A[i0][i1]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 6; i1++) printf("%.17g\n", (double) B[i0][i1]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 10; i1++) printf("%.17g\n", (double) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":5500195,"params":[{"name":"n","type":"long","value":5},{"name":"m","type":"int","value":8}],"arrays":[{"name":"A","type":"double","ndim":2,"kind":"vla","init":{"k":19,"a":[-5,1],"m":61,"scale":1000.0},"pad":[0,3]},{"name":"B","type":"double","ndim":2,"kind":"fixed","init":{"k":16,"a":[1,13],"m":23,"scale":0.25},"pad":[1,0]},{"name":"C","type":"double","ndim":2,"kind":"fixed","init":{"k":19,"a":[1,1],"m":23,"scale":0.001},"pad":[0,0]}],"scalars":[{"name":"alpha0","type":"double","kind":"arg","init":0.1}],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["bin","+",["var","m"],["num","int",1]]],"step":1,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","j"],["bin","+",["var","m"],["num","int",1]]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","j"]]],"op":"*=","rhs":["var","alpha0"]},{"k":"for","var":"k","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","k"],["bin","+",["var","n"],["num","int",1]]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","j"]]],"op":"=","rhs":["bin","+",["ref","A",[["var","i"],["var","j"]]],["bin","*",["ref","B",[["var","i"],["var","k"]]],["ref","C",[["var","k"],["var","j"]]]]]}]}]}]}],"options":[],"decl_iters":false} */
