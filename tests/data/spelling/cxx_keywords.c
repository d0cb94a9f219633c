/* C identifiers that are C++ keywords: arrays, parameters, iterators, a struct tag,
   field and typedef.  nvcc could not compile the kernels (the .cu is C++). */
#include <stdio.h>
#define N 50
typedef double template;
struct class { template this; template delete[N]; };
static template new[N], operator[N];
static struct class object;
void kernel(int n, template virtual, int friend)
{
  int private, namespace;
#pragma scop
  for (private = 0; private < n; private++) {
    for (namespace = 0; namespace < friend; namespace++)
      new[private] += operator[namespace] * virtual + object.delete[private];
    object.delete[private] = new[private] * object.this;
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { new[i] = i; operator[i] = 0.25 * i - 3; object.delete[i] = -1.0 * i; }
  object.this = 0.5;
  kernel(N, 1.5, 30);
  printf("@ new hex\n"); for (int i = 0; i < N; i++) printf("%a\n", new[i]);
  printf("@ delete hex\n"); for (int i = 0; i < N; i++) printf("%a\n", object.delete[i]);
  return 0;
}
