//! `Bartlett`: the Bartlett (triangular) window of `M` points, NumPy's
//! `bartlett(M)`: float64, empty for `M <= 0`. Mirrors `Bartlett` in
//! `pytensor/tensor/extra_ops.py`.

use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId};
use crate::kernels::alloc::output;
use crate::op_identity;
use crate::ops::known;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::scalar::ScalarKind;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Bartlett`: the input is an integer scalar `M`; the output a float64
/// vector of `max(M, 0)` points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bartlett;

/// The `m` points of the window: `1 - |2k / (m - 1) - 1|`, and `[1]` for
/// one point (NumPy's values).
pub fn bartlett_window(m: usize) -> Vec<f64> {
    if m == 1 {
        return vec![1.0];
    }
    let last = (m as f64) - 1.0;
    (0..m)
        .map(|k| 1.0 - (2.0 * k as f64 / last - 1.0).abs())
        .collect()
}

impl Op for Bartlett {
    op_identity!("Bartlett");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [m] = super::arity::exactly("Bartlett", inputs)?;
        known::expect_int_scalar(m, "The input of bartlett (M)")?;
        Ok(vec![TensorType::new(DType::Float64, [None])?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let m = known::int_scalar(inputs[0].tensor()?, "The input of bartlett (M)")?;
        let window = bartlett_window(usize::try_from(m).unwrap_or(0));
        let mut out = output(Some(ctx.pool), DType::Float64, &[window.len()])?;
        out.as_mut_slice::<f64>()
            .expect("a fresh float64 output")
            .copy_from_slice(&window);
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// `max(M, 0)`.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, _input_shapes: &[Dims]) -> InferredShapes {
        let m = g.node(node).inputs[0];
        let m = build::cast(g, m, DType::Int64)?;
        let zero = build::scalar_constant(g, DType::Int64, 0.0);
        Ok(Some(vec![vec![build::elemwise(
            g,
            ScalarKind::Maximum,
            &[m, zero],
        )?]]))
    }

    /// `M` only counts points: no gradient flows to it.
    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![false]]))
    }

    super::constant_grads::disconnected_pullback!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_match_numpy() {
        // numpy.bartlett(m) for a few m.
        let cases: &[(usize, &[f64])] = &[
            (0, &[]),
            (1, &[1.0]),
            (2, &[0.0, 0.0]),
            (5, &[0.0, 0.5, 1.0, 0.5, 0.0]),
            (4, &[0.0, 2.0 / 3.0, 2.0 / 3.0, 0.0]),
        ];
        for (m, want) in cases {
            let got = bartlett_window(*m);
            assert_eq!(got.len(), want.len());
            for (a, b) in got.iter().zip(*want) {
                assert!((a - b).abs() < 1e-12, "bartlett({m}): {got:?}");
            }
        }
    }

    #[test]
    fn types() {
        let i = Type::from(TensorType::scalar(DType::UInt8));
        let f = Type::from(TensorType::scalar(DType::Float64));
        let out = Bartlett.output_types(&[&i]).unwrap();
        assert_eq!(out[0].as_tensor().unwrap().dtype, DType::Float64);
        assert!(Bartlett.output_types(&[&f]).is_err());
    }
}
