//! Broadcasting and strided iteration. Operands are walked in the output's
//! C order; dimensions that are contiguous for every operand are merged so
//! the innermost loop is as long as possible.

#[cfg(test)]
mod proptests;

use crate::error::{Error, Result};
use crate::tensor::{layout, Dims, Strides, Tensor};
use smallvec::SmallVec;

/// NumPy's broadcast of runtime shapes.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Dims> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out: Dims = SmallVec::from_elem(1, ndim);
    for shape in shapes {
        let pad = ndim - shape.len();
        for (d, &n) in shape.iter().enumerate() {
            let o = &mut out[pad + d];
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                return Err(Error::Shape(format!(
                    "shapes {} cannot be broadcast together",
                    list_shapes(shapes)
                )));
            }
        }
    }
    check_broadcast_size(&out, || format!("shapes {}", list_shapes(shapes)))?;
    Ok(out)
}

/// Checks that a broadcast shape `out` has at most 2**63 - 1 elements,
/// the error naming the inputs as `what()` does. Inputs may be broadcast
/// views of any length (a NumPy array with a zero stride), so the result's
/// size is checked before anyone counts its elements: (274177, 1) and
/// (1, 67280421310721) make 2**64 + 1.
pub(crate) fn check_broadcast_size(out: &[usize], what: impl FnOnce() -> String) -> Result<()> {
    layout::size(out).map_err(|_| {
        Error::Memory(format!(
            "{} broadcast to {}, which has more than 2**63 - 1 elements",
            what(),
            layout::fmt_shape(out)
        ))
    })?;
    Ok(())
}

fn list_shapes(shapes: &[&[usize]]) -> String {
    let items: Vec<String> = shapes.iter().map(|s| layout::fmt_shape(s)).collect();
    items.join(", ")
}

/// Byte strides of `t` seen with shape `shape` (right-aligned; broadcast
/// dimensions get stride 0). Every strided walk over a broadcast operand
/// takes its strides from here, so the bound is checked here: `t` must
/// broadcast to `shape` (each length 1 or `shape`'s), or the walk would
/// leave `t`'s checked layout; anything else is a bug in the caller and
/// panics (O(ndim), once per kernel call).
pub fn broadcast_strides(t: &Tensor, shape: &[usize]) -> Strides {
    let pad = shape.len().checked_sub(t.ndim());
    let fits = pad.is_some_and(|pad| {
        t.shape()
            .iter()
            .enumerate()
            .all(|(d, &n)| n == 1 || n == shape[pad + d])
    });
    assert!(fits, "{:?} does not broadcast to {shape:?}", t.shape());
    let pad = shape.len() - t.ndim();
    (0..shape.len())
        .map(|d| {
            if d < pad || t.shape()[d - pad] == 1 {
                0
            } else {
                t.strides()[d - pad]
            }
        })
        .collect()
}

/// A loop nest over `N` operands with merged dimensions.
#[derive(Clone, Debug)]
pub struct Nest<const N: usize> {
    shape: Dims,
    strides: [Strides; N],
}

impl<const N: usize> Nest<N> {
    /// Merges adjacent dimensions that are contiguous in every operand, and
    /// drops dimensions of length 1.
    pub fn new(shape: &[usize], strides: [Strides; N]) -> Self {
        let mut out_shape: Dims = SmallVec::new();
        let mut out_strides: [Strides; N] = std::array::from_fn(|_| SmallVec::new());
        for d in 0..shape.len() {
            if shape[d] == 1 {
                continue;
            }
            let merge = out_shape.last().is_some_and(|_| {
                (0..N).all(|k| {
                    out_strides[k].last().copied() == Some(strides[k][d] * shape[d] as isize)
                })
            });
            if merge {
                let last = out_shape.len() - 1;
                out_shape[last] *= shape[d];
                for k in 0..N {
                    out_strides[k][last] = strides[k][d];
                }
            } else {
                out_shape.push(shape[d]);
                for k in 0..N {
                    out_strides[k].push(strides[k][d]);
                }
            }
        }
        Nest {
            shape: out_shape,
            strides: out_strides,
        }
    }

    /// The merged lengths, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Operand `k`'s byte strides along the merged lengths.
    pub fn strides(&self, k: usize) -> &[isize] {
        &self.strides[k]
    }

