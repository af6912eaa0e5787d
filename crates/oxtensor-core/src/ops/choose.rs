//! `Choose{mode}` (`pytensor/tensor/basic.py`, NumPy's `choose`): each
//! element of the integer array `a` picks which of the stacked `choices`
//! (the first axis of `choices`) gives the output's element there; `a` and
//! one choice broadcast together. `mode` says what an index out of range
//! does: `raise`, `wrap` (modulo) or `clip` (to the nearest end).

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::kernels::copy::copy_contiguous;
use crate::kernels::iter::{broadcast_shapes, broadcast_strides};
use crate::op_identity;
use crate::ops::known;
use crate::ops::scalar_grad::tensor;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// What an index outside `0..n_choices` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChooseMode {
    /// An error.
    Raise,
    /// Taken modulo the number of choices.
    Wrap,
    /// Clipped to the first or the last choice.
    Clip,
}

impl ChooseMode {
    /// The mode named as NumPy names it.
    pub fn parse(name: &str) -> Result<ChooseMode> {
        match name {
            "raise" => Ok(ChooseMode::Raise),
            "wrap" => Ok(ChooseMode::Wrap),
            "clip" => Ok(ChooseMode::Clip),
            _ => Err(Error::Value(format!(
                "choose: mode must be one of 'raise', 'wrap', 'clip', got {name:?}"
            ))),
        }
    }

    /// NumPy's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChooseMode::Raise => "raise",
            ChooseMode::Wrap => "wrap",
            ChooseMode::Clip => "clip",
        }
    }

    /// Index `i` among `n` choices under this mode.
    fn pick(self, i: i64, n: usize) -> Result<usize> {
        let n = n as i64;
        let picked = match self {
            ChooseMode::Raise if (0..n).contains(&i) => i,
            ChooseMode::Raise => {
                return Err(Error::Value(format!(
                    "choose: invalid entry {i} in the choice array (there are {n} choices)"
                )))
            }
            ChooseMode::Wrap => i.rem_euclid(n.max(1)),
            ChooseMode::Clip => i.clamp(0, (n - 1).max(0)),
        };
        Ok(picked as usize)
    }
}

/// `Choose{mode}`: inputs are the integer array `a` and either the
/// `choices` stacked along their first axis (one input) or each choice
/// as its own input (NumPy's tuple of choices; all broadcast together).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Choose {
    /// What an out-of-range index does.
    pub mode: ChooseMode,
}

/// The static broadcast of two shapes (right-aligned; 1 takes the other).
fn broadcast_static(a: &[Option<u64>], b: &[Option<u64>]) -> Vec<Option<u64>> {
    let n = a.len().max(b.len());
    let at = |s: &[Option<u64>], i: usize| (i >= n - s.len()).then(|| s[i - (n - s.len())]);
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (None, Some(d))
            | (Some(d), None)
            | (Some(Some(1)), Some(d))
            | (Some(d), Some(Some(1))) => d,
            (Some(Some(d)), _) | (_, Some(Some(d))) => Some(d),
            _ => None,
        })
        .collect()
}

impl Choose {
    /// Each choice as its own operand: the slices of a stacked `choices`
    /// (two inputs), or the inputs after `a` (the tuple form).
    fn split_choices(inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        if let [stacked] = &inputs[1..] {
            let (n, rest) = stacked.shape().split_first().ok_or_else(|| {
                Error::Value("choose: the choices must have at least 1 dimension".into())
            })?;
            let (s0, rest_strides) = (stacked.strides()[0], &stacked.strides()[1..]);
            return (0..*n)
                .map(|k| {
                    let offset = stacked.offset() as isize + k as isize * s0;
                    stacked.view(rest, rest_strides, offset.max(0) as usize)
                })
                .collect();
        }
        Ok(inputs[1..].iter().map(|t| (*t).clone()).collect())
    }

    /// The static shape of one choice.
    fn choice_shape(inputs: &[&TensorType]) -> Vec<Option<u64>> {
        match &inputs[1..] {
            [stacked] => stacked.shape[1..].to_vec(),
            choices => choices
                .iter()
                .fold(Vec::new(), |acc, c| broadcast_static(&acc, &c.shape)),
        }
    }
}

