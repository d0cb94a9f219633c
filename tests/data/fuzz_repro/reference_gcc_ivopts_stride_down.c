/* A mismatch of the 2,100-program run that was gcc's: gcc 12.2 and 13.3 at -O1/-O2 (ivopts)
   leave A[0] at 5 for kernel(9, A); -O0 and -O1 -fno-ivopts give 9, as polycu does.
   The reference build now has -fno-ivopts. */
/* polycu-fuzz seed=1945 options="--fusion min" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int *A)
{
  int i;
#pragma scop
  for (i = n - 1; i > (-1); i -= 2)
    A[i] = MAX(n, A[(n - i) - 1]);
#pragma endscop
}

int main(void)
{
  static int A[9];
  for (int i0 = 0; i0 < 9; i0++) A[i0] = (int) ((12 + 1 * i0) % 7) * 1;
  kernel(9, A);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 9; i0++) printf("%lld\n", (long long) A[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":1945,"params":[{"name":"n","type":"int","value":9}],"arrays":[{"name":"A","type":"int","ndim":1,"kind":"pointer","init":{"k":12,"a":[1],"m":7,"scale":1},"pad":[0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-2,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"]]],"op":"=","rhs":["max",["var","n"],["ref","A",[["bin","-",["bin","-",["var","n"],["var","i"]],["num","int",1]]]]]}]}],"options":["--fusion","min"],"decl_iters":true} */
