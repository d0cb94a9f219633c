/* polycu-fuzz seed=5632027 options="" */
/* match (was a rejection, a crash before session 42): i = m - 4 in long leaves long for m
   below LLONG_MIN + 4, where the domain kept points beyond 2^63 and the code needed the
   literal 9223372036854775816 in a bound (seed 5632027); such values of m are now assumed
   away (C's signed overflow), as for a conversion */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(long m)
{
  for (long i = m - 4; i < m; i++)
  {
    for (int j = i; j <= i; ++j)
    {
      if (1 < 1.0f)
      {
      }
    }
  }
}

int main(void)
{
  kernel(4L);
  return 0;
}
/* polycu-fuzz-program {"seed":5632027,"params":[{"name":"m","type":"long","value":4}],"arrays":[],"scalars":[],"body":[{"k":"for","var":"i","type":"long","lb":["bin","-",["var","m"],["num","int",4]],"cond":["cmp","<",["var","i"],["var","m"]],"step":1,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["var","i"],"cond":["cmp","<=",["var","j"],["var","i"]],"step":1,"inc":1,"body":[{"k":"if","data":true,"cond":["cmp","<",["num","int",1],["num","float",1.0]],"then":[],"else":null}]}]}],"options":[],"decl_iters":false} */
