//! Every elementwise kind written into one of its own inputs
//! (`elemwise_into` on a granted buffer) gives the bits it gives into a
//! fresh output: no kernel reads an input position after writing it.
//! Values cover each kernel's fast path and its edges (huge, tiny,
//! infinities, NaN, domain limits), over more than a guarded block.

use super::Pool;
use crate::dtype::DType;
use crate::kernels::elemwise::{elemwise, elemwise_into};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::Tensor;

const EDGES: [f64; 24] = [
    -1000.0,
    -709.5,
    -100.0,
    -3.5,
    -1.0,
    -0.5,
    -1e-300,
    0.0,
    1e-300,
    0.3,
    0.5,
    0.999,
    1.0,
    1.5,
    2.0,
    3.5,
    30.0,
    100.0,
    709.5,
    1e10,
    1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

fn values(dtype: DType, n: usize, salt: usize) -> Tensor {
    let xs: Vec<f64> = (0..n)
        .map(|i| {
            let j = i * 7 + salt;
            if j.is_multiple_of(3) {
                EDGES[(j / 3) % EDGES.len()]
            } else {
                ((j as f64) * 0.37).sin() * 4.0
            }
        })
        .collect();
    let t = Tensor::from_vec(vec![n], xs).unwrap();
    crate::kernels::elemwise::cast::cast(&t, dtype).unwrap()
}

fn same_bits(a: &Tensor, b: &Tensor) -> bool {
    a.to_c_bytes().unwrap() == b.to_c_bytes().unwrap()
        || (0..a.len()).all(|i| {
            let (x, y) = (a.get(i), b.get(i));
            x == y || (format!("{x:?}").contains("NaN") && format!("{y:?}").contains("NaN"))
        })
}

/// `k` on `inputs` with input `d` overwritten; whether it matched the
/// fresh output (`None`: the kind does not run on these dtypes, or the
/// output is of another dtype than input `d`).
fn check(k: ScalarKind, inputs: &[Tensor], d: usize) -> Option<bool> {
    let op = ScalarOp::Kind(k);
    let dtypes: Vec<DType> = inputs.iter().map(|t| t.dtype()).collect();
    let out = *op.output_dtypes(&dtypes).ok()?.first()?;
    if out != dtypes[d] {
        return None;
    }
    let bc: Vec<Vec<bool>> = inputs.iter().map(|t| vec![t.len() == 1]).collect();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let want = elemwise(&op, &refs, &bc, out, None).ok()?;
    let mut copies: Vec<Tensor> = inputs.to_vec();
    copies[d] = Tensor::from_bytes(
        out,
        inputs[d].shape().to_vec(),
        inputs[d].to_c_bytes().ok()?,
    )
    .ok()?;
    let mut pool = Pool::default();
    pool.grant(copies[d].clone());
    let (target, mut writer) = pool.take_grant(&copies[d])?.into_parts();
    let refs: Vec<&Tensor> = copies.iter().collect();
    let written = elemwise_into(&op, &refs, &bc, &mut writer).ok()?;
    drop(writer);
    drop(refs);
    if !written {
        return None;
    }
    Some(same_bits(&target, &want))
}

#[test]
fn every_kind_overwrites_its_input_exactly() {
    let n = 700;
    let mut bad = Vec::new();
    let mut ran = 0;
    let dtypes = [
        DType::Float64,
        DType::Float32,
        DType::Int64,
        DType::Int32,
        DType::Complex128,
    ];
    for &dtype in &dtypes {
        for &k in ScalarKind::ALL {
            let arity = k.nin().unwrap_or(2);
            if arity == 0 || arity > 2 {
                continue;
            }
            let full: Vec<Tensor> = (0..arity).map(|j| values(dtype, n, j * 5)).collect();
            for d in 0..arity {
                // All inputs full, then the others a single element.
                let mut cases = vec![full.clone()];
                if arity == 2 {
                    let mut one = full.clone();
                    one[1 - d] = values(dtype, 1, 3);
                    cases.push(one);
                }
                for inputs in &cases {
                    match check(k, inputs, d) {
                        Some(true) => ran += 1,
                        Some(false) => bad.push(format!("{k:?} {dtype} input {d}")),
                        None => {}
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "overwriting its input changed: {bad:?}");
    assert!(ran > 100, "{ran} cases ran");
}
