// The one CPU-feature question this target asks, answered from CPUID by the compiler runtime (libgcc/compiler-rt's
// __cpu_model, filled once before main), so asking per call costs a load.
#include "CCompositionKernels.h"

int rtenc_kernels_cpu_has_avx2(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
