/* polycu-fuzz seed=16 options="" */
/* crash (build) and nvcc failure: a loop over `unsigned j` bounded by `int n` gives
   `c1 <= min(4294967295, n)`: g++ 'call of overloaded min(int, long long int) is ambiguous',
   nvcc 'more than one instance of overloaded function "min"' (seed 16, run A); fixed in run B's tree */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, unsigned A[1][2])
{
  int i;
  unsigned j;
#pragma scop
  for (i = 0; i < n; ++i)
    for (j = 0; j <= n; j++)
      A[i][n] = j;
#pragma endscop
}

int main(void)
{
  static unsigned A[1][2];
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) A[i0][i1] = (unsigned) ((20 + 3 * i0 + 13 * i1) % 23) * 1u;
  kernel(0, A);
  printf("@ A unsigned\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%llu\n", (unsigned long long) A[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":16,"params":[{"name":"n","type":"int","value":0}],"arrays":[{"name":"A","type":"unsigned","ndim":2,"kind":"fixed","init":{"k":20,"a":[3,13],"m":23,"scale":1},"pad":[0,1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","i"],["var","n"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"unsigned","lb":["num","int",0],"cond":["cmp","<=",["var","j"],["var","n"]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","n"]]],"op":"=","rhs":["var","j"]}]}]}],"options":[],"decl_iters":true} */
