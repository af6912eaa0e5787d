//! `Argmin`: the int64 position of the minimum over some axes. PyTensor has
//! no such op: `argmin(x)` is `Argmax` of the order-reversed input (`-x` for
//! floats, `~x` for integers and bools). The specialize rewrite
//! `local_argmax_of_reversed` (`rewrite/families/argmin.rs`) puts this op in
//! that pair's place, so the reversed copy is never written.

use super::argmax::Argmax;
use crate::error::{Error, Result};
use crate::kernels::argmax::argmin;
use crate::op_identity;
use crate::ops::Op;
use crate::types::TensorType;

/// `Argmin{axis=(1,)}`: indices count in the C order of the reduced axes;
/// the first minimum wins, and a NaN is smaller than everything (the
/// first NaN wins), as `Argmax` of the negated values picks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Argmin {
    /// Sorted, non-negative axes, or `None` for all.
    pub axis: Option<Vec<usize>>,
}

impl Argmin {
    /// The op over `axis` (negative counts from the end) of an `ndim` input.
    pub fn new(axis: Option<&[i64]>, ndim: usize) -> Result<Self> {
        Ok(Argmin {
            axis: Argmax::new(axis, ndim)?.axis,
        })
    }

    /// The `Argmax` over the same axes (same types and shapes).
    fn argmax(&self) -> Argmax {
        Argmax {
            axis: self.axis.clone(),
        }
    }

    /// The reduced axes of a rank-`ndim` input.
    pub fn axes(&self, ndim: usize) -> Vec<usize> {
        self.argmax().axes(ndim)
    }

    /// The output type: int64, the input without the reduced axes.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        self.argmax()
            .output_type(input)
            .map_err(|e| Error::Type(e.to_string().replace("Argmax", "Argmin")))
    }
}

impl Op for Argmin {
    op_identity!("Argmin");

    /// `Argmin{axis=(0, 2)}`, `Argmin{axis=None}`, as `Argmax` prints.
    fn describe(&self) -> String {
        self.argmax().describe().replacen("Argmax", "Argmin", 1)
    }

    super::shape_rules::reduction_types!();

    super::argmax::position_methods!(argmin);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::FunctionGraph;
    use crate::ops::infer_shape::node_output_shapes;
    use std::sync::Arc;

    #[test]
    fn names_types_and_values() {
        let op = Argmin::new(Some(&[-1]), 2).unwrap();
        assert_eq!(op.describe(), "Argmin{axis=(1,)}");
        assert_eq!(
            Argmin::new(None, 2).unwrap().describe(),
            "Argmin{axis=None}"
        );
        let x = TensorType::new(DType::Float32, [Some(4), None]).unwrap();
        let out = op.output_type(&x).unwrap();
        assert_eq!(
            (out.dtype, out.shape.to_vec()),
            (DType::Int64, vec![Some(4)])
        );
        let c = TensorType::with_ndim(DType::Complex64, 1);
        let err = Argmin::new(None, 1).unwrap().output_type(&c).unwrap_err();
        assert!(err.to_string().contains("Argmin"), "{err}");

        let (mut g, [xv]) = graph_with([("x", DType::Float32, 2)]);
        let y = g.apply_out(Arc::new(op), &[xv]).unwrap();
        let fg = FunctionGraph::new(g, vec![xv], vec![y]).unwrap();
        let opts = crate::vm::LinkOptions::default();
        let prog = crate::vm::Program::link(&fg, Default::default(), &opts).unwrap();
        let v = crate::tensor::Tensor::from_vec(
            vec![2, 3],
            vec![3.0f32, f32::NAN, -1.0, 2.0, -5.0, -5.0],
        )
        .unwrap();
        let got = prog.run(&[v.into()]).unwrap();
        let got = got[0].tensor().unwrap().as_slice::<i64>().unwrap().to_vec();
        assert_eq!(got, vec![1, 1], "NaN wins, then the first minimum");
    }

    #[test]
    fn shape_is_the_kept_axes() {
        let (mut g, [x]) = graph_with([("x", DType::Int16, 3)]);
        let op = Argmin::new(Some(&[0, 2]), 3).unwrap();
        let y = g.apply_out(Arc::new(op), &[x]).unwrap();
        let node = g.var(y).owner().unwrap();
        let shapes = node_output_shapes(&mut g, node).unwrap();
        assert_eq!(shapes[0].len(), 1);
    }
}
