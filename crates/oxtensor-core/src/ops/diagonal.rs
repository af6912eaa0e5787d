//! Diagonals of stacked 2-d blocks (`pytensor/tensor/basic.py`'s
//! `ExtractDiag` and `alloc_diag`): `ExtractDiag{offset, axis1, axis2, view}`
//! reads diagonal `offset` of the blocks spanned by two axes as a strided
//! view (NumPy's `diagonal`), `AllocDiag{offset, axis1, axis2}` writes a
//! last axis onto such a diagonal in zeros. Each is the other's gradient.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::zeros_written;
use crate::kernels::copy::{copy_contiguous, region, write_into};
use crate::op_identity;
use crate::ops::infer_shape::{dim_constant, shape_vars};
use crate::ops::join::normalize_axis;
use crate::ops::known;
use crate::ops::scalar_grad::{disconnected, tensor};
use crate::ops::{Dims, InferredShapes, IoMap, Op, Outs, PerformCtx, Tangents};
use crate::scalar::ScalarKind;
use crate::tensor::{c_strides, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// Which diagonal: the offset (`> 0` above the main one) and the two axes
/// spanning the blocks, as given (negative axes count from the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiagSpec {
    /// Diagonal `offset` (NumPy's `offset`).
    pub offset: i64,
    /// The axis of the blocks' rows.
    pub axis1: i64,
    /// The axis of the blocks' columns.
    pub axis2: i64,
}

impl DiagSpec {
    /// The two axes normalised for a tensor of `ndim` axes, checked distinct.
    fn axes(&self, ndim: usize, op: &str) -> Result<(usize, usize)> {
        let a1 = normalize_axis(self.axis1, ndim, op)?;
        let a2 = normalize_axis(self.axis2, ndim, op)?;
        if a1 == a2 {
            return Err(Error::Value(format!(
                "{op}: axis1 and axis2 cannot be the same, got {a1}"
            )));
        }
        Ok((a1, a2))
    }

    /// The diagonal's length in an `n1` by `n2` block.
    fn len(&self, n1: u64, n2: u64) -> u64 {
        let k = self.offset.unsigned_abs();
        if self.offset >= 0 {
            n1.min(n2.saturating_sub(k))
        } else {
            n1.saturating_sub(k).min(n2)
        }
    }

    /// The layout (shape, byte strides, byte offset) of the diagonal of a
    /// tensor laid out as `shape`/`strides` from `offset`: the other axes in
    /// order, then the diagonal, stepping along both axes at once.
    fn layout(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Layout> {
        let (a1, a2) = self.axes(shape.len(), "ExtractDiag")?;
        let len = self.len(shape[a1] as u64, shape[a2] as u64) as usize;
        let rest = (0..shape.len()).filter(|&i| i != a1 && i != a2);
        let mut out_shape: Vec<usize> = rest.clone().map(|i| shape[i]).collect();
        let mut out_strides: Vec<isize> = rest.map(|i| strides[i]).collect();
        out_shape.push(len);
        out_strides.push(strides[a1] + strides[a2]);
        let k = self.offset.unsigned_abs() as isize;
        let start = if len == 0 {
            0
        } else if self.offset >= 0 {
            k * strides[a2]
        } else {
            k * strides[a1]
        };
        let offset = offset as isize + start;
        let offset = usize::try_from(offset)
            .map_err(|_| Error::Value("ExtractDiag: diagonal outside the buffer".into()))?;
        Ok((out_shape, out_strides, offset))
    }

    /// The diagonal's length as a graph, `max(0, min(n1 - max(-k, 0), n2 - max(k, 0)))`.
    fn len_var(&self, g: &mut Graph, n1: VarId, n2: VarId) -> Result<VarId> {
        let (d1, d2) = (0i64.max(-self.offset), 0i64.max(self.offset));
        let (d1, d2) = (dim_constant(g, d1), dim_constant(g, d2));
        let r1 = build::sub(g, n1, d1)?;
        let r2 = build::sub(g, n2, d2)?;
        let len = build::elemwise(g, ScalarKind::Minimum, &[r1, r2])?;
        let zero = dim_constant(g, 0);
        build::elemwise(g, ScalarKind::Maximum, &[len, zero])
    }

    /// `offset=..., axis1=..., axis2=...` for `describe`.
    fn props(&self) -> String {
        format!(
            "offset={}, axis1={}, axis2={}",
            self.offset, self.axis1, self.axis2
        )
    }
}

/// A tensor layout: shape, byte strides, byte offset.
type Layout = (Vec<usize>, Vec<isize>, usize);

/// `ExtractDiag{offset, axis1, axis2, view}`: the diagonal as a last axis
/// after the remaining ones; with `view` the output aliases the input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtractDiag {
    /// Which diagonal.
    pub spec: DiagSpec,
    /// Whether the output is a view of the input (else a copy).
    pub view: bool,
}

