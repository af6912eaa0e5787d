//! PyTensor's `check_preallocated_output`: after a node ran normally,
//! DebugMode runs it again with its output storage already holding
//! arrays of each kind asked for, and the results must not change. An op
//! may reuse what it finds in its output storage, but only if it checks
//! its shape and layout: the contract promises neither. The kinds keep
//! PyTensor's names (`initial`, `previous`, `c_contiguous`,
//! `f_contiguous`, `strided`, `wrong_size`, and `ALL`); each gives one or
//! more *variants*, every one a full set of outputs for the node. Fresh
//! arrays hold garbage (NaN, or -123456789 in integer dtypes), so an op
//! that reads before writing is seen too.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::copy_contiguous;
use crate::kernels::elemwise::cast::scalar_as;
use crate::tensor::Tensor;
use crate::value::Value;

/// A kind of preallocated output storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prealloc {
    /// The storage as a run starts with it: empty (as at the first call).
    Initial,
    /// Copies of what the node returned the time before.
    Previous,
    /// New C-contiguous arrays of the right shape and dtype.
    CContiguous,
    /// New Fortran-ordered arrays of the right shape and dtype.
    FContiguous,
    /// Views with every other element of bigger arrays, and views with
    /// negative strides.
    Strided,
    /// Arrays one longer, and one shorter, along every axis.
    WrongSize,
}

/// The outputs one run starts with, and its name for messages.
pub type Variant = (String, Vec<Option<Value>>);

impl Prealloc {
    /// Every kind, in PyTensor's order (`ALL`).
    pub const ALL: [Prealloc; 6] = [
        Prealloc::Initial,
        Prealloc::Previous,
        Prealloc::CContiguous,
        Prealloc::FContiguous,
        Prealloc::Strided,
        Prealloc::WrongSize,
    ];

    /// PyTensor's name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            Prealloc::Initial => "initial",
            Prealloc::Previous => "previous",
            Prealloc::CContiguous => "c_contiguous",
            Prealloc::FContiguous => "f_contiguous",
            Prealloc::Strided => "strided",
            Prealloc::WrongSize => "wrong_size",
        }
    }

    /// The kinds a list names: PyTensor's names separated by `:` or `,`
    /// (`config.DebugMode__check_preallocated_output`'s form), `ALL` for
    /// every one; empty for an empty list.
    pub fn parse_list(spec: &str) -> Result<Vec<Prealloc>> {
        let mut kinds = Vec::new();
        for name in spec
            .split([':', ','])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let found: Vec<Prealloc> = match name {
                "ALL" => Prealloc::ALL.to_vec(),
                _ => Prealloc::ALL
                    .into_iter()
                    .filter(|k| k.name() == name)
                    .collect(),
            };
            if found.is_empty() {
                return Err(Error::Value(format!(
                    "unknown check_preallocated_output kind {name:?}; expected some of initial, \
                     previous, c_contiguous, f_contiguous, strided, wrong_size, or ALL"
                )));
            }
            for k in found {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
        }
        Ok(kinds)
    }

    /// The runs this kind asks for, given what the node returned
    /// (`reference`, one value per output). A variant that would not
    /// differ from the plain run (a 0-d array cannot have a wrong size) is
    /// left out.
    pub fn variants(self, reference: &[Option<Value>]) -> Result<Vec<Variant>> {
        let name = self.name();
        let each = |f: &dyn Fn(&Tensor) -> Result<Option<Tensor>>| -> Result<Option<Variant>> {
            outputs_from(reference, f).map(|o| o.map(|o| (name.to_owned(), o)))
        };
        let variants = match self {
            Prealloc::Initial => vec![Some((name.to_owned(), vec![None; reference.len()]))],
            Prealloc::Previous => vec![each(&|t| copy_contiguous(t).map(Some))?],
            Prealloc::CContiguous => vec![each(&|t| filled(t.dtype(), t.shape(), Order::C))?],
            Prealloc::FContiguous => vec![each(&|t| filled(t.dtype(), t.shape(), Order::F))?],
            Prealloc::Strided => vec![
                each(&|t| every_other(t.dtype(), t.shape()))?
                    .map(|v| renamed(v, "strided (step 2)")),
                each(&|t| reversed(t.dtype(), t.shape()))?
                    .map(|v| renamed(v, "strided (negative strides)")),
            ],
            Prealloc::WrongSize => vec![
                each(&|t| resized(t, 1))?.map(|v| renamed(v, "wrong_size (one longer)")),
                each(&|t| resized(t, -1))?.map(|v| renamed(v, "wrong_size (one shorter)")),
            ],
        };
        Ok(variants.into_iter().flatten().collect())
    }
}

fn renamed((_, outputs): Variant, name: &str) -> Variant {
    (name.to_owned(), outputs)
}

/// One preallocated value per output: `f` of each tensor output (host
/// outputs start empty). `None` when `f` makes nothing for any output.
fn outputs_from(
    reference: &[Option<Value>],
    f: &dyn Fn(&Tensor) -> Result<Option<Tensor>>,
) -> Result<Option<Vec<Option<Value>>>> {
    let mut any = false;
    let mut outs = Vec::with_capacity(reference.len());
    for v in reference {
        let made = match v {
            Some(Value::Tensor(t)) => f(t)?.map(Value::Tensor),
            _ => None,
        };
        any |= made.is_some();
        outs.push(made);
    }
    Ok(any.then_some(outs))
}

#[derive(Clone, Copy)]
enum Order {
    C,
    F,
}

