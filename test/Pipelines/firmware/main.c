/*===- main.c - Test firmware around a mem-opt-compiled model -------------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Runs one model on the emulated board and writes its outputs to the host
 * through semihosting. The model gets an arena of exactly <FN>_ARENA_SIZE
 * bytes inside the activation SRAM; every other byte of that SRAM holds a
 * canary that is checked after the run, so a plan that writes outside its
 * arena fails. The generated glue (model_glue.c, written by run_model.py)
 * embeds the inputs and calls the model (through
 * `measuredCall("model", ...)`):
 *
 *   const unsigned modelArenaSize, modelArenaAlign;
 *   void runModel(void *arena);
 *   const unsigned numModelOutputs;
 *   const struct ModelOutput modelOutputs[];
 *
 * The glue calls the model through measuredCall() (icount.h), so that its
 * instructions can be counted; before the model, main() measures an empty
 * call and a calibration loop of known length the same way
 * (icountCalibrate). The measured calls, in order: empty, calibration,
 * model.
 *
 * Exit code 0: ran, canary intact, outputs written; anything else: failure.
 *
 *===----------------------------------------------------------------------===*/

#include "icount.h"

#include <stdint.h>
#include <stdio.h>

/// One output buffer of the model.
struct ModelOutput {
  const void *data;
  unsigned bytes;
};

extern const unsigned modelArenaSize;
extern const unsigned modelArenaAlign;
extern const unsigned numModelOutputs;
extern const struct ModelOutput modelOutputs[];
void runModel(void *arena);

extern uint8_t __sram_start[];
extern uint8_t __sram_end[];

/// Byte of the canary at address \p p: varies with the address so that a
/// shifted copy of the canary is noticed too.
static uint8_t canaryAt(const uint8_t *p) {
  uintptr_t a = (uintptr_t)p;
  return (uint8_t)(0xA5u ^ (a >> 2) ^ (a >> 10));
}

int main(void) {
  icountCalibrate();

  /* The arena starts 4 KiB into the activation SRAM (an eighth of it on a
     small board such as the microbit's 4 KiB), so there is canary on both
     sides of it. */
  uintptr_t align = modelArenaAlign ? modelArenaAlign : 16;
  uintptr_t size = (uintptr_t)(__sram_end - __sram_start);
  uintptr_t base = (uintptr_t)__sram_start + (size >= 32768 ? 4096 : size / 8);
  base = (base + align - 1) & ~(align - 1);
  uint8_t *arena = (uint8_t *)base;
  uint8_t *arenaEnd = arena + modelArenaSize;
  if (arenaEnd > __sram_end) {
    printf("FAIL arena of %u bytes does not fit the SRAM\n", modelArenaSize);
    return 2;
  }
  for (uint8_t *p = __sram_start; p < __sram_end; ++p)
    if (p < arena || p >= arenaEnd)
      *p = canaryAt(p);

  runModel(arena);

  unsigned corrupted = 0;
  uint8_t *first = 0;
  for (uint8_t *p = __sram_start; p < __sram_end; ++p) {
    if ((p < arena || p >= arenaEnd) && *p != canaryAt(p)) {
      if (!first)
        first = p;
      ++corrupted;
    }
  }
  if (corrupted) {
    printf("FAIL canary: %u bytes outside the arena were written, first at "
           "arena%+ld\n",
           corrupted, (long)(first - arena));
    return 3;
  }

  FILE *out = fopen("out.bin", "wb");
  if (!out) {
    printf("FAIL cannot open out.bin on the host\n");
    return 4;
  }
  for (unsigned i = 0; i < numModelOutputs; ++i)
    if (fwrite(modelOutputs[i].data, 1, modelOutputs[i].bytes, out) !=
        modelOutputs[i].bytes) {
      printf("FAIL cannot write output %u\n", i);
      return 5;
    }
  fclose(out);
  printf("OK arena=%u canary intact\n", modelArenaSize);
  return 0;
}
