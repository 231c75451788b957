// RUN: mem-opt %s --split-input-file --memplan-lower --verify-diagnostics

func.func @callee() attributes {memplan.arena_size = 0 : i64, memplan.arena_alignment = 16 : i64} {
  return
}
func.func @caller() {
  // expected-error @below {{call to planned function @callee from a function without an arena; plan the caller too, or call it from outside the module}}
  func.call @callee() : () -> ()
  return
}

// -----

// expected-error @below {{recursive calls between planned functions reach @ping; its arena size would be unbounded}}
func.func @ping() attributes {memplan.arena_size = 0 : i64, memplan.arena_alignment = 16 : i64} {
  func.call @pong() : () -> ()
  return
}
func.func @pong() attributes {memplan.arena_size = 0 : i64, memplan.arena_alignment = 16 : i64} {
  func.call @ping() : () -> ()
  return
}

// -----

func.func @two_arenas() {
  // expected-note @below {{first arena here}}
  %a = memplan.arena align 16 : memref<64xi8>
  // expected-error @below {{is the second arena of the function; memplan-lower expects one}}
  %b = memplan.arena align 16 : memref<64xi8>
  return
}

// -----

func.func @size_mismatch() attributes {memplan.arena_size = 32 : i64} {
  // expected-error @below {{arena of 64 bytes disagrees with the function's 'memplan.arena_size = 32'}}
  %a = memplan.arena align 16 : memref<64xi8>
  return
}

// -----

func.func @alignment_mismatch() attributes {memplan.arena_alignment = 8 : i64} {
  // expected-error @below {{alignment 16 disagrees with the function's 'memplan.arena_alignment = 8'}}
  %a = memplan.arena align 16 : memref<64xi8>
  return
}

// -----

// expected-error @below {{'memplan.arena_size' must be an integer}}
func.func @bad_size() attributes {memplan.arena_size = "big"} {
  return
}

// -----

func.func @leftover() attributes {memplan.arena_size = 0 : i64} {
  // expected-error @below {{'memref.alloc' left in a planned function; run memplan-plan-arena after the last pass that allocates}}
  %a = memref.alloc() : memref<4xf32>
  return
}

// -----

func.func @nested_arena() {
  scf.execute_region {
    // expected-error @below {{must be in the entry block of the function}}
    %a = memplan.arena align 16 : memref<64xi8>
    scf.yield
  }
  return
}
