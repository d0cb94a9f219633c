/* polycu-fuzz seed=1037 options="" */
/* timeout: polycu compile does not finish (over 120 s): isl's compute_schedule
   (schedule/isl_scheduler.py:isl_schedule) runs on although the operation budget is 20M; the domain
   of the unsigned loop carries the wrap-around disjunct `3 <= j <= 4294967296 + m and (j <= m or
   (-2147483648 <= m < 0))` (seed 1037, run B) */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int m, float A[m][m])
{
  double s0 = 0.0;
#pragma scop
  for (int i = 0; i <= n; ++i)
    for (unsigned j = 3; j <= m; ++j)
      s0 = A[i][n] * A[1][m - i];
#pragma endscop
}

int main(void)
{
  static float A[1][1];
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) A[i0][i1] = (float) ((11 + 13 * i0 + 13 * i1) % 7) * 1000.0f;
  kernel(9, 1, A);
  printf("@ A float\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) printf("%.9g\n", (double) A[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":1037,"params":[{"name":"n","type":"int","value":9},{"name":"m","type":"int","value":1}],"arrays":[{"name":"A","type":"float","ndim":2,"kind":"vla","init":{"k":11,"a":[13,13],"m":7,"scale":1000.0},"pad":[0,0]}],"scalars":[{"name":"s0","type":"double","kind":"local","init":0.0}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["var","n"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"unsigned","lb":["num","int",3],"cond":["cmp","<=",["var","j"],["var","m"]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["var","s0"],"op":"=","rhs":["bin","*",["ref","A",[["var","i"],["var","n"]]],["ref","A",[["num","int",1],["bin","-",["var","m"],["var","i"]]]]]}]}]}],"options":[],"decl_iters":false} */
