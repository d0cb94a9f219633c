/* polycu-fuzz seed=300012 options="--tile-size 4" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(long n, int m, unsigned A[6][4])
{
  unsigned i;
  int j;
#pragma scop
  for (i = 0; (i <= m) && (i < (4 + 2)); i += 1)
    for (j = i + 1; j < n; j += 1)
      A[j + 2][i] = MAX(((unsigned) j) - A[i / 4][MIN(i, m - 1)], i + 4000000000u) % 1000;
#pragma endscop
}

int main(void)
{
  static unsigned A[6][4];
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 4; i1++) A[i0][i1] = (unsigned) ((-20 + -5 * i0 + 13 * i1) % 61) * 1u;
  kernel(4L, 12, A);
  printf("@ A unsigned\n");
  for (int i0 = 0; i0 < 6; i0++) for (int i1 = 0; i1 < 4; i1++) printf("%llu\n", (unsigned long long) A[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":300012,"params":[{"name":"n","type":"long","value":4},{"name":"m","type":"int","value":12}],"arrays":[{"name":"A","type":"unsigned","ndim":2,"kind":"fixed","init":{"k":-20,"a":[-5,13],"m":61,"scale":1},"pad":[0,1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["and",["cmp","<=",["var","i"],["var","m"]],["cmp","<",["var","i"],["bin","+",["num","int",4],["num","int",2]]]],"step":1,"inc":2,"body":[{"k":"for","var":"j","type":"int","lb":["bin","+",["var","i"],["num","int",1]],"cond":["cmp","<",["var","j"],["var","n"]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","j"],["num","int",2]],["var","i"]]],"op":"=","rhs":["bin","%",["max",["bin","-",["cast","unsigned",["var","j"]],["ref","A",[["bin","/",["var","i"],["num","int",4]],["min",["var","i"],["bin","-",["var","m"],["num","int",1]]]]]],["bin","+",["var","i"],["num","unsigned",4000000000]]],["num","int",1000]]}]}]}],"options":["--tile-size","4"],"decl_iters":true} */
