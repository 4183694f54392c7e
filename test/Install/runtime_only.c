/* The runtime's C API alone (kiln::runtime: no MLIR, no LLVM): asks for a
   GPU and reports, without one, why there is none. */
#include "kiln_rt/kiln_rt_cuda.h"

#include <stdio.h>

int main(void) {
  kiln_rt_status status = kiln_rt_cuda_init();
  if (!status)
    printf("a GPU is available\n");
  else
    printf("no GPU: %s\n", kiln_rt_status_message(status));
  kiln_rt_status_free(status);
  printf("PASS\n");
  return 0;
}
