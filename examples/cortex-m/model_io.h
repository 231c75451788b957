/*===- model_io.h - The compiled model's inputs and outputs, as tables ----===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * model-io.cmake writes model_io.c from the header mem-opt-compile wrote, so
 * that main.c runs any model compiled with the default --io=arena: every
 * input and output with its shape, C type, bytes and offset in the arena,
 * and its quantization where the header gives one.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MEMOPT_EXAMPLES_CORTEXM_MODEL_IO_H
#define MEMOPT_EXAMPLES_CORTEXM_MODEL_IO_H

/// The C types of the header, in model-io.cmake's order.
enum ModelType {
  MODEL_INT8,
  MODEL_UINT8,
  MODEL_INT16,
  MODEL_INT32,
  MODEL_INT64,
  MODEL_FLOAT,
  MODEL_DOUBLE
};

/// One input or output of the model.
struct ModelTensor {
  /// The shape as the header writes it, e.g. "1x49x10x1".
  const char *shape;
  /// An enum ModelType.
  unsigned type;
  /// Its bytes.
  unsigned bytes;
  /// Where it lives in the arena (input: before the call; output: after).
  unsigned offset;
  /// Quantization, real = scale * (q - zeroPoint); scale 0: none given.
  float scale;
  /// See scale.
  int zeroPoint;
};

/// Calls the model on \p arena.
void modelRun(void *arena);
/// The model's C name.
extern const char modelName[];
/// <NAME>_ARENA_SIZE and <NAME>_ARENA_ALIGN.
extern const unsigned modelArenaSize, modelArenaAlign;
/// The inputs and outputs.
extern const unsigned numModelInputs, numModelOutputs;
extern const struct ModelTensor modelInputs[], modelOutputs[];
/// The bytes of every input in order, from -DINPUT=<file> (0 bytes: none).
extern const unsigned modelInputFileBytes;
extern const unsigned char modelInputFile[];

#endif // MEMOPT_EXAMPLES_CORTEXM_MODEL_IO_H