impl Op for ExtractDiag {
    op_identity!("ExtractDiag", self => "{}, view={}", self.spec.props(), super::py_bool(self.view));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x] = inputs else {
            return Err(Error::Type(format!(
                "ExtractDiag takes one input, got {}",
                inputs.len()
            )));
        };
        let x = x.expect_tensor("The input of ExtractDiag")?;
        let (a1, a2) = self.spec.axes(x.ndim(), "ExtractDiag")?;
        let rest = (0..x.ndim()).filter(|&i| i != a1 && i != a2);
        let mut shape: Vec<Option<u64>> = rest.map(|i| x.shape[i]).collect();
        shape.push(match (x.shape[a1], x.shape[a2]) {
            (Some(n1), Some(n2)) => Some(self.spec.len(n1, n2)),
            _ => None,
        });
        Ok(vec![TensorType::new(x.dtype, shape)?.into()])
    }

    fn view_map(&self) -> IoMap {
        if self.view {
            vec![(0, vec![0])]
        } else {
            Vec::new()
        }
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let (shape, strides, offset) = self.spec.layout(x.shape(), x.strides(), x.offset())?;
        let diag = x.view(&shape, &strides, offset)?;
        let out = if self.view {
            diag
        } else {
            copy_contiguous(&diag)?
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let dims = &input_shapes[0];
        let (a1, a2) = self.spec.axes(dims.len(), "ExtractDiag")?;
        let mut out: Dims = (0..dims.len())
            .filter(|&i| i != a1 && i != a2)
            .map(|i| dims[i])
            .collect();
        out.push(self.spec.len_var(g, dims[a1], dims[a2])?);
        Ok(Some(vec![out]))
    }

    /// The gradient puts the output's gradient back on the diagonal of
    /// zeros shaped like the input (`AllocDiag` with the input's lengths).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let x_ty = tensor(g, x)?;
        let (a1, a2) = self.spec.axes(x_ty.ndim(), "ExtractDiag")?;
        let dims = shape_vars(g, x)?;
        let gz = build::cast(g, output_grads[0], x_ty.dtype)?;
        let alloc = AllocDiag { spec: self.spec };
        let gx = g.apply_out(Arc::new(alloc), &[gz, dims[a1], dims[a2]])?;
        Ok(vec![gx])
    }

    /// Linear: the same op on the tangent.
    fn pushforward(&self, g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(t) = tangents[0] else {
            return Ok(Some(vec![None]));
        };
        let op = ExtractDiag {
            spec: self.spec,
            view: false,
        };
        Ok(Some(vec![Some(g.apply_out(Arc::new(op), &[t])?)]))
    }
}

/// `AllocDiag{offset, axis1, axis2}`: zeros with the input's last axis on
/// diagonal `offset` of the blocks spanned by `axis1` and `axis2` (axes of
/// the output, which has one axis more). Optional integer inputs give the
/// two block lengths; by default the blocks are square, of the diagonal's
/// length plus `|offset|`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllocDiag {
    /// Which diagonal.
    pub spec: DiagSpec,
}

impl AllocDiag {
    /// The output's two block lengths at run time, checked to hold the
    /// diagonal exactly.
    fn block(&self, inputs: &[&Value], len: usize) -> Result<(usize, usize)> {
        let square = len + self.spec.offset.unsigned_abs() as usize;
        if inputs.len() < 3 {
            return Ok((square, square));
        }
        let mut n = [0usize; 2];
        for (slot, v) in n.iter_mut().zip(&inputs[1..]) {
            let k = known::int_scalar(v.tensor()?, "A block length of AllocDiag")?;
            *slot = usize::try_from(k)
                .map_err(|_| Error::Value(format!("AllocDiag: negative block length {k}")))?;
        }
        if self.spec.len(n[0] as u64, n[1] as u64) != len as u64 {
            return Err(Error::Value(format!(
                "AllocDiag: a diagonal of length {len} does not fit diagonal {} of a {} by {} block",
                self.spec.offset, n[0], n[1]
            )));
        }
        Ok((n[0], n[1]))
    }

