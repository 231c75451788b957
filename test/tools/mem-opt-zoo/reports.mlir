// Every zoo model (f32, and int8 for the single cells) is modelled by
// mem-opt, and its reports agree: the file-order profile, every baseline and
// the exact engine's certificates against the reordered IR, exact <= every
// baseline, lower bounds below every peak (see check-reports.py).
// RUN: %python %S/check-reports.py mem-opt-zoo mem-opt %t | FileCheck %s
// CHECK: darts-v2-cifar-f32: {{[0-9]+}} steps
// CHECK: randwire-ws-net-f32: {{[0-9]+}} steps
// CHECK: checked {{[0-9]+}} models, 0 errors
