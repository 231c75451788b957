// memory-report format=svg: the timeline chart of the file order, and the
// overlay of another algorithm's order. Expected coordinates are computed by
// hand from the chart geometry (plot area x in [80, 780], y in [40, 340]; the
// y axis runs from 0 to a round number of KiB) and the canonical memory
// model. The output must be well-formed XML.

// Liberis & Lane's graph (test/Inputs/liberis.mlir). File order op1..op7 has
// live bytes 4704, 4704, 5216, 4160, 1280, 1024, 1024 (peak 5216 at step 2).
// The only optimal order op1,op4,op6,op2,op3,op5,op7 has 4704, 3648, 3904,
// 4960, 2336, 1024, 1024 (peak 4960 at step 3). Axis: 0..6 KiB in ticks of 2,
// so y = 340 - bytes / 20.48; x = 80 + 100 * step.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report="model=canonical format=svg compare=exact output=%t.liberis.svg" -o /dev/null
// RUN: xmllint --noout %t.liberis.svg
// RUN: FileCheck %s --check-prefix=LIBERIS < %t.liberis.svg
// LIBERIS: <svg xmlns="http://www.w3.org/2000/svg" width="800" height="442"
// LIBERIS: <text class="title" {{.*}}>@main: live activation memory per step</text>
// LIBERIS: <text class="ytick" {{.*}}>0</text>
// LIBERIS: <text class="ytick" {{.*}}>2</text>
// LIBERIS: <text class="ytick" {{.*}}>4</text>
// LIBERIS: <text class="ytick" x="74" y="44.0" text-anchor="end">6</text>
// LIBERIS: <text class="xtick" x="780.0" y="356" text-anchor="middle">7</text>
// LIBERIS: <text class="xlabel" {{.*}}>step (op index in the order)</text>
// LIBERIS: <text class="ylabel" {{.*}}>live activation memory (KiB)</text>
// LIBERIS: <polyline class="timeline" data-series="1" {{.*}} points="80.0,110.3 180.0,110.3 180.0,161.9 280.0,161.9 280.0,149.4 380.0,149.4 380.0,97.8 480.0,97.8 480.0,225.9 580.0,225.9 580.0,290.0 780.0,290.0"/>
// LIBERIS: <polyline class="timeline" data-series="0" {{.*}} points="80.0,110.3 280.0,110.3 280.0,85.3 380.0,85.3 380.0,136.9 480.0,136.9 480.0,277.5 580.0,277.5 580.0,290.0 780.0,290.0"/>
// Peak dots sit at the middle of the peak step, at the peak's height.
// LIBERIS: <circle class="peak" data-series="1" cx="430.0" cy="97.8"
// LIBERIS: >peak 4.84 KiB at step 3</text>
// LIBERIS: <circle class="peak" data-series="0" cx="330.0" cy="85.3"
// LIBERIS: >peak 5.09 KiB at step 2</text>
// LIBERIS: <text class="legend" data-series="0" {{.*}}>file order: peak 5216 bytes (5.09 KiB) at step 2 of 7</text>
// LIBERIS: <text class="legend" data-series="1" {{.*}}>mem-opt exact, proven optimal: peak 4960 bytes (4.84 KiB) at step 3 of 7</text>
// LIBERIS: </svg>

// Every baseline can be overlaid; reverse post-order also finds 4960 here.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report="model=canonical format=svg compare=rpo" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RPO
// RPO: >reverse post-order: peak 4960 bytes (4.84 KiB) at step 3 of 7</text>
// After memory-schedule the current order is the scheduled one.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=model=canonical --memory-report="model=canonical format=svg compare=input" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHEDULED
// SCHEDULED: >scheduled order: peak 4960 bytes (4.84 KiB) at step 3 of 7</text>
// SCHEDULED: >input order: peak 4960 bytes (4.84 KiB) at step 3 of 7</text>

// This file: @chain keeps %x (1024 bytes) alive to the end: live bytes
// 2048, 3072, 3072 (peak at step 1). Axis 0..3 KiB in ticks of 1, so
// y = 340 - bytes * 100 / 1024; x = 80 + 700 * step / 3. An empty function
// gets an empty chart below the first (which is 398 + 18 + 8 = 424 high).
// RUN: mem-opt %s --memory-report="model=canonical format=svg" -o /dev/null 2>%t.chain.svg
// RUN: xmllint --noout %t.chain.svg
// RUN: FileCheck %s --check-prefix=CHAIN < %t.chain.svg
// CHAIN: height="848"
// CHAIN: <g class="chart" transform="translate(0,0)">
// CHAIN: >@chain: live activation memory per step</text>
// CHAIN: <text class="ytick" x="74" y="44.0" text-anchor="end">3</text>
// CHAIN: <text class="xtick" x="313.3" y="356" text-anchor="middle">1</text>
// CHAIN: points="80.0,140.0 313.3,140.0 313.3,40.0 780.0,40.0"/>
// CHAIN-NOT: data-series="1"
// CHAIN: <circle class="peak" data-series="0" cx="430.0" cy="40.0"
// CHAIN: >file order: peak 3072 bytes (3.00 KiB) at step 1 of 3</text>
// CHAIN: <g class="chart" transform="translate(0,424)">
// CHAIN: >@empty: live activation memory per step</text>
// CHAIN-NOT: <polyline
// CHAIN: >file order: peak 0 bytes (0.00 KiB)</text>
// CHAIN: </svg>

// Same input, same bytes.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report="model=canonical format=svg compare=exact output=%t.again.svg" -o /dev/null
// RUN: cmp %t.liberis.svg %t.again.svg

func.func @chain(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %a = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("a")
  %b = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("b")
  %c = tosa.add %x, %b : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("c")
  return %c : tensor<1x8x8x4xf32>
}

func.func @empty() {
  return
}
