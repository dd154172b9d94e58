// What glibc declares that the Glibc module does not export: the allocator's settings
// (`mallopt`, `malloc_usable_size`) and `getrandom`.
#include <malloc.h>
#include <sys/random.h>
