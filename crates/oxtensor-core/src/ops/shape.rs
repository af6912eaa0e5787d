//! Shape ops: `Shape` (the shape as an int64 vector), `Shape_i` (one
//! length) and `Reshape`. Mirrors `pytensor/tensor/shape.py`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::VarKind;
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::grad_rules;
use crate::ops::infer_shape;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::tensor::{c_strides, layout, Tensor};
use crate::types::{fmt_tuple, TensorType, Type};
use crate::value::Value;

/// `Shape`: the input's shape as an int64 vector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape;

impl Op for Shape {
    op_identity!("Shape");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let ndim = super::arity::single_tensor(self, inputs)?.ndim();
        Ok(vec![
            TensorType::new(DType::Int64, [Some(ndim as u64)])?.into()
        ])
    }

    /// The output depends on the input's shape, not its elements.
    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![false]]))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dims: Vec<i64> = inputs[0]
            .tensor()?
            .shape()
            .iter()
            .map(|&d| d as i64)
            .collect();
        outputs[0] = Some(Tensor::from_vec(vec![dims.len()], dims)?.into());
        Ok(())
    }

    /// A vector as long as the input's rank.
    fn infer_shape(&self, g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let rank = infer_shape::dim_constant(g, input_shapes[0].len() as i64);
        Ok(Some(vec![vec![rank]]))
    }

    super::constant_grads::disconnected_grads!();
}

/// `Shape_i{i}`: the length of axis `i`, an int64 scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeI {
    /// The axis.
    pub i: usize,
}

impl Op for ShapeI {
    op_identity!("Shape_i", self => "{}", self.i);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [input] = super::arity::exactly("Shape_i", inputs)?;
        let ndim = input.expect_tensor("The input of Shape_i")?.ndim();
        if self.i >= ndim {
            return Err(Error::Type(format!(
                "{} needs an input with more than {} dimensions, got {ndim}",
                self.describe(),
                self.i
            )));
        }
        Ok(vec![TensorType::scalar(DType::Int64).into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let len = *x.shape().get(self.i).ok_or_else(|| {
            Error::Shape(format!(
                "{} got an input with only {} dimensions",
                self.describe(),
                x.ndim()
            ))
        })?;
        outputs[0] = Some(Tensor::scalar(len as i64).into());
        Ok(())
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![false]]))
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, _input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![Vec::new()]))
    }

    super::constant_grads::disconnected_grads!();
}

/// `Reshape{ndim}`: inputs are the tensor and an integer shape vector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reshape {
    /// The output rank.
    pub ndim: usize,
}

impl Reshape {
    /// The output type; `known` holds the shape vector's entries where they
    /// are constants (`-1` stays unknown).
    pub fn output_type(&self, input: &TensorType, known: Option<&[i64]>) -> Result<TensorType> {
        let entries: Option<Vec<Option<i64>>> =
            known.map(|k| k.iter().copied().map(Some).collect());
        self.output_type_of_entries(input, entries.as_deref())
    }

    /// The output type; `known` holds the shape vector's entries, each its
    /// constant value where it is one (`None` for an entry computed at run
    /// time; `-1` stays unknown), or is `None` when nothing is known.
    pub fn output_type_of_entries(
        &self,
        input: &TensorType,
        known: Option<&[Option<i64>]>,
    ) -> Result<TensorType> {
        self.output_type_with_lengths(input, known, &[])
    }

    /// [`Self::output_type_of_entries`], where `lengths_of[j]` names the
    /// input axis whose length entry `j` is (`Shape_i{k}` of the reshaped
    /// input): those axes drop out of the size the free length is deduced
    /// from, so `flatten` of a `(?, 1, 1, 1)` input, `x.reshape((Shape_i{0}(x),
    /// -1))`, is typed `(?, 1)`.
    pub fn output_type_with_lengths(
        &self,
        input: &TensorType,
        known: Option<&[Option<i64>]>,
        lengths_of: &[Option<usize>],
    ) -> Result<TensorType> {
        let shape: Vec<Option<u64>> = match known {
            Some(k) if k.len() == self.ndim => k
                .iter()
                .map(|d| d.and_then(|d| (d >= 0).then_some(d as u64)))
                .collect(),
            Some(k) => {
                return Err(Error::Value(format!(
                    "Reshape{{{}}} got a shape of length {}: {}",
                    self.ndim,
                    k.len(),
                    fmt_entries(k)
                )))
            }
            None => vec![None; self.ndim],
        };
        if let Some(k) = known {
            check_reshape(input, k)?;
        }
        TensorType::new(input.dtype, deduce_free_length(input, shape, lengths_of))
    }
}

/// `(6, -1, ?)`: a shape's entries as PyTensor prints them in messages.
fn fmt_entries(k: &[Option<i64>]) -> String {
    fmt_tuple(
        k.iter()
            .map(|d| d.map_or("?".to_string(), |d| d.to_string())),
    )
}