impl Op for Choose {
    op_identity!("Choose", self => "mode='{}'", self.mode.as_str());

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        if inputs.len() < 2 {
            return Err(Error::Type(format!(
                "Choose takes a and the choices, got {} inputs",
                inputs.len()
            )));
        }
        let types = inputs
            .iter()
            .map(|t| t.expect_tensor("An input of Choose"))
            .collect::<Result<Vec<_>>>()?;
        let a = types[0];
        if !a.dtype.is_integer() {
            return Err(Error::Type(format!(
                "choose: the first argument must be an integer array, got {a}"
            )));
        }
        if types.len() == 2 && types[1].ndim() == 0 {
            return Err(Error::Type(format!(
                "choose: the stacked choices must have at least 1 dimension, got {}",
                types[1]
            )));
        }
        let dtype = types[1..]
            .iter()
            .skip(1)
            .try_fold(types[1].dtype, |d, t| crate::dtype::upcast(&[d, t.dtype]))?;
        let shape = broadcast_static(&a.shape, &Self::choice_shape(&types));
        Ok(vec![TensorType::new(dtype, shape)?.into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<Vec<_>>>()?;
        let choices = Self::split_choices(&tensors)?;
        let a = tensors[0];
        let mut shapes: Vec<&[usize]> = vec![a.shape()];
        shapes.extend(choices.iter().map(|c| c.shape()));
        let shape = broadcast_shapes(&shapes)?;
        let dtypes: Vec<_> = choices.iter().map(|c| c.dtype()).collect();
        let dtype = crate::dtype::upcast(&dtypes)?;
        let ab = copy_contiguous(&a.view(&shape, &broadcast_strides(a, &shape), a.offset())?)?;
        let planes = choices
            .iter()
            .map(|c| {
                let c = crate::kernels::elemwise::cast::cast(c, dtype)?;
                copy_contiguous(&c.view(&shape, &broadcast_strides(&c, &shape), c.offset())?)?
                    .to_c_bytes()
            })
            .collect::<Result<Vec<_>>>()?;
        let size = dtype.itemsize();
        let len = ab.len();
        let mut out = vec![0u8; len * size];
        for (j, dst) in out.chunks_exact_mut(size.max(1)).enumerate().take(len) {
            let k = self
                .mode
                .pick(known::int_at(&ab, j, "A choice index")?, planes.len())?;
            dst.copy_from_slice(&planes[k][j * size..(j + 1) * size]);
        }
        outputs[0] = Some(Tensor::from_bytes(dtype, shape.to_vec(), out)?.into());
        Ok(())
    }

    /// The broadcast of `a`'s shape and one choice's, for the stacked
    /// form: an axis statically of length 1 (or missing) takes the other
    /// operand's length. The tuple form is left to `Shape_i` of the output.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        if input_shapes.len() != 2 {
            return Ok(None);
        }
        let inputs = g.node(node).inputs.clone();
        let at = tensor(g, inputs[0])?;
        let (ad, cd) = (&input_shapes[0], &input_shapes[1][1..]);
        let n = ad.len().max(cd.len());
        let (apad, cpad) = (n - ad.len(), n - cd.len());
        let dims = (0..n).map(|i| {
            let a_one = i < apad || at.shape[i - apad] == Some(1);
            if i >= apad && !(a_one && i >= cpad) {
                ad[i - apad]
            } else {
                cd[i - cpad]
            }
        });
        Ok(Some(vec![dims.collect()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn run(op: &Choose, a: &Value, c: &Value) -> Result<Tensor> {
        crate::ops::test_support::perform_first(op, &[a, c])
    }

    #[test]
    fn modes_match_numpy() {
        // np.choose([0, 3, -1, 1], [[1, 2, 3, 4], [10, 20, 30, 40], [5, 6, 7, 8]], mode=...).
        let a: Value = Tensor::from_vec(vec![4], vec![0i32, 3, -1, 1])
            .unwrap()
            .into();
        let data: Vec<f32> = vec![1., 2., 3., 4., 10., 20., 30., 40., 5., 6., 7., 8.];
        let c: Value = Tensor::from_vec(vec![3, 4], data).unwrap().into();
        let cases: &[(ChooseMode, [f32; 4])] = &[
            (ChooseMode::Wrap, [1., 2., 7., 40.]),
            (ChooseMode::Clip, [1., 6., 3., 40.]),
        ];
        for (mode, want) in cases {
            let got = run(&Choose { mode: *mode }, &a, &c).unwrap();
            assert_eq!(got.as_slice::<f32>().unwrap(), want, "{mode:?}");
        }
        let err = run(
            &Choose {
                mode: ChooseMode::Raise,
            },
            &a,
            &c,
        )
        .unwrap_err();
        assert!(err.to_string().contains("invalid entry 3"), "{err}");
    }

    #[test]
    fn broadcasts_and_checks_types() {
        let a: Value = Tensor::scalar(1i64).into();
        let c: Value = Tensor::from_vec(vec![2, 1], vec![1.0f64, 2.0])
            .unwrap()
            .into();
        let got = run(
            &Choose {
                mode: ChooseMode::Raise,
            },
            &a,
            &c,
        )
        .unwrap();
        assert_eq!(
            (got.shape(), got.as_slice::<f64>().unwrap()),
            (&[1usize][..], &[2.0][..])
        );
        let op = Choose {
            mode: ChooseMode::Raise,
        };
        let f: Type = TensorType::new(DType::Float32, []).unwrap().into();
        let m: Type = TensorType::new(DType::Float32, [None, Some(1)])
            .unwrap()
            .into();
        assert!(op.output_types(&[&f, &m]).is_err());
        let i: Type = TensorType::new(DType::Int32, [Some(3)]).unwrap().into();
        let ty = op.output_types(&[&i, &m]).unwrap();
        assert_eq!(ty[0].as_tensor().unwrap().shape.to_vec(), vec![Some(3)]);
        assert!(ChooseMode::parse("nope").is_err());
    }

    #[test]
    fn tuple_of_choices_broadcast_together() {
        // np.choose([[0], [1]], ([1., 2., 3.], 7)) -> [[1, 2, 3], [7, 7, 7]].
        let a: Value = Tensor::from_vec(vec![2, 1], vec![0i8, 1]).unwrap().into();
        let b: Value = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0])
            .unwrap()
            .into();
        let c: Value = Tensor::scalar(7i32).into();
        let op = Choose {
            mode: ChooseMode::Raise,
        };
        let got = crate::ops::test_support::perform_first(&op, &[&a, &b, &c]).unwrap();
        assert_eq!(got.shape(), &[2, 3]);
        assert_eq!(got.as_slice::<f64>().unwrap(), &[1., 2., 3., 7., 7., 7.]);
        let types: Vec<Type> = [
            (DType::Int8, vec![None, Some(1)]),
            (DType::Float32, vec![Some(3)]),
            (DType::Int32, vec![]),
        ]
        .into_iter()
        .map(|(d, s)| TensorType::new(d, s).unwrap().into())
        .collect();
        let refs: Vec<&Type> = types.iter().collect();
        let ty = op.output_types(&refs).unwrap();
        let ty = ty[0].as_tensor().unwrap();
        assert_eq!(
            (ty.dtype, ty.shape.to_vec()),
            (DType::Float64, vec![None, Some(3)])
        );
    }
}