/// The value fresh storage holds: NaN, or -123456789 cast to the dtype.
fn garbage(dtype: DType) -> Result<Vec<u8>> {
    let t = if dtype.is_float() || dtype.is_complex() {
        scalar_as(f64::NAN, dtype)
    } else {
        scalar_as(-123_456_789i64, dtype)
    };
    t.to_c_bytes()
}

/// A contiguous buffer of `n` garbage elements, as a vector.
fn garbage_buffer(dtype: DType, n: usize) -> Result<Tensor> {
    let one = garbage(dtype)?;
    let bytes = one.repeat(n);
    Tensor::from_bytes(dtype, vec![n], bytes)
}

/// Byte strides of a contiguous array of `shape` in `order`.
fn strides(dtype: DType, shape: &[usize], order: Order) -> Vec<isize> {
    let mut out = vec![0isize; shape.len()];
    let mut step = dtype.itemsize() as isize;
    let axes: Vec<usize> = match order {
        Order::C => (0..shape.len()).rev().collect(),
        Order::F => (0..shape.len()).collect(),
    };
    for a in axes {
        out[a] = step;
        step = step.saturating_mul(shape[a].max(1) as isize);
    }
    out
}

fn size(shape: &[usize]) -> Result<usize> {
    crate::tensor::layout::size(shape)
}

/// A garbage-filled array of `shape` in `order`.
fn filled(dtype: DType, shape: &[usize], order: Order) -> Result<Option<Tensor>> {
    let buf = garbage_buffer(dtype, size(shape)?)?;
    buf.view(shape, &strides(dtype, shape, order), 0).map(Some)
}

/// Every other element of an array twice as long on every axis.
fn every_other(dtype: DType, shape: &[usize]) -> Result<Option<Tensor>> {
    if shape.is_empty() {
        return Ok(None);
    }
    let big: Vec<usize> = shape.iter().map(|&n| n * 2).collect();
    let buf = garbage_buffer(dtype, size(&big)?)?;
    let st: Vec<isize> = strides(dtype, &big, Order::C)
        .iter()
        .map(|s| s * 2)
        .collect();
    buf.view(shape, &st, 0).map(Some)
}

/// A C-ordered array walked backwards on every axis.
fn reversed(dtype: DType, shape: &[usize]) -> Result<Option<Tensor>> {
    if shape.is_empty() || shape.contains(&0) {
        return Ok(None);
    }
    let buf = garbage_buffer(dtype, size(shape)?)?;
    let c = strides(dtype, shape, Order::C);
    let offset: isize = shape
        .iter()
        .zip(&c)
        .map(|(&n, &s)| (n as isize - 1) * s)
        .sum();
    let st: Vec<isize> = c.iter().map(|s| -s).collect();
    buf.view(shape, &st, offset as usize).map(Some)
}

/// A garbage-filled C array `by` longer (or shorter) on every axis.
fn resized(t: &Tensor, by: isize) -> Result<Option<Tensor>> {
    let shape: Vec<usize> = t
        .shape()
        .iter()
        .map(|&n| n.saturating_add_signed(by))
        .collect();
    if shape == t.shape() {
        return Ok(None);
    }
    filled(t.dtype(), &shape, Order::C)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> Vec<Option<Value>> {
        let t = Tensor::from_vec(vec![2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        vec![Some(Value::Tensor(t))]
    }

    fn first(v: &Variant) -> &Tensor {
        v.1[0].as_ref().unwrap().tensor().unwrap()
    }

    #[test]
    fn kinds_parse_by_pytensors_names() {
        assert_eq!(
            Prealloc::parse_list("previous:c_contiguous").unwrap(),
            [Prealloc::Previous, Prealloc::CContiguous]
        );
        assert_eq!(Prealloc::parse_list("ALL").unwrap().len(), 6);
        assert!(Prealloc::parse_list("").unwrap().is_empty());
        let err = Prealloc::parse_list("c_contiguous,sideways").unwrap_err();
        assert!(err.to_string().contains("\"sideways\""), "{err}");
    }

    #[test]
    fn each_kind_makes_storage_of_its_layout() {
        let r = reference();
        let c = Prealloc::CContiguous.variants(&r).unwrap();
        assert!(first(&c[0]).is_c_contiguous());
        assert!(first(&c[0]).get(0) != first(&c[0]).get(0), "NaN garbage");
        let f = Prealloc::FContiguous.variants(&r).unwrap();
        assert_eq!(first(&f[0]).strides(), [8, 16]);
        let s = Prealloc::Strided.variants(&r).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(first(&s[0]).strides(), [96, 16]);
        assert_eq!(first(&s[1]).strides(), [-24, -8]);
        let w = Prealloc::WrongSize.variants(&r).unwrap();
        assert_eq!(first(&w[0]).shape(), [3, 4]);
        assert_eq!(first(&w[1]).shape(), [1, 2]);
        let p = Prealloc::Previous.variants(&r).unwrap();
        let old = r[0].as_ref().unwrap().tensor().unwrap();
        assert!(super::super::compare::same_bytes(first(&p[0]), old).unwrap());
        assert!(!first(&p[0]).shares_buffer(old), "a copy");
        assert!(Prealloc::Initial.variants(&r).unwrap()[0].1[0].is_none());
        let scalar = vec![Some(Value::Tensor(Tensor::scalar(1i32)))];
        assert!(Prealloc::WrongSize.variants(&scalar).unwrap().is_empty());
        let ints = Prealloc::CContiguous.variants(&scalar).unwrap();
        assert_eq!(
            first(&ints[0]).get(0),
            crate::tensor::Scalar::Int(-123_456_789)
        );
    }
}