    /// Up to `parts` nests that together cover this one, cut along its
    /// outermost dimension into nearly equal ranges, each with the byte
    /// offsets of its first element in every operand. Lets a kernel hand
    /// disjoint parts of an output to different threads.
    pub fn split_outer(&self, parts: usize) -> Vec<([isize; N], Nest<N>)> {
        let Some(&len) = self.shape.first() else {
            return vec![([0; N], self.clone())];
        };
        let parts = parts.clamp(1, len.max(1));
        (0..parts)
            .map(|p| {
                let (lo, hi) = (len * p / parts, len * (p + 1) / parts);
                let mut part = self.clone();
                part.shape[0] = hi - lo;
                let offsets = std::array::from_fn(|k| lo as isize * self.strides[k][0]);
                (offsets, part)
            })
            .collect()
    }

    /// The nest without its innermost dimension, that dimension's length
    /// and each operand's byte step along it; `None` for a 0-d nest. Lets
    /// a kernel handle several innermost runs at once (the outer nest's
    /// runs are then runs of runs).
    pub fn split_inner(&self) -> Option<(Nest<N>, usize, [isize; N])> {
        let inner = self.shape.len().checked_sub(1)?;
        let outer = Nest {
            shape: self.shape[..inner].into(),
            strides: std::array::from_fn(|k| self.strides[k][..inner].into()),
        };
        let steps = std::array::from_fn(|k| self.strides[k][inner]);
        Some((outer, self.shape[inner], steps))
    }

    /// Calls `f(offsets, len, steps)` for each innermost run: the byte
    /// offsets of its first element in each operand, its length, and each
    /// operand's byte step along it.
    pub fn for_each_run(&self, mut f: impl FnMut([isize; N], usize, [isize; N])) {
        let nd = self.shape.len();
        if nd == 0 {
            return f([0; N], 1, [0; N]);
        }
        if self.shape.contains(&0) {
            return;
        }
        let inner = nd - 1;
        let steps: [isize; N] = std::array::from_fn(|k| self.strides[k][inner]);
        let mut index: Dims = SmallVec::from_elem(0, inner);
        let mut offsets = [0isize; N];
        loop {
            f(offsets, self.shape[inner], steps);
            // Advance the outer index like an odometer, updating offsets.
            let mut d = inner;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                for (k, off) in offsets.iter_mut().enumerate() {
                    *off += self.strides[k][d];
                }
                if index[d] < self.shape[d] {
                    break;
                }
                for (k, off) in offsets.iter_mut().enumerate() {
                    *off -= self.strides[k][d] * self.shape[d] as isize;
                }
                index[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn broadcast_rules() {
        assert_eq!(
            broadcast_shapes(&[&[3, 1], &[4]]).unwrap().as_slice(),
            &[3, 4]
        );
        assert_eq!(
            broadcast_shapes(&[&[], &[2, 2]]).unwrap().as_slice(),
            &[2, 2]
        );
        assert!(broadcast_shapes(&[&[3], &[4]]).is_err());
    }

    #[test]
    fn nest_merges_contiguous_dims() {
        let t = Tensor::zeros(DType::Float64, &[2, 3, 4]).unwrap();
        let nest = Nest::new(t.shape(), [t.strides().into()]);
        let mut runs = Vec::new();
        nest.for_each_run(|o, n, s| runs.push((o[0], n, s[0])));
        assert_eq!(runs, vec![(0, 24, 8)]);
        let bs = broadcast_strides(&Tensor::zeros(DType::Float64, &[3, 1]).unwrap(), &[3, 4]);
        let nest = Nest::new(&[3, 4], [bs]);
        let mut runs = Vec::new();
        nest.for_each_run(|o, n, s| runs.push((o[0], n, s[0])));
        assert_eq!(runs, vec![(0, 4, 0), (8, 4, 0), (16, 4, 0)]);
    }

    #[test]
    fn split_outer_covers_the_nest() {
        let nest = Nest::new(&[5, 3], [[24, -8][..].into(), [3, 1][..].into()]);
        let parts = nest.split_outer(3);
        let lens: Vec<usize> = parts.iter().map(|(_, p)| p.shape()[0]).collect();
        assert_eq!(lens, vec![1, 2, 2]);
        let starts: Vec<[isize; 2]> = parts.iter().map(|(o, _)| *o).collect();
        assert_eq!(starts, vec![[0, 0], [24, 3], [72, 9]]);
        assert_eq!(nest.split_outer(9).len(), 5, "no empty parts");
        let scalar = Nest::<1>::new(&[], [Strides::new()]);
        assert_eq!(scalar.split_outer(4).len(), 1);
    }
}
