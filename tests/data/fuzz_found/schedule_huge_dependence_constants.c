/* polycu-fuzz seed=3400172: the dependences of an unsigned k = n - 2 .. n hold
   i = 2147483647 and k <= 4294967294, and isl's scheduler ran for minutes on them;
   scheduled under a representative context now (schedule/isl_scheduler.py). */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int A[6][5], int B[5][8], int C[9][4])
{
  int i = (-122);
  double s0 = 3.0;
#pragma scop
  for (i = 1; i < n; i += 2)
  {
    for (long j = 6 - 1; j >= 0; j -= 1)
      for (unsigned k = n - 2; k <= n; k++)
        A[j][k + 1] += B[j % 5][0];
    for (long j = i + 1; j <= 6; j += 1)
      for (int k = 0; k < 1; k = k + 3)
        C[j - 1][k] = B[2][(j + k) + 1];
    s0 += 0.5;
  }
  for (i = n - 1; i >= 1; i -= 1)
  {
    for (int j = MIN(n - 1, i + 2); j > i; --j)
      for (int k = 0; k < n; k += 2)
        A[j + 1][k + 1] += C[2][j - 1];
  }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
}

int main(void)
{
  static int A[6][5];
  static int B[5][8];
  static int C[9][4];
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 5; i1++) A[i0][i1] = (int) ((13 + 3 * i0 + 3 * i1) % 7) * 1;
  for (int i0 = 0; i0 < 5; i0++) for (int i1 = 0; i1 < 8; i1++) B[i0][i1] = (int) ((5 + 3 * i0 + -5 * i1) % 23) * 1000;
  for (int i0 = 0; i0 < 9; i0++) for (int i1 = 0; i1 < 4; i1++) C[i0][i1] = (int) ((-8 + 13 * i0 + 3 * i1) % 7) * 1000;
  kernel(2, A, B, C);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%lld\n", (long long) A[i0][i1]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 5; i0++) for (int i1 = 0; i1 < 8; i1++) printf("%lld\n", (long long) B[i0][i1]);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 9; i0++) for (int i1 = 0; i1 < 4; i1++) printf("%lld\n", (long long) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":3400172,"params":[{"name":"n","type":"int","value":2}],"arrays":[{"name":"A","type":"int","ndim":2,"kind":"fixed","init":{"k":13,"a":[3,3],"m":7,"scale":1},"pad":[0,1]},{"name":"B","type":"int","ndim":2,"kind":"fixed","init":{"k":5,"a":[3,-5],"m":23,"scale":1000},"pad":[0,0]},{"name":"C","type":"int","ndim":2,"kind":"fixed","init":{"k":-8,"a":[13,3],"m":7,"scale":1000},"pad":[3,3]}],"scalars":[{"name":"s0","type":"double","kind":"local","init":3.0}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",1],"cond":["cmp","<",["var","i"],["var","n"]],"step":2,"inc":2,"body":[{"k":"for","var":"j","type":"long","lb":["bin","-",["num","int",6],["num","int",1]],"cond":["cmp",">=",["var","j"],["num","int",0]],"step":-1,"inc":2,"body":[{"k":"for","var":"k","type":"unsigned","lb":["bin","-",["var","n"],["num","int",2]],"cond":["cmp","<=",["var","k"],["var","n"]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["var","j"],["bin","+",["var","k"],["num","int",1]]]],"op":"+=","rhs":["ref","B",[["bin","%",["var","j"],["num","int",5]],["num","int",0]]]}]}]},{"k":"for","var":"j","type":"long","lb":["bin","+",["var","i"],["num","int",1]],"cond":["cmp","<=",["var","j"],["num","int",6]],"step":1,"inc":2,"body":[{"k":"for","var":"k","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","k"],["num","int",1]],"step":3,"inc":1,"body":[{"k":"stmt","lhs":["ref","C",[["bin","-",["var","j"],["num","int",1]],["var","k"]]],"op":"=","rhs":["ref","B",[["num","int",2],["bin","+",["bin","+",["var","j"],["var","k"]],["num","int",1]]]]}]}]},{"k":"stmt","lhs":["var","s0"],"op":"+=","rhs":["num","double",0.5]}]},{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","i"],["num","int",1]],"step":-1,"inc":2,"body":[{"k":"for","var":"j","type":"int","lb":["min",["bin","-",["var","n"],["num","int",1]],["bin","+",["var","i"],["num","int",2]]],"cond":["cmp",">",["var","j"],["var","i"]],"step":-1,"inc":1,"body":[{"k":"for","var":"k","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","k"],["var","n"]],"step":2,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","j"],["num","int",1]],["bin","+",["var","k"],["num","int",1]]]],"op":"+=","rhs":["ref","C",[["num","int",2],["bin","-",["var","j"],["num","int",1]]]]}]}]}]}],"options":["--tile-size","5"],"decl_iters":true} */
