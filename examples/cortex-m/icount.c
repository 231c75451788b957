/*===- icount.c - Counting the instructions of a call on QEMU -------------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * See icount.h.
 *
 *===----------------------------------------------------------------------===*/

#include "icount.h"

#include <stdint.h>
#include <stdio.h>

/// Calls \p fn(a0, a1, a2, a3) between the markers icountBegin and
/// icountEnd (see icount-plugin.c): `blx` to fn is the instruction at
/// icountBegin, the one after the call is at icountEnd.
void icountCall(void *a0, void *a1, void *a2, void *a3, MeasuredFn fn);
__asm__(".text\n"
        ".syntax unified\n"
        ".thumb\n"
        ".global icountCall\n"
        ".global icountBegin\n"
        ".global icountEnd\n"
        ".type icountCall, %function\n"
        ".thumb_func\n"
        "icountCall:\n"
        "  push {r4, lr}\n"
        "  ldr r4, [sp, #8]\n"
        "icountBegin:\n"
        "  blx r4\n"
        "icountEnd:\n"
        "  pop {r4, pc}\n"
        ".size icountCall, . - icountCall\n"
        "\n"
        /* r0 iterations (at least 1) of two instructions, then the return:
           2 * r0 + 1 instructions, 2 * r0 + 2 with icountCall's blx. */
        ".global icountCalibrationLoop\n"
        ".type icountCalibrationLoop, %function\n"
        ".thumb_func\n"
        "icountCalibrationLoop:\n"
        "1:\n"
        "  subs r0, r0, #1\n"
        "  bne 1b\n"
        "  bx lr\n"
        ".size icountCalibrationLoop, . - icountCalibrationLoop\n"
        "\n"
        ".global icountEmpty\n"
        ".type icountEmpty, %function\n"
        ".thumb_func\n"
        "icountEmpty:\n"
        "  bx lr\n"
        ".size icountEmpty, . - icountEmpty\n");
void icountCalibrationLoop(void *iterations, void *, void *, void *);
void icountEmpty(void *, void *, void *, void *);

#ifdef ICOUNT_NO_SYSTICK
/* A board without SysTick (QEMU's microbit): the calls are made, the ticks
   are 0. */
static uint64_t sysTickNow(void) { return 0; }
void sysTickStart(void) {}
#else
/* SysTick (ARMv7-M ARM B3.3), counting down from 2^24 - 1 on the CPU clock;
   its interrupt counts the wraps (startup.c). */
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
extern volatile uint32_t sysTickWraps;

/// SysTick ticks since sysTickStart().
static uint64_t sysTickNow(void) {
  uint32_t wraps, value;
  do {
    wraps = sysTickWraps;
    value = SYST_CVR;
  } while (wraps != sysTickWraps);
  return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

void sysTickStart(void) {
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 7u; /* enable, interrupt, CPU clock */
  /* The counter reads 0 until its first tick loads the reload value. */
  while (SYST_CVR == 0) {
  }
}
#endif

unsigned long long measuredCall(const char *name, void *a0, void *a1, void *a2,
                                void *a3, MeasuredFn fn) {
  uint64_t start = sysTickNow();
  icountCall(a0, a1, a2, a3, fn);
  uint64_t ticks = sysTickNow() - start;
  printf("ICOUNT %s systick=%llu\n", name, (unsigned long long)ticks);
  return ticks;
}

void icountCalibrate(void) {
  sysTickStart();
  measuredCall("empty", 0, 0, 0, 0, icountEmpty);
  measuredCall("calibration", (void *)ICOUNT_CALIBRATION_ITERATIONS, 0, 0, 0,
               icountCalibrationLoop);
}