/// As PyTensor's `Reshape.make_node`: when the input's size is static and
/// one output length is unknown (a `-1`, or an entry known only at run
/// time), that length is the quotient, so `(2, 3)` reshaped to `(3, -1)` or
/// `(3, n)` is typed `(3, 2)`. Entries that are the input's own lengths
/// (`lengths_of`, each axis at most once) cancel their axes, so only the
/// other axes' lengths need be static.
fn deduce_free_length(
    input: &TensorType,
    mut shape: Vec<Option<u64>>,
    lengths_of: &[Option<usize>],
) -> Vec<Option<u64>> {
    let length_of = |j: usize| lengths_of.get(j).copied().flatten();
    let free: Vec<usize> = (0..shape.len())
        .filter(|&i| shape[i].is_none() && length_of(i).is_none())
        .collect();
    let cancelled = match free[..] {
        [_] => cancelled_axes(input.shape.len(), lengths_of),
        _ => None,
    };
    let (free, cancelled) = match cancelled {
        Some(c) => (free[0], c),
        None => {
            // Nothing cancels: every other entry must be known.
            let unknown: Vec<usize> = (0..shape.len()).filter(|&i| shape[i].is_none()).collect();
            let [free] = unknown[..] else {
                return shape;
            };
            (free, vec![false; input.shape.len()])
        }
    };
    let cancels = |j: usize| length_of(j).is_some_and(|k| cancelled[k]);
    let rest: Option<u64> = input
        .shape
        .iter()
        .zip(&cancelled)
        .filter(|(_, c)| !**c)
        .try_fold(1u64, |acc, (d, _)| d.map(|d| acc * d));
    let others: u64 = (0..shape.len())
        .filter(|&j| j != free && !cancels(j))
        .filter_map(|j| shape[j])
        .product();
    shape[free] = rest.and_then(|r| (others != 0 && r % others == 0).then(|| r / others));
    shape
}

/// The input axes whose lengths are entries of the shape, or `None` when an
/// axis is named twice (its length would count twice) or is out of range.
fn cancelled_axes(ndim: usize, lengths_of: &[Option<usize>]) -> Option<Vec<bool>> {
    let mut covered = vec![false; ndim];
    for k in lengths_of.iter().flatten() {
        if covered.get(*k) != Some(&false) {
            return None;
        }
        covered[*k] = true;
    }
    Some(covered)
}

/// Refuses shapes that cannot hold the input's statically known size:
/// entries known only at run time must make up what the known ones leave.
fn check_reshape(input: &TensorType, shape: &[Option<i64>]) -> Result<()> {
    let free = shape.iter().filter(|d| **d == Some(-1)).count();
    if free > 1 || shape.iter().any(|d| d.is_some_and(|d| d < -1)) {
        return Err(Error::Value(format!(
            "Invalid shape {}: at most one -1 and no other negative lengths",
            fmt_entries(shape)
        )));
    }
    let static_size: Option<u64> = input
        .shape
        .iter()
        .try_fold(1u64, |acc, d| d.map(|d| acc * d));
    let target: u64 = shape
        .iter()
        .flatten()
        .filter(|&&d| d >= 0)
        .map(|&d| d as u64)
        .product();
    let has_free = free > 0 || shape.iter().any(Option::is_none);
    if let Some(size) = static_size {
        let fits = if has_free {
            target != 0 && size % target == 0 || size == 0
        } else {
            size == target
        };
        if !fits {
            return Err(Error::Value(format!(
                "Reshape: Input shape {} is incompatible with new shape {}",
                input.repr_shape(),
                fmt_entries(shape)
            )));
        }
    }
    Ok(())
}

