//===- ArtifactBuilder.cpp - The launch program of an artifact ------------===//
//
// Every SSA value of the program function is one buffer: arguments are
// inputs, large constants are weights, call results are intermediates (or
// outputs when returned). Kernel calls become launches in program order.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/ArtifactBuilder.h"
#include "bwc/Analysis/BranchGuards.h"
#include "bwc/Analysis/CostModel.h"
#include "bwc/Target/CPU/SharedObject.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::bwc;

FailureOr<rt::DType> mlir::bwc::toRuntimeType(Type t) {
  if (t.isF32())
    return rt::DType::f32;
  if (t.isF16())
    return rt::DType::f16;
  if (t.isBF16())
    return rt::DType::bf16;
  if (t.isF64())
    return rt::DType::f64;
  if (auto it = dyn_cast<IntegerType>(t)) {
    bool u = it.isUnsigned();
    switch (it.getWidth()) {
    case 1:
      return rt::DType::boolean;
    case 8:
      return u ? rt::DType::u8 : rt::DType::i8;
    case 16:
      return u ? rt::DType::u16 : rt::DType::i16;
    case 32:
      return u ? rt::DType::u32 : rt::DType::i32;
    case 64:
      return u ? rt::DType::u64 : rt::DType::i64;
    }
  }
  return failure();
}

namespace {

/// A state tensor's update buffer before the program's return names it.
constexpr uint32_t kNoUpdate = ~uint32_t(0);

/// Bytes of a constant in the runtime's layout (bools one byte each).
FailureOr<std::string> elementsBytes(Operation *op, ElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op->emitError() << "expects the weight's data blob to be present",
             failure();
    ArrayRef<char> data = blob->getData();
    return std::string(data.data(), data.size());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return op->emitError() << "expects a dense constant", failure();
  int64_t n = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    std::string bytes;
    for (bool v : dense.getValues<bool>())
      bytes.push_back(v ? 1 : 0);
    return bytes;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    std::string bytes;
    bytes.reserve(raw.size() * n);
    for (int64_t i = 0; i < n; ++i)
      bytes.append(raw.data(), raw.size());
    return bytes;
  }
  return std::string(raw.data(), raw.size());
}

} // namespace

