#ifndef SIZE
#error SIZE must be defined
#endif
void kernel(void) {}
