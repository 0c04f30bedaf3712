// Runs ONNX models through ONNX Runtime's CPU execution provider (the npm
// package onnxruntime-node, installed by scripts/setup.sh into build-npm/):
// the reference of python/difftest.py.
//
//   node python/ort_reference.js DIR
//
// DIR holds one folder per case with model.onnx and case.json:
//   {"inputs": [{"name", "dtype": "float32"|"int64", "shape", "file"}]}
// (each input's raw little-endian bytes in `file`). For each case it writes
// ort.json: {"outputs": [{"name", "dtype", "shape", "file"}]} with the raw
// bytes of every graph output in ort_K.bin, or {"error": message}.
// Graph optimizations are off, so the reference computes the graph as
// written.
'use strict';
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const roots = [process.env.BWC_NPM_DIR,
                 path.join(__dirname, '..', 'build-npm')].filter(Boolean);
  for (const root of roots) {
    try {
      return require(path.join(root, 'node_modules', 'onnxruntime-node'));
    } catch (e) {
      // try the next
    }
  }
  return require('onnxruntime-node');
}

const ort = loadOrt();
const ARRAYS = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array,
                float64: Float64Array, bool: Uint8Array};

async function runCase(dir) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json')));
  const session = await ort.InferenceSession.create(
      path.join(dir, 'model.onnx'),
      {graphOptimizationLevel: 'disabled', executionProviders: ['cpu'],
       intraOpNumThreads: 1});
  const feeds = {};
  for (const input of spec.inputs) {
    const bytes = fs.readFileSync(path.join(dir, input.file));
    const Array_ = ARRAYS[input.dtype];
    const data = new Array_(bytes.buffer.slice(
        bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    feeds[input.name] = new ort.Tensor(input.dtype === 'bool' ? 'bool'
                                                               : input.dtype,
                                       data, input.shape);
  }
  const results = await session.run(feeds);
  const outputs = [];
  session.outputNames.forEach((name, k) => {
    const t = results[name];
    const file = `ort_${k}.bin`;
    fs.writeFileSync(path.join(dir, file),
                     Buffer.from(t.data.buffer, t.data.byteOffset,
                                 t.data.byteLength));
    outputs.push({name, dtype: t.type, shape: t.dims.map(Number), file});
  });
  return {outputs};
}

(async () => {
  const root = process.argv[2];
  for (const name of fs.readdirSync(root).sort()) {
    const dir = path.join(root, name);
    if (!fs.existsSync(path.join(dir, 'case.json')))
      continue;
    let result;
    try {
      result = await runCase(dir);
    } catch (e) {
      result = {error: String(e && e.message ? e.message : e)};
    }
    fs.writeFileSync(path.join(dir, 'ort.json'), JSON.stringify(result));
  }
})();