impl Op for Reshape {
    op_identity!("Reshape", self => "{}", self.ndim);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [input, shape] = super::arity::exactly("Reshape", inputs)?;
        let shape = shape.expect_tensor("The shape of Reshape")?;
        if !shape.dtype.is_integer() || shape.ndim() != 1 {
            return Err(Error::Type(format!(
                "Reshape's shape must be an integer vector, got {shape}"
            )));
        }
        Ok(vec![self
            .output_type(input.expect_tensor("The input of Reshape")?, None)?
            .into()])
    }

    /// The output views the input's memory when its layout allows (a copy
    /// otherwise, which a view map permits), as PyTensor's `Reshape`
    /// declares; DebugMode found the undeclared view.
    fn view_map(&self) -> crate::ops::IoMap {
        vec![(0, vec![0])]
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![false]]))
    }

    /// A view when the input is contiguous, else a reshaped copy.
    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let shape = runtime_shape(x.len(), inputs[1].tensor()?)?;
        if shape.len() != self.ndim {
            // PyTensor's `Reshape.perform` asserts the length.
            return Err(Error::Assertion(format!(
                "{} got a shape of length {}: {shape:?}",
                self.describe(),
                shape.len()
            )));
        }
        let x = crate::kernels::copy::to_contiguous(x)?;
        let strides = c_strides(x.dtype(), &shape);
        outputs[0] = Some(x.view(&shape, &strides, x.offset())?.into());
        Ok(())
    }

    /// Known from a constant shape input (its `-1` is the input's size over
    /// the other lengths); otherwise only if the output type knows it all.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let n = g.node(node).clone();
        if let VarKind::Constant(c) = &g.var(n.inputs[1]).kind {
            let dims = int_entries(c.value.tensor()?)?;
            return constant_reshape(g, &dims, &input_shapes[0]).map(|s| Some(vec![s]));
        }
        if let Some(entries) = make_vector_entries(g, n.inputs[1]) {
            return symbolic_reshape(g, &entries, &input_shapes[0]).map(|s| Some(vec![s]));
        }
        let out = g.var(n.outputs[0]).ty.expect_tensor("The output")?.clone();
        let Some(dims) = out.shape.iter().copied().collect::<Option<Vec<_>>>() else {
            return Ok(None);
        };
        let shape = dims
            .iter()
            .map(|&d| infer_shape::dim_constant(g, d as i64))
            .collect();
        Ok(Some(vec![shape]))
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        grad_rules::reshape_pullback(g, node, output_grads[0])
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let out = match tangents[0] {
            Some(v) => {
                let shape = g.node(node).inputs[1];
                Some(g.apply_out(std::sync::Arc::new(self.clone()), &[v, shape])?)
            }
            None => None,
        };
        Ok(Some(vec![out]))
    }
}

/// The symbolic shape of a reshape to the constant `dims`: `-1` becomes
/// the product of the input's lengths divided by the other lengths.
fn constant_reshape(g: &mut Graph, dims: &[i64], input: &[VarId]) -> Result<Vec<VarId>> {
    let known: i64 = dims.iter().filter(|&&d| d != -1).product();
    let mut shape = Vec::with_capacity(dims.len());
    for &d in dims {
        if d != -1 {
            shape.push(infer_shape::dim_constant(g, d));
            continue;
        }
        let mut size = infer_shape::dim_constant(g, 1);
        for &len in input {
            size = crate::build::mul(g, size, len)?;
        }
        let known = infer_shape::dim_constant(g, known.max(1));
        shape.push(crate::build::int_div(g, size, known)?);
    }
    Ok(shape)
}

/// The scalars a `MakeVector` shape input is made of.
fn make_vector_entries(g: &Graph, shape: VarId) -> Option<Vec<VarId>> {
    let node = g.var(shape).owner()?;
    let node = g.node(node);
    node.op
        .as_any()
        .is::<crate::ops::make_vector::MakeVector>()
        .then(|| node.inputs.clone())
}

/// The symbolic shape of a reshape to scalar entries, any of which may be
/// `-1` at run time: that entry is the input's size over the others'
/// product, which is `size // -(product of all entries)`.
fn symbolic_reshape(g: &mut Graph, entries: &[VarId], input: &[VarId]) -> Result<Vec<VarId>> {
    let entries = entries
        .iter()
        .map(|&e| crate::build::cast(g, e, DType::Int64))
        .collect::<Result<Vec<_>>>()?;
    let mut size = infer_shape::dim_constant(g, 1);
    for &len in input {
        size = crate::build::mul(g, size, len)?;
    }
    let mut all = infer_shape::dim_constant(g, 1);
    for &e in &entries {
        all = crate::build::mul(g, all, e)?;
    }
    let others = crate::build::neg(g, all)?;
    let fill = crate::build::int_div(g, size, others)?;
    let minus_one = infer_shape::dim_constant(g, -1);
    entries
        .iter()
        .map(|&e| {
            let is_free = crate::build::eq(g, e, minus_one)?;
            crate::build::switch(g, is_free, fill, e)
        })
        .collect()
}

/// The entries of an integer shape vector.
fn int_entries(shape: &Tensor) -> Result<Vec<i64>> {
    (0..shape.len())
        .map(|i| match shape.get(i) {
            crate::tensor::Scalar::Int(v) => Ok(v),
            crate::tensor::Scalar::UInt(v) => i64::try_from(v)
                .map_err(|_| Error::Value(format!("Reshape: shape entry {v} is too large"))),
            other => Err(Error::Type(format!(
                "Reshape needs integer shapes, got {other:?}"
            ))),
        })
        .collect()
}

