/* polycu-fuzz seed=5603997 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double C[4][2];

void kernel(int tsteps, int A[3][2][5], int B[tsteps + 1])
{
#pragma scop
  for (int t = 0; t < tsteps; t++)
  {
    for (int i = tsteps; i >= 1; i -= 2)
      A[i - 1][B[i] % 3][i + 1]--;
    C[t][(t + 2) / 4] = ((double) (3u * 3));
  }
#pragma endscop
}

int main(void)
{
  static int A[3][2][5];
  static int B[4];
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 5; i2++) A[i0][i1][i2] = (int) ((-12 + 13 * i0 + 13 * i1 + 1 * i2) % 23) * 1;
  for (int i0 = 0; i0 < 4; i0++) B[i0] = (int) ((-12 + 13 * i0) % 7) * 1;
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) C[i0][i1] = (double) ((-10 + 7 * (i0 - 1) + -5 * i1) % 23) * 1.0;
  kernel(3, A, B);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 5; i2++) printf("%lld\n", (long long) A[i0][i1][i2]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 4; i0++) printf("%lld\n", (long long) B[i0]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.17g\n", (double) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":5603997,"params":[{"name":"tsteps","type":"int","value":3}],"arrays":[{"name":"A","type":"int","ndim":3,"kind":"fixed","init":{"k":-12,"a":[13,13,1],"m":23,"scale":1},"pad":[0,0,0]},{"name":"B","type":"int","ndim":1,"kind":"vla","init":{"k":-12,"a":[13],"m":7,"scale":1},"pad":[0],"index":true},{"name":"C","type":"double","ndim":2,"kind":"global","init":{"k":-10,"a":[7,-5],"m":23,"scale":1.0},"pad":[1,0]}],"scalars":[],"body":[{"k":"for","var":"t","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","t"],["var","tsteps"]],"step":1,"inc":0,"body":[{"k":"for","var":"i","type":"int","lb":["var","tsteps"],"cond":["cmp",">=",["var","i"],["num","int",1]],"step":-2,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["bin","%",["ref","B",[["var","i"]]],["num","int",3]],["bin","+",["var","i"],["num","int",1]]]],"op":"--","rhs":null}]},{"k":"stmt","lhs":["ref","C",[["bin","-",["var","t"],["num","int",1]],["bin","/",["bin","+",["var","t"],["num","int",2]],["num","int",4]]]],"op":"=","rhs":["cast","double",["bin","*",["num","unsigned",3],["num","int",3]]]}]}],"options":[],"decl_iters":false} */
