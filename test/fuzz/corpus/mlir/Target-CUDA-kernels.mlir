func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %x: tensor<16x1024xf32>, %c: tensor<64x48xf32>, %w: tensor<48x32xf32>, %ln: tensor<30x200xf32>, %g: tensor<200xf32>, %sr: tensor<1000x96xf16>, %cr: tensor<512x96xf32>, %nchw: tensor<2x64x20x40xf32>, %bias: tensor<64xf32>, %re: tensor<1x257x40xf32>, %im: tensor<1x257x40xf32>) -> (tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>, tensor<30x200xf32>, tensor<1000x1xf16>, tensor<96xf32>, tensor<2x20x40x64xf32>, tensor<1x40x257xf32>) {
  %0 = bwc.binary add %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = bwc.unary tanh %0 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %e = bwc.unary exp %d : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %r = bwc.binary div %e, %s : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %mm = bwc.matmul %c, %w : (tensor<64x48xf32>, tensor<48x32xf32>) -> tensor<64x32xf32>
  %lm = bwc.reduce mean %ln axes = [1] keepdims = true : (tensor<30x200xf32>) -> tensor<30x1xf32>
  %ld = bwc.binary sub %ln, %lm : (tensor<30x200xf32>, tensor<30x1xf32>) -> tensor<30x200xf32>
  %lq = bwc.binary mul %ld, %ld : (tensor<30x200xf32>, tensor<30x200xf32>) -> tensor<30x200xf32>
  %lv = bwc.reduce mean %lq axes = [1] keepdims = true : (tensor<30x200xf32>) -> tensor<30x1xf32>
  %ls = bwc.unary sqrt %lv : (tensor<30x1xf32>) -> tensor<30x1xf32>
  %lz = bwc.binary div %ld, %ls : (tensor<30x200xf32>, tensor<30x1xf32>) -> tensor<30x200xf32>
  %ly = bwc.binary mul %lz, %g : (tensor<30x200xf32>, tensor<200xf32>) -> tensor<30x200xf32>
  %sm = bwc.reduce sum %sr axes = [1] keepdims = true : (tensor<1000x96xf16>) -> tensor<1000x1xf16>
  %cs = bwc.reduce sum %cr axes = [0] keepdims = false : (tensor<512x96xf32>) -> tensor<96xf32>
  %ct = bwc.unary tanh %cs : (tensor<96xf32>) -> tensor<96xf32>
  %te = bwc.unary exp %nchw : (tensor<2x64x20x40xf32>) -> tensor<2x64x20x40xf32>
  %tt = bwc.transpose %te perm = [0, 2, 3, 1] : (tensor<2x64x20x40xf32>) -> tensor<2x20x40x64xf32>
  %tb = bwc.binary add %tt, %bias : (tensor<2x20x40x64xf32>, tensor<64xf32>) -> tensor<2x20x40x64xf32>
  %rt = bwc.transpose %re perm = [0, 2, 1] : (tensor<1x257x40xf32>) -> tensor<1x40x257xf32>
  %it = bwc.transpose %im perm = [0, 2, 1] : (tensor<1x257x40xf32>) -> tensor<1x40x257xf32>
  %two = bwc.constant dense<2.0> : tensor<f32>
  %r2 = bwc.binary pow %rt, %two : (tensor<1x40x257xf32>, tensor<f32>) -> tensor<1x40x257xf32>
  %i2 = bwc.binary pow %it, %two : (tensor<1x40x257xf32>, tensor<f32>) -> tensor<1x40x257xf32>
  %pw = bwc.binary add %r2, %i2 : (tensor<1x40x257xf32>, tensor<1x40x257xf32>) -> tensor<1x40x257xf32>
  return %1, %r, %mm, %ly, %sm, %ct, %tb, %pw : tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>, tensor<30x200xf32>, tensor<1000x1xf16>, tensor<96xf32>, tensor<2x20x40x64xf32>, tensor<1x40x257xf32>
}