    /// The output's shape: the input's leading axes with the two block
    /// axes inserted at `axis1` and `axis2`.
    fn out_shape<T: Copy>(&self, lead: &[T], n1: T, n2: T) -> Result<Vec<T>> {
        let ndim = lead.len() + 2;
        let (a1, a2) = self.spec.axes(ndim, "AllocDiag")?;
        let mut rest = lead.iter();
        Ok((0..ndim)
            .map(|i| match i {
                _ if i == a1 => n1,
                _ if i == a2 => n2,
                _ => *rest.next().expect("ndim - 2 leading axes"),
            })
            .collect())
    }
}

impl Op for AllocDiag {
    op_identity!("AllocDiag", self => "{}", self.spec.props());

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let (d, lengths) = match inputs {
            [d] => (d, &[][..]),
            [d, lengths @ ..] if lengths.len() == 2 => (d, lengths),
            _ => {
                return Err(Error::Type(format!(
                    "AllocDiag takes the diagonal and optionally two block lengths, got {} inputs",
                    inputs.len()
                )))
            }
        };
        let d = d.expect_tensor("The diagonal of AllocDiag")?;
        let Some((&len, lead)) = d.shape.split_last() else {
            return Err(Error::Value(
                "AllocDiag: the diagonal must have at least 1 dimension, got a scalar".into(),
            ));
        };
        for l in lengths {
            let l = l.expect_tensor("A block length of AllocDiag")?;
            if l.ndim() != 0 || !l.dtype.is_integer() {
                return Err(Error::Type(format!(
                    "AllocDiag: block lengths must be integer scalars, got {l}"
                )));
            }
        }
        let square = len.filter(|_| lengths.is_empty());
        let n = square.map(|n| n + self.spec.offset.unsigned_abs());
        let shape = self.out_shape(lead, n, n)?;
        Ok(vec![TensorType::new(d.dtype, shape)?.into()])
    }

    /// The block lengths only shape the output.
    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i == 0]).collect()))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let d = inputs[0].tensor()?;
        let Some((&len, lead)) = d.shape().split_last() else {
            return Err(Error::Value("AllocDiag: the diagonal is a scalar".into()));
        };
        let (n1, n2) = self.block(inputs, len)?;
        let shape = self.out_shape(lead, n1, n2)?;
        outputs[0] = Some(scatter_diagonal(&self.spec, d, &shape)?.into());
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let Some((&len, lead)) = input_shapes[0].split_last() else {
            return Ok(None);
        };
        let (n1, n2) = if input_shapes.len() == 3 {
            let inputs = &g.node(node).inputs;
            let (l1, l2) = (inputs[1], inputs[2]);
            (
                build::cast(g, l1, DType::Int64)?,
                build::cast(g, l2, DType::Int64)?,
            )
        } else {
            let k = dim_constant(g, self.spec.offset.abs());
            let n = build::add(g, len, k)?;
            (n, n)
        };
        Ok(Some(vec![self.out_shape(lead, n1, n2)?]))
    }

    /// The diagonal's gradient is the diagonal of the output's gradient.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let n_inputs = g.node(node).inputs.len();
        let op = ExtractDiag {
            spec: self.spec,
            view: false,
        };
        let mut out = vec![g.apply_out(Arc::new(op), &[output_grads[0]])?];
        out.extend((1..n_inputs).map(|_| disconnected(g)));
        Ok(out)
    }

    /// Linear in the diagonal: the same op on its tangent.
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(t) = tangents[0] else {
            return Ok(Some(vec![None]));
        };
        let mut inputs = g.node(node).inputs.clone();
        inputs[0] = t;
        Ok(Some(vec![Some(
            g.apply_out(Arc::new(self.clone()), &inputs)?,
        )]))
    }
}

