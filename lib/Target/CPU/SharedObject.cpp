//===- SharedObject.cpp - Kernels in the LLVM dialect to a .so ------------===//
//
// The CPU code object of an artifact: every kernel, compiled by LLVM for
// the host, behind one uniform entry point per kernel so the runtime calls
// them all the same way, and linked into a shared object that the runtime
// dlopens. The runtime therefore needs neither MLIR nor LLVM.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::bwc;

LogicalResult mlir::bwc::addPackedEntryPoints(ModuleOp module) {
  OpBuilder b(module.getContext());
  auto ptr = LLVM::LLVMPointerType::get(module.getContext());
  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>())
    if (f->hasAttr(kKernelAttrName))
      kernels.push_back(f);
  for (LLVM::LLVMFuncOp kernel : kernels) {
    auto type = kernel.getFunctionType();
    for (Type t : type.getParams())
      if (!isa<LLVM::LLVMPointerType>(t))
        return kernel.emitError()
               << "expects a kernel taking bare buffer pointers but got " << t;
    kernel.setLinkage(LLVM::Linkage::Internal);
    kernel->removeAttr("sym_visibility");
    b.setInsertionPointAfter(kernel);
    Location loc = kernel.getLoc();
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, (kernel.getName() + kPackedSuffix).str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                    {ptr}));
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (unsigned i = 0; i < type.getNumParams(); ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    LLVM::CallOp::create(b, loc, kernel, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
  return success();
}

namespace {

/// A file in a fresh temporary directory, removed with it.
struct TempDir {
  SmallString<128> path;
  TempDir() { (void)llvm::sys::fs::createUniqueDirectory("bwc-cpu", path); }
  ~TempDir() { (void)llvm::sys::fs::remove_directories(path); }
  std::string file(StringRef name) const { return (path + "/" + name).str(); }
};

} // namespace

namespace {

/// Optimizes `module` at -O2 and writes it as an object file to `path`
/// with `machine`; an error message, or empty.
std::string optimizeAndEmit(llvm::Module &module, llvm::TargetMachine &machine,
                            const std::string &path) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  if (llvm::Error err = makeOptimizingTransformer(
          /*optLevel=*/2, /*sizeLevel=*/0, &machine)(&module))
    return "LLVM optimization failed: " + toString(std::move(err));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return "cannot write " + path + ": " + ec.message();
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return "the host target cannot emit object files";
  pm.run(module);
  return "";
}

/// How many parts the kernels are compiled in, side by side: one per
/// hardware thread this process may run on (its CPU affinity, as LLVM's
/// thread pools count them; at most 8), each of at least 16 functions.
unsigned codeGenParts(const llvm::Module &module) {
  unsigned functions = 0;
  for (const llvm::Function &f : module)
    functions += !f.isDeclaration();
  unsigned threads =
      std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  return std::max(1u, std::min({threads, 8u, functions / 16}));
}

} // namespace

FailureOr<std::string> mlir::bwc::emitLLVMIR(ModuleOp module) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "bwc_kernels");
  if (!llvmModule)
    return module.emitError() << "cannot translate the kernels to LLVM IR",
           failure();
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*llvmModule, &os))
    return module.emitError() << "the kernels' LLVM IR does not verify: "
                              << problems,
           failure();
  std::string text;
  llvm::raw_string_ostream out(text);
  llvmModule->print(out, nullptr);
  return text;
}

FailureOr<std::string> mlir::bwc::emitSharedObject(ModuleOp module) {
  auto fail = [&](const Twine &msg) -> FailureOr<std::string> {
    module.emitError() << msg;
    return failure();
  };
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "bwc_kernels");
  if (!llvmModule)
    return fail("cannot translate the kernels to LLVM IR");

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return fail("cannot target the host: " + toString(builder.takeError()));
  // A generic CPU: the artifact may run on another machine of the same
  // architecture (the GPU machine's host, CI).
  builder->setCPU("generic");
  builder->getFeatures() = llvm::SubtargetFeatures();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return fail("cannot create the host target machine: " +
                toString(machine.takeError()));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  // Kernels with one body (a network repeats its blocks, a training step
  // its rules) are optimized and compiled once: LLVM's MergeFunctions
  // makes each duplicate a tail call of the kept one under its own name,
  // which the runtime looks up. The entry points are marked noinline so
  // that the optimizer does not copy the kept body back into those calls
  // (nothing else calls an entry point; each still inlines its kernel).
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration() && f.hasExternalLinkage() && f.use_empty())
      f.addFnAttr(llvm::Attribute::NoInline);
  llvm::MergeFunctionsPass::runOnModule(*llvmModule);

  TempDir dir;
  if (dir.path.empty())
    return fail("cannot create a temporary directory");
  // The kernels are independent: a program of many is split into parts
  // (each entry point with the internal functions it calls), which are
  // optimized and compiled side by side, each in its own LLVM context and
  // target machine, and linked together.
  std::vector<std::string> objects;
  unsigned parts = codeGenParts(*llvmModule);
  if (parts == 1) {
    objects.push_back(dir.file("kernels.o"));
    std::string error = optimizeAndEmit(*llvmModule, **machine, objects[0]);
    if (!error.empty())
      return fail(error);
  } else {
    std::vector<llvm::SmallVector<char, 0>> bitcode;
    llvm::SplitModule(
        *llvmModule, parts,
        [&](std::unique_ptr<llvm::Module> part) {
          llvm::raw_svector_ostream os(bitcode.emplace_back());
          llvm::WriteBitcodeToFile(*part, os);
        },
        /*PreserveLocals=*/true);
    std::vector<std::unique_ptr<llvm::TargetMachine>> machines;
    for (size_t k = 0; k < bitcode.size(); ++k) {
      auto tm = builder->createTargetMachine();
      if (!tm)
        return fail("cannot create the host target machine: " +
                    toString(tm.takeError()));
      machines.push_back(std::move(*tm));
      objects.push_back(dir.file("kernels" + std::to_string(k) + ".o"));
    }
    std::vector<std::string> errors(bitcode.size());
    std::vector<std::thread> threads;
    for (size_t k = 0; k < bitcode.size(); ++k) {
      threads.emplace_back([&, k] {
        llvm::LLVMContext context;
        auto part = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(
                StringRef(bitcode[k].data(), bitcode[k].size()), "part"),
            context);
        if (!part) {
          errors[k] = "cannot read a part of the kernels back: " +
                      toString(part.takeError());
          return;
        }
        errors[k] = optimizeAndEmit(**part, *machines[k], objects[k]);
      });
    }
    for (std::thread &t : threads)
      t.join();
    for (const std::string &error : errors)
      if (!error.empty())
        return fail(error);
  }

  std::string shared = dir.file("kernels.so");
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return fail("no C compiler ('cc') found to link the kernels into a "
                "shared object: install gcc");
  std::string errMsg;
  SmallVector<StringRef> argv = {*cc, "-shared", "-o", shared};
  for (const std::string &o : objects)
    argv.push_back(o);
  argv.push_back("-lm");
  int rc = llvm::sys::ExecuteAndWait(*cc, argv, std::nullopt, {}, 0, 0,
                                     &errMsg);
  if (rc != 0)
    return fail("linking the kernels failed (" + *cc + " exit " +
                Twine(rc) + ") " + errMsg);
  auto bytes = llvm::MemoryBuffer::getFile(shared, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return fail("cannot read " + shared);
  return (*bytes)->getBuffer().str();
}
