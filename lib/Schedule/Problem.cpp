//===- Problem.cpp - IR-free peak-memory scheduling problem ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Schedule/Problem.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::memopt::schedule;

NodeId Problem::addNode(Node node) {
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

BufferId Problem::addBuffer(Buffer buffer) {
  buffers.push_back(std::move(buffer));
  return buffers.size() - 1;
}

SmallVector<SmallVector<NodeId, 4>> Problem::getSuccessors() const {
  SmallVector<SmallVector<NodeId, 4>> succs(nodes.size());
  for (auto [id, node] : llvm::enumerate(nodes))
    for (NodeId pred : node.preds)
      succs[pred].push_back(id);
  return succs;
}

SmallVector<NodeId> Problem::getInputOrder() const {
  SmallVector<NodeId> order;
  for (NodeId id = 0, e = nodes.size(); id < e; ++id)
    order.push_back(id);
  return order;
}

std::string Problem::getNodeName(NodeId node) const {
  if (node < nodes.size() && !nodes[node].name.empty())
    return nodes[node].name;
  return "node " + std::to_string(node);
}

std::string Problem::getBufferName(BufferId buffer) const {
  if (buffer < buffers.size() && !buffers[buffer].name.empty())
    return buffers[buffer].name;
  return "buffer " + std::to_string(buffer);
}

/// Returns true if \p ids is strictly increasing.
static bool isSortedUnique(ArrayRef<unsigned> ids) {
  for (size_t i = 1; i < ids.size(); ++i)
    if (ids[i - 1] >= ids[i])
      return false;
  return true;
}

LogicalResult Problem::check(std::string *whyNot) const {
  std::string message;
  raw_string_ostream os(message);
  auto fail = [&]() {
    if (whyNot)
      *whyNot = message;
    return failure();
  };
  unsigned numNodes = nodes.size(), numBuffers = buffers.size();

  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    if (buffer.bytes < 0) {
      os << "'" << getBufferName(id) << "' has a negative size ("
         << buffer.bytes << " bytes)";
      return fail();
    }
    if (buffer.producer && *buffer.producer >= numNodes) {
      os << "'" << getBufferName(id) << "' names producer " << *buffer.producer
         << ", but there are " << numNodes << " nodes";
      return fail();
    }
    if (!isSortedUnique(buffer.readers)) {
      os << "the readers of '" << getBufferName(id)
         << "' are not sorted and unique";
      return fail();
    }
    for (NodeId reader : buffer.readers) {
      if (reader >= numNodes) {
        os << "'" << getBufferName(id) << "' names reader " << reader
           << ", but there are " << numNodes << " nodes";
        return fail();
      }
      if (!std::binary_search(nodes[reader].inputs.begin(),
                              nodes[reader].inputs.end(), id)) {
        os << "'" << getBufferName(id) << "' names '" << getNodeName(reader)
           << "' as a reader, but it is not one of its inputs";
        return fail();
      }
    }
    if (buffer.hasWriters()) {
      if (!buffer.producer || !isSortedUnique(buffer.writers) ||
          buffer.writers.front() <= *buffer.producer ||
          buffer.writers.back() >= numNodes) {
        os << "the writers of '" << getBufferName(id)
           << "' are not sorted, unique, known and above its producer";
        return fail();
      }
      for (NodeId writer : buffer.writers)
        if (!llvm::is_contained(nodes[writer].outputs, id)) {
          os << "'" << getBufferName(id) << "' names '" << getNodeName(writer)
             << "' as a writer, but it is not one of its outputs";
          return fail();
        }
    }
    if (buffer.producer &&
        !llvm::is_contained(nodes[*buffer.producer].outputs, id)) {
      os << "'" << getBufferName(id) << "' names '"
         << getNodeName(*buffer.producer)
         << "' as its producer, but it is not one of its outputs";
      return fail();
    }
  }

  for (auto [id, node] : llvm::enumerate(nodes)) {
    if (node.workspaceBytes < 0) {
      os << "'" << getNodeName(id) << "' has a negative workspace ("
         << node.workspaceBytes << " bytes)";
      return fail();
    }
    if (!isSortedUnique(node.preds) || !isSortedUnique(node.inputs)) {
      os << "the predecessors or inputs of '" << getNodeName(id)
         << "' are not sorted and unique";
      return fail();
    }
    for (NodeId pred : node.preds)
      if (pred >= id) {
        os << "'" << getNodeName(id) << "' has predecessor '"
           << getNodeName(pred)
           << "' with an id not smaller than its own; node ids must be a "
              "topological order (which also rules out cycles)";
        return fail();
      }
    for (BufferId input : node.inputs)
      if (input >= numBuffers ||
          !std::binary_search(buffers[input].readers.begin(),
                              buffers[input].readers.end(), id)) {
        os << "'" << getNodeName(id) << "' reads "
           << (input >= numBuffers ? "unknown buffer " + std::to_string(input)
                                   : "'" + getBufferName(input) + "'")
           << ", which does not list it as a reader";
        return fail();
      }
    for (BufferId output : node.outputs)
      if (output >= numBuffers ||
          (buffers[output].producer != id &&
           !std::binary_search(buffers[output].writers.begin(),
                               buffers[output].writers.end(), id))) {
        os << "'" << getNodeName(id) << "' produces "
           << (output >= numBuffers ? "unknown buffer " + std::to_string(output)
                                    : "'" + getBufferName(output) + "'")
           << ", which does not name it as its producer";
        return fail();
      }
    if (node.inPlaceInput &&
        !llvm::is_contained(node.inputs, *node.inPlaceInput)) {
      os << "the in-place input of '" << getNodeName(id)
         << "' is not one of its inputs";
      return fail();
    }
    if (node.inPlaceSaving < 0 || (node.inPlaceSaving && !node.inPlaceInput)) {
      os << "'" << getNodeName(id) << "' saves " << node.inPlaceSaving
         << " bytes in place"
         << (node.inPlaceSaving < 0 ? "" : " but has no in-place input");
      return fail();
    }
    if (node.inPlaceInput && *node.inPlaceInput < numBuffers) {
      int64_t allocated = node.workspaceBytes;
      // A multi-writer output may be allocated by another writer already.
      for (BufferId output : node.outputs)
        if (output < numBuffers && !buffers[output].hasWriters())
          allocated += buffers[output].bytes;
      int64_t inputBytes = buffers[*node.inPlaceInput].bytes;
      if (node.inPlaceSaving > std::min(allocated, inputBytes)) {
        os << "'" << getNodeName(id) << "' saves " << node.inPlaceSaving
           << " bytes in place, more than its in-place input holds ("
           << inputBytes << ") or its step allocates (" << allocated << ")";
        return fail();
      }
    }
  }

  // Every reader must run after the producer: it is a descendant. Usually
  // the producer is a predecessor; otherwise a walk up from the reader
  // through ids above the producer's (ids are topological) looks for it.
  SmallVector<unsigned> seenBy(numNodes, ~0u);
  SmallVector<NodeId> stack;
  unsigned walks = 0;
  auto dependsOn = [&](NodeId reader, NodeId producer) {
    if (std::binary_search(nodes[reader].preds.begin(),
                           nodes[reader].preds.end(), producer))
      return true;
    unsigned walk = walks++;
    stack.assign(1, reader);
    seenBy[reader] = walk;
    while (!stack.empty()) {
      NodeId next = stack.pop_back_val();
      for (NodeId pred : nodes[next].preds) {
        if (pred == producer)
          return true;
        if (pred > producer && seenBy[pred] != walk) {
          seenBy[pred] = walk;
          stack.push_back(pred);
        }
      }
    }
    return false;
  };
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    if (!buffer.producer)
      continue;
    NodeId producer = *buffer.producer;
    ArrayRef<NodeId> writers = buffer.writers;
    // A reader of a multi-writer buffer runs after one of its writers (the
    // buffer is allocated by then).
    auto dependsOnAWriter = [&](NodeId reader) {
      return dependsOn(reader, producer) ||
             llvm::any_of(writers, [&](NodeId writer) {
               return writer < reader && dependsOn(reader, writer);
             });
    };
    for (NodeId reader : buffer.readers)
      if (!dependsOnAWriter(reader)) {
        os << "'" << getNodeName(reader) << "' reads '" << getBufferName(id)
           << "' but does not depend on its producer '" << getNodeName(producer)
           << "'" << (buffer.hasWriters() ? " nor on one of its writers" : "");
        return fail();
      }
    // It is freed after its last reader; that must follow every writer.
    if (!buffer.hasWriters() || buffer.isGraphOutput || buffer.pinned)
      continue;
    auto dependsOnEveryWriter = [&](NodeId reader) {
      return dependsOn(reader, producer) &&
             llvm::all_of(writers, [&](NodeId writer) {
               return writer < reader && dependsOn(reader, writer);
             });
    };
    if (llvm::none_of(buffer.readers, dependsOnEveryWriter)) {
      os << "no reader of '" << getBufferName(id)
         << "' depends on every one of its writers, so it could be freed "
            "before one of them writes";
      return fail();
    }
  }
  return success();
}

LogicalResult Problem::verify(ArrayRef<NodeId> order,
                              std::string *whyNot) const {
  std::string message;
  raw_string_ostream os(message);
  auto fail = [&]() {
    if (whyNot)
      *whyNot = message;
    return failure();
  };
  if (order.size() != nodes.size()) {
    os << "the order has " << order.size() << " nodes, the problem "
       << nodes.size();
    return fail();
  }
  BitVector done(nodes.size());
  for (auto [step, node] : llvm::enumerate(order)) {
    if (node >= nodes.size()) {
      os << "step " << step << " runs unknown node " << node;
      return fail();
    }
    if (done.test(node)) {
      os << "'" << getNodeName(node) << "' runs twice";
      return fail();
    }
    for (NodeId pred : nodes[node].preds)
      if (!done.test(pred)) {
        os << "'" << getNodeName(node) << "' runs at step " << step
           << " before its predecessor '" << getNodeName(pred) << "'";
        return fail();
      }
    done.set(node);
  }
  return success();
}