/// The requested shape with `-1` filled in, checked against `size` (NumPy's messages).
fn runtime_shape(size: usize, shape: &Tensor) -> Result<Vec<usize>> {
    let dims = int_entries(shape)?;
    let free = dims.iter().filter(|&&d| d == -1).count();
    let bad = || {
        Error::Shape(format!(
            "cannot reshape array of size {size} into shape {dims:?}"
        ))
    };
    if free > 1 || dims.iter().any(|&d| d < -1) {
        return Err(bad());
    }
    let given: Vec<usize> = dims
        .iter()
        .filter(|&&d| d != -1)
        .map(|&d| d as usize)
        .collect();
    // Checked: `4 * (2**62 + 1)` must not wrap around to a size of 4.
    let known = layout::size(&given).map_err(|_| bad())?;
    let fill = match free {
        1 if known != 0 && size.is_multiple_of(known) => size / known,
        1 => return Err(bad()),
        _ if known == size => 0,
        _ => return Err(bad()),
    };
    Ok(dims
        .iter()
        .map(|&d| if d == -1 { fill } else { d as usize })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_s_own_lengths_cancel_their_axes() {
        let of = |shape: &[Option<u64>]| TensorType::new(DType::Float64, shape.to_vec()).unwrap();
        let typed =
            |x: &TensorType, ndim: usize, known: &[Option<i64>], lengths: &[Option<usize>]| {
                let out = Reshape { ndim }.output_type_with_lengths(x, Some(known), lengths);
                out.unwrap().shape.to_vec()
            };
        // flatten(x, 2) of (?, 1, 1, 1): (Shape_i{0}(x), -1).
        let x = of(&[None, Some(1), Some(1), Some(1)]);
        assert_eq!(
            typed(&x, 2, &[None, Some(-1)], &[Some(0), None]),
            [None, Some(1)]
        );
        // Without knowing the entry is x's own length, nothing is deduced.
        assert_eq!(typed(&x, 2, &[None, Some(-1)], &[None, None]), [None, None]);
        // flatten(x, 3) of (1, ?, 2, 3): (Shape_i{0}(x) = 1, Shape_i{1}(x), -1).
        let y = of(&[Some(1), None, Some(2), Some(3)]);
        let out = typed(&y, 3, &[Some(1), None, Some(-1)], &[Some(0), Some(1), None]);
        assert_eq!(out, [Some(1), None, Some(6)]);
        // A constant entry divides what is left; an axis named twice cancels nothing.
        assert_eq!(
            typed(&y, 3, &[None, Some(2), Some(-1)], &[Some(1), None, None]),
            [None, Some(2), Some(3)]
        );
        assert_eq!(
            typed(&y, 3, &[None, None, Some(-1)], &[Some(1), Some(1), None]),
            [None, None, None]
        );
        // A length that does not divide is left to the run-time check.
        let z = of(&[None, Some(3)]);
        assert_eq!(
            typed(&z, 3, &[None, Some(2), Some(-1)], &[Some(0), None, None]),
            [None, Some(2), None]
        );
    }

    #[test]
    fn reshape_types() {
        let x = TensorType::new(DType::Float64, [Some(2), Some(3)]).unwrap();
        let r = Reshape { ndim: 2 };
        assert_eq!(
            r.output_type(&x, Some(&[3, -1])).unwrap().shape.as_slice(),
            &[Some(3), Some(2)]
        );
        let rows = TensorType::new(DType::Float64, [None, Some(3)]).unwrap();
        assert_eq!(
            r.output_type(&rows, Some(&[3, -1]))
                .unwrap()
                .shape
                .as_slice(),
            &[Some(3), None],
            "an unknown input size leaves the -1 unknown"
        );
        assert_eq!(
            r.output_type(&x, Some(&[0, -1])).unwrap_err().to_string(),
            "Reshape: Input shape (2, 3) is incompatible with new shape (0, -1)"
        );
        assert!(r.output_type(&x, Some(&[4, -1])).is_err());
        assert!(r.output_type(&x, Some(&[5, 1])).is_err());
        assert!(r.output_type(&x, Some(&[6])).is_err());
        // An entry known at run time only: the static size gives it.
        assert_eq!(
            r.output_type_of_entries(&x, Some(&[Some(3), None]))
                .unwrap()
                .shape
                .as_slice(),
            &[Some(3), Some(2)]
        );
        assert!(r
            .output_type_of_entries(&x, Some(&[Some(4), None]))
            .is_err());
        let cube = TensorType::new(DType::Float64, [Some(2), Some(2), Some(6)]).unwrap();
        let r3 = Reshape { ndim: 3 };
        assert_eq!(
            r3.output_type(&cube, Some(&[6, 3, 99]))
                .unwrap_err()
                .to_string(),
            "Reshape: Input shape (2, 2, 6) is incompatible with new shape (6, 3, 99)"
        );
        assert_eq!(Reshape { ndim: 2 }.describe(), "Reshape{2}");
        let shape = Shape.output_types(&[&x.into()]).unwrap();
        assert_eq!(shape[0].to_string(), "Vector(int64, shape=(2,))");
    }
}
