// What glibc declares that the Glibc module does not export: the allocator's settings
// (`mallopt`, `malloc_usable_size`), `getrandom`, and a thread's name.
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/random.h>

/// Names the calling thread as `top -H`, `perf` and /proc/PID/task/*/comm show it (the kernel
/// keeps 15 bytes). Foundation's `Thread.name` does not reach the kernel on Linux, and a thread
/// started from a libdispatch worker otherwise keeps that worker's name (`com.apple.root.default-qos`).
static inline int latchkey_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
