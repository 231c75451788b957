/*===- startup.c - Vector table and reset handler for MPS2 Cortex-M -------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The minimal start-up code of the test firmware: a vector table whose reset
 * handler enables the FPU (CPACR CP10/CP11 full access) and enters newlib's
 * `_start` (crt0 of rdimon.specs: clears .bss, sets up semihosting, calls
 * main and exits with its return value). Every fault spins in place; tests
 * always run QEMU under `timeout`.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>

extern uint32_t __StackTop;
extern void _start(void);

/// Enables the FPU and starts the C runtime.
void resetHandler(void) {
  volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
  _start();
  for (;;) {
  }
}

/// Spins on any fault or unexpected interrupt.
void defaultHandler(void) {
  for (;;) {
  }
}

/// The first 16 entries: initial stack pointer, reset and the system faults.
__attribute__((section(".vectors"),
               used)) void (*const vectorTable[16])(void) = {
    (void (*)(void))(&__StackTop),
    resetHandler,
    defaultHandler,
    defaultHandler,
    defaultHandler,
    defaultHandler,
    defaultHandler,
    0,
    0,
    0,
    0,
    defaultHandler,
    defaultHandler,
    0,
    defaultHandler,
    defaultHandler};
