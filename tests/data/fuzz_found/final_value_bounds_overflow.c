/* polycu-fuzz seed=3200073: the final value of the int counter j, whose loops never run
   at n = 9, m = 0 (j ends at the last i, 9).  The printed formula held conditions
   such as n + 9223372036854775806 >= m (long long bounds of the counter): a signed
   overflow, after which the emulated build took another branch (j = 3).  The
   bounds of a signed counter are now its own type's. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, long m, double A[2][2], float B[n - 8][n - 7], float C[2][1])
{
  long i = (-122L);
  int j = (-123);
#pragma scop
  for (i = 0; i <= n; ++i)
    for (j = i; j < m; j = j + 3)
    {
      A[i][j] -= A[i + 2][(i - i) + 1];
      B[i][j] += C[i - 2][((int) j)];
    }
#pragma endscop
  printf("@ i long\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  static double A[2][2];
  static float B[1][2];
  static float C[2][1];
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) A[i0][i1] = (double) ((18 + -5 * i0 + -5 * i1) % 41) * 2.5e-08;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) B[i0][i1] = (float) ((15 + 13 * i0 + 7 * i1) % 61) * (-0.75f);
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 1; i1++) C[i0][i1] = (float) ((-6 + 13 * i0 + 3 * i1) % 23) * 15000000.0f;
  kernel(9, 0L, A, B, C);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.17g\n", (double) A[i0][i1]);
  printf("@ B float\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.9g\n", (double) B[i0][i1]);
  printf("@ C float\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 1; i1++) printf("%.9g\n", (double) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":3200073,"params":[{"name":"n","type":"int","value":9},{"name":"m","type":"long","value":0}],"arrays":[{"name":"A","type":"double","ndim":2,"kind":"fixed","init":{"k":18,"a":[-5,-5],"m":41,"scale":2.5e-08},"pad":[1,1]},{"name":"B","type":"float","ndim":2,"kind":"vla","init":{"k":15,"a":[13,7],"m":61,"scale":-0.75},"pad":[0,1]},{"name":"C","type":"float","ndim":2,"kind":"fixed","init":{"k":-6,"a":[13,3],"m":23,"scale":15000000.0},"pad":[1,0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"long","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["var","n"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["var","i"],"cond":["cmp","<",["var","j"],["var","m"]],"step":3,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","j"]]],"op":"-=","rhs":["ref","A",[["bin","+",["var","i"],["num","int",2]],["bin","+",["bin","-",["var","i"],["var","i"]],["num","int",1]]]]},{"k":"stmt","lhs":["ref","B",[["var","i"],["var","j"]]],"op":"+=","rhs":["ref","C",[["bin","-",["var","i"],["num","int",2]],["cast","int",["var","j"]]]]}]}]}],"options":[],"decl_iters":true} */
