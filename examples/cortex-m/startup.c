/*===- startup.c - Vector table and reset handler for QEMU's Cortex-M -----===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The minimal start-up code of the example and test firmware (linked with
 * -nostartfiles): a vector table whose reset handler enables the FPU (CPACR
 * CP10/CP11 full access; on Armv7-M and Armv8-M, whatever the firmware's
 * float ABI, since a softfp object may use it; RAZ/WI without an FPU), copies
 * .data from flash where the linker script loads it there (microbit), clears
 * .bss, opens semihosting's standard streams, runs the static constructors,
 * calls main and exits with its return value. The stack is the top of the
 * code RAM (link-*.ld), not where semihosting's HEAPINFO would put it.
 * SysTick's interrupt counts the wraps of its 24-bit counter (icount.c
 * measures calls with it). Every fault spins in place; tests always run
 * QEMU under `timeout`.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>

#include <stdlib.h>
#include <string.h>

extern uint32_t __StackTop;
extern uint8_t __data_start__[];
extern uint8_t __data_end__[];
extern uint8_t __data_load__[];
extern uint8_t __bss_start__[];
extern uint8_t __bss_end__[];
extern void initialise_monitor_handles(void);
extern void __libc_init_array(void);
extern int main(void);

/// Hooks newlib's __libc_init_array / __libc_fini_array call around the
/// constructor tables; crti.o/crtn.o that normally provide them are not
/// linked (-nostartfiles).
void _init(void) {}
/// See _init.
void _fini(void) {}

/// Enables the FPU and starts the C runtime.
void resetHandler(void) {
#if __ARM_ARCH >= 7
  volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
#endif
  if ((uintptr_t)__data_load__ != (uintptr_t)__data_start__)
    memcpy(__data_start__, __data_load__,
           (size_t)(__data_end__ - __data_start__));
  memset(__bss_start__, 0, (size_t)(__bss_end__ - __bss_start__));
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
  for (;;) {
  }
}

/// Wraps of SysTick's counter since main.c started it.
volatile uint32_t sysTickWraps;

/// Counts a wrap of SysTick.
void sysTickHandler(void) { ++sysTickWraps; }

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
    sysTickHandler};