/// Zeros of `shape` with `d`'s elements written on `spec`'s diagonal, in
/// C order: `d`'s C-order elements are the diagonal view's.
fn scatter_diagonal(spec: &DiagSpec, d: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let dtype = d.dtype();
    // The diagonal reaches every huge page of a large output (as `eye`'s
    // does), so zeros written on all threads beat calloc's page faults.
    let out = zeros_written(dtype, shape)?;
    let (dshape, dstrides, offset) = spec.layout(shape, &c_strides(dtype, shape), 0)?;
    write_into(d, &region(&out, &dshape, &dstrides, offset)?)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(offset: i64, axis1: i64, axis2: i64) -> DiagSpec {
        DiagSpec {
            offset,
            axis1,
            axis2,
        }
    }

    fn run(op: &dyn Op, inputs: &[&Value]) -> Result<Tensor> {
        crate::ops::test_support::perform_first(op, inputs)
    }

    fn values(t: &Tensor) -> Vec<f64> {
        copy_contiguous(t)
            .unwrap()
            .as_slice::<f64>()
            .unwrap()
            .to_vec()
    }

    /// A 3 by 4 matrix holding 0..12.
    fn matrix() -> Value {
        let data: Vec<f64> = (0..12).map(f64::from).collect();
        Tensor::from_vec(vec![3, 4], data).unwrap().into()
    }

    #[test]
    fn extract_matches_numpy_diagonal() {
        // (offset, axis1, axis2, NumPy's np.diagonal(arange(12).reshape(3, 4), ...)).
        let cases: &[(i64, i64, i64, &[f64])] = &[
            (0, 0, 1, &[0.0, 5.0, 10.0]),
            (1, 0, 1, &[1.0, 6.0, 11.0]),
            (-1, 0, 1, &[4.0, 9.0]),
            (3, 0, 1, &[3.0]),
            (5, 0, 1, &[]),
            (1, 1, 0, &[4.0, 9.0]),
            (0, -1, -2, &[0.0, 5.0, 10.0]),
        ];
        let x = matrix();
        for &(k, a1, a2, want) in cases {
            for view in [false, true] {
                let op = ExtractDiag {
                    spec: spec(k, a1, a2),
                    view,
                };
                let got = run(&op, &[&x]).unwrap();
                assert_eq!(values(&got), want, "offset {k} axes {a1} {a2}");
                assert_eq!(got.shares_buffer(x.tensor().unwrap()), view);
            }
        }
    }

    #[test]
    fn extract_types_and_errors() {
        let x: Type = TensorType::new(DType::Float32, [Some(2), Some(5), None])
            .unwrap()
            .into();
        let op = |k, a1, a2| ExtractDiag {
            spec: spec(k, a1, a2),
            view: false,
        };
        let ty = op(1, 0, 1).output_types(&[&x]).unwrap();
        assert_eq!(
            ty[0].as_tensor().unwrap().shape.to_vec(),
            vec![None, Some(2)]
        );
        let ty = op(-1, 1, 0).output_types(&[&x]).unwrap();
        assert_eq!(
            ty[0].as_tensor().unwrap().shape.to_vec(),
            vec![None, Some(2)]
        );
        assert!(op(0, 1, 1).output_types(&[&x]).is_err());
        assert!(op(0, 0, 3).output_types(&[&x]).is_err());
        let v: Type = TensorType::new(DType::Float32, [None]).unwrap().into();
        assert!(op(0, 0, 1).output_types(&[&v]).is_err());
        assert_eq!(
            op(1, 0, 2).describe(),
            "ExtractDiag{offset=1, axis1=0, axis2=2, view=False}"
        );
    }

    #[test]
    fn alloc_then_extract_round_trips() {
        let d: Value = Tensor::from_vec(vec![2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap()
            .into();
        for (k, a1, a2) in [(0, 0, 1), (1, 0, 2), (-2, 2, 1), (0, -1, 0)] {
            let alloc = AllocDiag {
                spec: spec(k, a1, a2),
            };
            let full = run(&alloc, &[&d]).unwrap();
            let n = 3 + k.unsigned_abs() as usize;
            assert_eq!(full.shape().iter().filter(|&&s| s == n).count(), 2);
            let back = ExtractDiag {
                spec: spec(k, a1, a2),
                view: false,
            };
            let got = run(&back, &[&full.into()]).unwrap();
            assert_eq!(values(&got), values(d.tensor().unwrap()));
        }
    }

    #[test]
    fn alloc_with_block_lengths() {
        let d: Value = Tensor::from_vec(vec![2], vec![7.0f64, 8.0]).unwrap().into();
        let (n1, n2): (Value, Value) = (Tensor::scalar(3i64).into(), Tensor::scalar(2i64).into());
        let alloc = AllocDiag {
            spec: spec(0, 0, 1),
        };
        let got = run(&alloc, &[&d, &n1, &n2]).unwrap();
        assert_eq!(got.shape(), &[3, 2]);
        assert_eq!(values(&got), vec![7.0, 0.0, 0.0, 8.0, 0.0, 0.0]);
        let bad: Value = Tensor::scalar(5i64).into();
        let err = run(&alloc, &[&d, &bad, &bad]).unwrap_err();
        assert!(err.to_string().contains("does not fit"), "{err}");
    }
}