FailureOr<rt::Artifact> mlir::bwc::buildArtifactProgram(func::FuncOp program) {
  rt::Artifact a;
  llvm::DenseMap<Value, uint32_t> bufferOf;
  auto describe = [&](Value v, StringRef name) -> FailureOr<rt::TensorDesc> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return program.emitError() << "expects tensors in the program", failure();
    FailureOr<rt::DType> dt = toRuntimeType(t.getElementType());
    if (failed(dt))
      return program.emitError()
                 << "unsupported element type " << t.getElementType(),
             failure();
    rt::TensorDesc d;
    d.name = name.str();
    d.dtype = *dt;
    d.shape.assign(t.getShape().begin(), t.getShape().end());
    return d;
  };
  auto addBuffer = [&](Value v, rt::BufferKind kind) -> FailureOr<uint32_t> {
    FailureOr<rt::TensorDesc> d = describe(v, "");
    if (failed(d))
      return failure();
    rt::Buffer buf;
    buf.kind = kind;
    buf.bytes = d->bytes();
    a.buffers.push_back(buf);
    bufferOf[v] = a.buffers.size() - 1;
    return (uint32_t)a.buffers.size() - 1;
  };

  auto addWeight = [&](Value v, Operation *op,
                       ElementsAttr value) -> FailureOr<uint32_t> {
    FailureOr<uint32_t> id = addBuffer(v, rt::BufferKind::weight);
    FailureOr<std::string> bytes = elementsBytes(op, value);
    if (failed(id) || failed(bytes))
      return failure();
    a.weights.resize((a.weights.size() + 63) / 64 * 64, '\0');
    a.buffers[*id].weightOffset = a.weights.size();
    a.weights += *bytes;
    return *id;
  };

  // Training state (bwc-grad with an optimizer): a weight buffer holding
  // the initial value; the result marked bwc.state_update replaces it after
  // every run.
  llvm::StringMap<uint32_t> stateBuffers;
  // Branch conditions (bwc-guard-branches): id -> buffer.
  DenseMap<int64_t, uint32_t> conditionBuffer;
  for (BlockArgument arg : program.getArguments()) {
    auto name =
        program.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "bwc.name");
    FailureOr<rt::TensorDesc> d = describe(
        arg, name ? name.getValue()
                  : StringRef("input_" + std::to_string(arg.getArgNumber())));
    if (program.getArgAttr(arg.getArgNumber(), "bwc.state")) {
      auto init = program.getArgAttrOfType<ElementsAttr>(arg.getArgNumber(),
                                                         "bwc.initial_value");
      if (!init || !name)
        return program.emitError()
                   << "expects state argument " << arg.getArgNumber()
                   << " to have a name and an initial value",
               failure();
      FailureOr<uint32_t> id = addWeight(arg, program, init);
      if (failed(d) || failed(id))
        return failure();
      stateBuffers[name.getValue()] = *id;
      a.state.push_back({*d, *id, kNoUpdate});
      continue;
    }
    FailureOr<uint32_t> id = addBuffer(arg, rt::BufferKind::input);
    if (failed(d) || failed(id))
      return failure();
    if (auto cond = program.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(), "bwc.branch_condition"))
      conditionBuffer[cond.getInt()] = *id;
    a.buffers[*id].ioIndex = a.inputs.size();
    a.inputs.push_back(*d);
    a.inputBuffers.push_back(*id);
  }

  ModuleOp module = program->getParentOfType<ModuleOp>();
  if (auto arena = program->getAttrOfType<IntegerAttr>("bwc.arena_bytes"))
    a.arenaBytes = arena.getInt();
  for (Operation &op : program.getBody().front()) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (failed(addWeight(c, c, c.getValue())))
        return failure();
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto kernel = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!kernel)
        return call.emitError() << "calls an unknown kernel", failure();
      rt::Kernel k;
      k.name = (call.getCallee() + kPackedSuffix).str();
      KernelCost cost = kernelCost(kernel);
      k.ops = cost.ops;
      k.flops = cost.flops;
      rt::Launch launch;
      launch.kernel = a.kernels.size();
      for (Value v : call.getOperands()) {
        if (!bufferOf.count(v))
          return call.emitError() << "uses a value without a buffer", failure();
        launch.args.push_back(bufferOf[v]);
      }
      // Arena offsets chosen by bwc-plan-buffers (-1: outside the arena).
      auto offsets = call->getAttrOfType<DenseI64ArrayAttr>("bwc.offsets");
      // State updates written over the state's own buffer.
      auto stateInPlace =
          call->getAttrOfType<DenseI64ArrayAttr>("bwc.state_inplace");
      for (auto [i, r] : llvm::enumerate(call.getResults())) {
        if (stateInPlace && i < stateInPlace.size() && stateInPlace[i] >= 0) {
          int64_t j = stateInPlace[i];
          Value state =
              j < call.getNumOperands() ? call.getOperand(j) : Value();
          auto arg = dyn_cast_or_null<BlockArgument>(state);
          if (!arg || !program.getArgAttr(arg.getArgNumber(), "bwc.state"))
            return call.emitError() << "expects operand " << j
                                    << " (bwc.state_inplace) to be a state "
                                       "argument",
                   failure();
          bufferOf[r] = bufferOf[state];
          launch.args.push_back(bufferOf[state]);
          continue;
        }
        FailureOr<uint32_t> id = addBuffer(r, rt::BufferKind::intermediate);
        if (failed(id))
          return failure();
        if (offsets && i < offsets.size() && offsets[i] >= 0)
          a.buffers[*id].arenaOffset = offsets[i];
        launch.args.push_back(*id);
      }
      if (auto conds =
              call->getAttrOfType<ArrayAttr>("bwc.branch_conditions"))
        for (Attribute c : conds) {
          auto dict = dyn_cast<DictionaryAttr>(c);
          auto id = dict ? dict.getAs<IntegerAttr>("id") : IntegerAttr();
          auto result =
              dict ? dict.getAs<IntegerAttr>("result") : IntegerAttr();
          if (!id || !result || result.getInt() < 0 ||
              result.getInt() >= (int64_t)call.getNumResults())
            return call.emitError()
                       << "has a malformed 'bwc.branch_conditions' entry " << c,
                   failure();
          conditionBuffer[id.getInt()] =
              bufferOf[call.getResult(result.getInt())];
        }
      bool wellFormed = true;
      for (auto [cond, then] : launchGuards(call, &wellFormed)) {
        auto it = conditionBuffer.find(cond);
        if (it == conditionBuffer.end())
          return call.emitError()
                     << "is guarded by branch condition " << cond
                     << ", which no earlier launch or argument computes",
                 failure();
        launch.guards.push_back({it->second, then});
      }
      if (!wellFormed)
        return call.emitError() << "has a malformed 'bwc.guard' "
                                << call->getAttr("bwc.guard"),
               failure();
      k.bytesRead = cost.bytesRead;
      k.bytesWritten = cost.bytesWritten;
      a.kernels.push_back(k);
      a.launches.push_back(launch);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        if (auto of = program.getResultAttrOfType<StringAttr>(
                i, "bwc.state_update")) {
          auto it = stateBuffers.find(of.getValue());
          uint32_t id = bufferOf.lookup(v);
          if (it != stateBuffers.end() && id == it->second) {
            // Written in place (bwc.state_inplace): nothing to copy.
            for (rt::StateTensor &s : a.state)
              if (s.buffer == it->second)
                s.update = id;
            continue;
          }
          if (it == stateBuffers.end() ||
              a.buffers[id].kind != rt::BufferKind::intermediate)
            return program.emitError()
                       << "expects result " << i << " (the update of state '"
                       << of.getValue()
                       << "') to be a kernel result of a state argument",
                   failure();
          // Outside the arena: it must survive until the copy after the
          // last launch.
          a.buffers[id].arenaOffset = rt::kNoArenaOffset;
          for (rt::StateTensor &s : a.state)
            if (s.buffer == it->second)
              s.update = id;
          continue;
        }
        auto name = program.getResultAttrOfType<StringAttr>(i, "bwc.name");
        FailureOr<rt::TensorDesc> d =
            describe(v, name ? name.getValue()
                             : StringRef("output_" + std::to_string(i)));
        if (failed(d))
          return failure();
        uint32_t id = bufferOf.lookup(v);
        if (a.buffers[id].kind == rt::BufferKind::intermediate) {
          a.buffers[id].kind = rt::BufferKind::output;
          a.buffers[id].ioIndex = a.outputs.size();
          // Outputs live outside the arena: the caller gets them.
          a.buffers[id].arenaOffset = rt::kNoArenaOffset;
        }
        a.outputs.push_back(*d);
        a.outputBuffers.push_back(id);
      }
      continue;
    }
    return op.emitError() << "expects only constants, kernel calls and a "
                             "return in the program function",
           failure();
  }
  for (const rt::StateTensor &s : a.state)
    if (s.update == kNoUpdate)
      return program.emitError() << "expects state '" << s.desc.name
                                 << "' to have an update result",
             failure();
  return a;
}
