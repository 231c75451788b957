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
// LIBERIS: <text class="title" {{.*}}>@main: live activation memory per step (canonical model)</text>
// LIBERIS: <text class="ytick" {{.*}}>0</text>
// LIBERIS: <text class="ytick" {{.*}}>2</text>
// LIBERIS: <text class="ytick" {{.*}}>4</text>
// LIBERIS: <text class="ytick" x="74" y="44.0" text-anchor="end">6</text>
// LIBERIS: <text class="xtick" x="780.0" y="356" text-anchor="middle">7</text>
// LIBERIS: <text class="xlabel" {{.*}}>step (op index in the order)</text>
// LIBERIS: <text class="ylabel" {{.*}}>live activation memory (KiB)</text>
// LIBERIS: <polyline class="timeline" data-series="1" {{.*}} points="80.0,110.3 180.0,110.3 180.0,161.9 280.0,161.9 280.0,149.4 380.0,149.4 380.0,97.8 480.0,97.8 480.0,225.9 580.0,225.9 580.0,290.0 780.0,290.0"/>
// LIBERIS: <polyline class="timeline" data-series="0" {{.*}} points="80.0,110.3 280.0,110.3 280.0,85.3 380.0,85.3 380.0,136.9 480.0,136.9 480.0,277.5 580.0,277.5 580.0,290.0 780.0,290.0"/>
// Peak dots sit at the middle of the peak step, at the peak's height, and
// carry the peak in bytes. The op at the peak is op3 in file order (step 2)
// and op2 in the optimal order (step 3: op1, op4, op6, op2).
// LIBERIS: <circle class="peak" data-series="1" data-peak-bytes="4960" cx="430.0" cy="97.8" r="4" fill="#1f77b4"><title>mem-opt exact, proven optimal: peak 4960 bytes at step 3 (op2)</title></circle>
// LIBERIS: <circle class="peak" data-series="0" data-peak-bytes="5216" cx="330.0" cy="85.3" r="4" fill="#d62728"><title>file order: peak 5216 bytes at step 2 (op3)</title></circle>
// Labels: the first series' 7 px above its dot (85.3 - 7), right of it
// (330 + 7); the second's 16 px below its dot (97.8 + 16), at 430 + 7.
// LIBERIS: <text class="peak-label" data-series="0" x="337.0" y="78.3" text-anchor="start" {{.*}}>peak 5.09 KiB at step 2 (op3)</text>
// LIBERIS: <text class="peak-label" data-series="1" x="437.0" y="113.8" text-anchor="start" {{.*}}>peak 4.84 KiB at step 3 (op2)</text>
// LIBERIS: <text class="legend" data-series="0" {{.*}}>file order: peak 5216 bytes (5.09 KiB) at step 2 of 7 (op3)</text>
// LIBERIS: <text class="legend" data-series="1" {{.*}}>mem-opt exact, proven optimal: peak 4960 bytes (4.84 KiB) at step 3 of 7 (op2)</text>
// LIBERIS: </svg>

