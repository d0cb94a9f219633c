/* polycu-fuzz seed=1600081 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int A[8][7])
{
  int i, j;
#pragma scop
  for (i = 6; i > (-1); --i)
    for (j = n - 3; j <= n; j++)
    {
      A[i + 1][j]++;
      A[j + 2][i] = 2;
    }
  A[3][1] = A[0][0];
#pragma endscop
}

int main(void)
{
  static int A[8][7];
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 7; i1++) A[i0][i1] = (int) ((19 + -5 * (i0 - 2) + 7 * i1) % 23) * 1;
  kernel(5, A);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 7; i1++) printf("%lld\n", (long long) A[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":1600081,"params":[{"name":"n","type":"int","value":5}],"arrays":[{"name":"A","type":"int","ndim":2,"kind":"fixed","init":{"k":19,"a":[-5,7],"m":23,"scale":1},"pad":[0,0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",6],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["bin","-",["var","n"],["num","int",3]],"cond":["cmp","<=",["var","j"],["var","n"]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["var","j"]]],"op":"++","rhs":null},{"k":"stmt","lhs":["ref","A",[["var","j"],["var","i"]]],"op":"=","rhs":["num","int",2]}]}]},{"k":"stmt","lhs":["ref","A",[["num","int",1],["num","int",1]]],"op":"=","rhs":["ref","A",[["bin","-",["num","int",0],["num","int",2]],["num","int",0]]]}],"options":[],"decl_iters":true} */
