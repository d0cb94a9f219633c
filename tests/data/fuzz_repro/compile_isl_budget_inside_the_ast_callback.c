/* polycu-fuzz seed=1500116 options="" */
/* crash (compile, a segmentation fault): the kernel's placed AST ran out of its isl
   budget inside isl's at_each_domain callback (codegen/ast.py), and the Python error
   crossed the C code, which went on with a null node.  Now kept and raised after isl
   returns: the kernel keeps global memory, with a note. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static unsigned acc0;

void kernel(int n, long m, double alpha0, float A[n][n][4], double B[n - 2][n - 2], unsigned C[1][4], long D[n - 2][n + 1], long E[4], float F[2][6])
{
  int i, j, k;
#pragma scop
  for (i = 1; i < (n - 1); i += 2)
  {
    if ((i >= (i + 1)) || ((i % 3) == 0))
      for (j = i + 1; j <= m; j += 2)
      {
        for (k = n - 2; (k < n) && (k < (n + 2)); k += 1)
          for (unsigned l = n - 3; l <= n; l = l + 2)
          {
            A[l + 1][k - 1][j + 1] += alpha0;
            B[k - 1][l] = A[0][k - 1][l + 3];
          }
      }
    for (j = m - 4; j < m; j += 2)
    {
      for (k = 2 * i; k <= (i + 2); k += 1)
        for (int l = 1; n > l; l += 1)
        {
          if (((k + k) <= (1 + 1)) && (l <= l))
            acc0 = ((C[j % 5][(i + l) + 2] - 7u) - (D[3][k + 2] - E[j + 2])) % 97;
        }
    }
    A[i - 1][0][(i % 2) + 2] = (A[i + 1][(i - i) + 2][i - 1] / (1.0f + fabs(F[i - 1][(i % 5) + 1]))) + (E[i + 2] - (-3.0f));
  }
#pragma endscop
}

int main(void)
{
  static float A[3][3][4];
  static double B[1][1];
  static unsigned C[1][4];
  static long D[1][4];
  static long E[4];
  static float F[2][6];
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 3; i1++) for (int i2 = 0; i2 < 4; i2++) A[i0][i1][i2] = (float) ((15 + 7 * i0 + 1 * i1 + 13 * (i2 - 1)) % 23) * 0.001f;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) B[i0][i1] = (double) ((17 + -5 * i0 + -5 * i1) % 41) * (-0.75);
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 4; i1++) C[i0][i1] = (unsigned) ((-6 + -5 * i0 + 7 * i1) % 61) * 1u;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 4; i1++) D[i0][i1] = (long) ((17 + 7 * i0 + 3 * i1) % 7) * 1L;
  for (int i0 = 0; i0 < 4; i0++) E[i0] = (long) ((-2 + 13 * i0) % 7) * 1000L;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 6; i1++) F[i0][i1] = (float) ((7 + 13 * i0 + 13 * i1) % 41) * 1.0f;
  acc0 = 3u;
  kernel(3, 11L, 0.001, A, B, C, D, E, F);
  printf("@ A float\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 3; i1++) for (int i2 = 0; i2 < 4; i2++) printf("%.9g\n", (double) A[i0][i1][i2]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) printf("%.17g\n", (double) B[i0][i1]);
  printf("@ C unsigned\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 4; i1++) printf("%llu\n", (unsigned long long) C[i0][i1]);
  printf("@ D long\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 4; i1++) printf("%lld\n", (long long) D[i0][i1]);
  printf("@ E long\n");
  for (int i0 = 0; i0 < 4; i0++) printf("%lld\n", (long long) E[i0]);
  printf("@ F float\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 6; i1++) printf("%.9g\n", (double) F[i0][i1]);
  printf("@ acc0 unsigned\n");
  printf("%llu\n", (unsigned long long) acc0);
  return 0;
}
/* polycu-fuzz-program {"seed":1500116,"params":[{"name":"n","type":"int","value":3},{"name":"m","type":"long","value":11}],"arrays":[{"name":"A","type":"float","ndim":3,"kind":"vla","init":{"k":15,"a":[7,1,13],"m":23,"scale":0.001},"pad":[0,0,0]},{"name":"B","type":"double","ndim":2,"kind":"vla","init":{"k":17,"a":[-5,-5],"m":41,"scale":-0.75},"pad":[0,0]},{"name":"C","type":"unsigned","ndim":2,"kind":"fixed","init":{"k":-6,"a":[-5,7],"m":61,"scale":1},"pad":[0,3]},{"name":"D","type":"long","ndim":2,"kind":"vla","init":{"k":17,"a":[7,3],"m":7,"scale":1},"pad":[0,3]},{"name":"E","type":"long","ndim":1,"kind":"fixed","init":{"k":-2,"a":[13],"m":7,"scale":1000},"pad":[0]},{"name":"F","type":"float","ndim":2,"kind":"fixed","init":{"k":7,"a":[13,13],"m":41,"scale":1.0},"pad":[1,3]}],"scalars":[{"name":"alpha0","type":"double","kind":"arg","init":0.001},{"name":"acc0","type":"unsigned","kind":"global","init":3}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",1],"cond":["cmp","<",["var","i"],["bin","-",["var","n"],["num","int",1]]],"step":2,"inc":2,"body":[{"k":"if","cond":["or",["cmp",">=",["var","i"],["bin","+",["var","i"],["num","int",1]]],["cmp","==",["bin","%",["var","i"],["num","int",3]],["num","int",0]]],"then":[{"k":"for","var":"j","type":"int","lb":["bin","+",["var","i"],["num","int",1]],"cond":["cmp","<=",["var","j"],["var","m"]],"step":2,"inc":2,"body":[{"k":"for","var":"k","type":"int","lb":["bin","-",["var","n"],["num","int",2]],"cond":["and",["cmp","<",["var","k"],["var","n"]],["cmp","<",["var","k"],["bin","+",["var","n"],["num","int",2]]]],"step":1,"inc":2,"body":[{"k":"for","var":"l","type":"unsigned","lb":["bin","-",["var","n"],["num","int",3]],"cond":["cmp","<=",["var","l"],["var","n"]],"step":2,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","l"],["num","int",1]],["bin","-",["var","k"],["num","int",1]],["var","j"]]],"op":"+=","rhs":["var","alpha0"]},{"k":"stmt","lhs":["ref","B",[["bin","-",["var","k"],["num","int",1]],["var","l"]]],"op":"=","rhs":["ref","A",[["num","int",0],["bin","-",["var","k"],["num","int",1]],["bin","+",["var","l"],["num","int",2]]]]}]}]}]}],"else":null},{"k":"for","var":"j","type":"int","lb":["bin","-",["var","m"],["num","int",4]],"cond":["cmp","<",["var","j"],["var","m"]],"step":2,"inc":0,"body":[{"k":"for","var":"k","type":"int","lb":["bin","*",["num","int",2],["var","i"]],"cond":["cmp","<=",["var","k"],["bin","+",["var","i"],["num","int",2]]],"step":1,"inc":2,"body":[{"k":"for","var":"l","type":"int","lb":["num","int",1],"cond":["cmp",">",["var","n"],["var","l"]],"step":1,"inc":2,"body":[{"k":"if","cond":["and",["cmp","<=",["bin","+",["var","k"],["var","k"]],["bin","+",["num","int",1],["num","int",1]]],["cmp","<=",["var","l"],["var","l"]]],"then":[{"k":"stmt","lhs":["var","acc0"],"op":"=","rhs":["bin","%",["bin","-",["bin","-",["ref","C",[["bin","%",["var","j"],["num","int",5]],["bin","+",["bin","+",["var","i"],["var","l"]],["num","int",2]]]],["num","unsigned",7]],["bin","-",["ref","D",[["num","int",3],["bin","+",["var","k"],["num","int",2]]]],["ref","E",[["bin","+",["var","j"],["num","int",2]]]]]],["num","int",97]]}],"else":null}]}]}]},{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["num","int",0],["bin","+",["bin","%",["var","i"],["num","int",2]],["num","int",1]]]],"op":"=","rhs":["bin","+",["bin","/",["ref","A",[["bin","+",["var","i"],["num","int",1]],["bin","+",["bin","-",["var","i"],["var","i"]],["num","int",2]],["bin","-",["var","i"],["num","int",2]]]],["bin","+",["num","float",1.0],["call","fabs",[["ref","F",[["bin","-",["var","i"],["num","int",1]],["bin","+",["bin","%",["var","i"],["num","int",5]],["num","int",1]]]]]]]],["bin","-",["ref","E",[["bin","+",["var","i"],["num","int",2]]]],["num","float",-3.0]]]}]}],"options":[],"decl_iters":true} */