// Every baseline can be overlaid; reverse post-order also finds 4960 here.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report="model=canonical format=svg compare=rpo" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RPO
// RPO: >reverse post-order: peak 4960 bytes (4.84 KiB) at step 3 of 7 (op{{[0-9]}})</text>
// After memory-schedule the current order is the scheduled one; the input
// order is now the same line, drawn dashed on top of it (after it), with a
// ring around the shared dot, a dashed legend swatch and no second label.
// Only 4960 bytes are plotted: the axis runs to 5 KiB in ticks of 1, so
// y = 340 - bytes * 300 / 5120 (4704 -> 64.4, 3648 -> 126.2, 3904 -> 111.2,
// 4960 -> 49.4, 2336 -> 203.1, 1024 -> 280.0). The label cannot sit above
// the dot (baseline 42.4 would reach into the title band above y = 40), so
// it goes 16 px below it: 65.4.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=model=canonical --memory-report="model=canonical format=svg compare=input" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHEDULED
// SCHEDULED: <polyline class="timeline" data-series="0" fill="none" stroke="#d62728" stroke-width="2" stroke-linejoin="round" points="80.0,64.4 180.0,64.4 180.0,126.2 280.0,126.2 280.0,111.2 380.0,111.2 380.0,49.4 480.0,49.4 480.0,203.1 580.0,203.1 580.0,280.0 780.0,280.0"/>
// SCHEDULED: <polyline class="timeline" data-series="1" fill="none" stroke="#1f77b4" stroke-width="2" stroke-linejoin="round" stroke-dasharray="8 6" points="80.0,64.4 180.0,64.4 180.0,126.2 280.0,126.2 280.0,111.2 380.0,111.2 380.0,49.4 480.0,49.4 480.0,203.1 580.0,203.1 580.0,280.0 780.0,280.0"/>
// SCHEDULED: <circle class="peak" data-series="0" data-peak-bytes="4960" cx="430.0" cy="49.4" r="4" fill="#d62728">
// SCHEDULED: <circle class="peak" data-series="1" data-peak-bytes="4960" cx="430.0" cy="49.4" r="7" fill="none" stroke="#1f77b4" stroke-width="2">
// SCHEDULED: <text class="peak-label" data-series="0" x="437.0" y="65.4" {{.*}}>peak 4.84 KiB at step 3 (op2)</text>
// SCHEDULED-NOT: class="peak-label" data-series="1"
// SCHEDULED: <line class="legend-swatch" {{.*}} stroke="#d62728" stroke-width="2"/>
// SCHEDULED-NEXT: >scheduled order: peak 4960 bytes (4.84 KiB) at step 3 of 7 (op2)</text>
// SCHEDULED-NEXT: <line class="legend-swatch" {{.*}} stroke="#1f77b4" stroke-width="2" stroke-dasharray="8 6"/>
// SCHEDULED-NEXT: >input order: peak 4960 bytes (4.84 KiB) at step 3 of 7, the same as above</text>

// This file: @chain keeps %x (1024 bytes) alive to the end: live bytes
// 2048, 3072, 3072 (peak at step 1, op "b"). Axis 0..3 KiB in ticks of 1, so
// y = 340 - bytes * 100 / 1024; x = 80 + 700 * step / 3. An empty function
// gets an empty chart below the first (which is 398 + 18 + 8 = 424 high).
// The peak is the axis top (y = 40): a label above the dot (baseline 33)
// would run into the title (baseline 24), so it goes 16 px below: y = 56.
// RUN: mem-opt %s --memory-report="model=canonical format=svg" -o /dev/null 2>%t.chain.svg
// RUN: xmllint --noout %t.chain.svg
// RUN: FileCheck %s --check-prefix=CHAIN < %t.chain.svg
// CHAIN: height="848"
// CHAIN: <g class="chart" transform="translate(0,0)">
// CHAIN: >@chain: live activation memory per step (canonical model)</text>
// CHAIN: <text class="ytick" x="74" y="44.0" text-anchor="end">3</text>
// CHAIN: <text class="xtick" x="313.3" y="356" text-anchor="middle">1</text>
// CHAIN: points="80.0,140.0 313.3,140.0 313.3,40.0 780.0,40.0"/>
// CHAIN-NOT: data-series="1"
// CHAIN: <circle class="peak" data-series="0" data-peak-bytes="3072" cx="430.0" cy="40.0"
// CHAIN: <text class="peak-label" data-series="0" x="437.0" y="56.0" text-anchor="start" {{.*}}>peak 3.00 KiB at step 1 (b)</text>
// CHAIN: >file order: peak 3072 bytes (3.00 KiB) at step 1 of 3 (b)</text>
// CHAIN: <g class="chart" transform="translate(0,424)">
// CHAIN: >@empty: live activation memory per step (canonical model)</text>
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
